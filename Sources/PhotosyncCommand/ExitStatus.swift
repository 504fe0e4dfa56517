/// The exit codes of `photosync`, as the README's table and the manual page document them.
enum ExitStatus: Int32 {
    /// Success.
    case success = 0
    /// An error: a missing folder or library, a refused mass deletion, a held lock, a bad predicate, an
    /// unknown identifier… Nothing was half done.
    case failure = 1
    /// A usage error: an unknown command or option, a bad value.
    case usage = 2
    /// The change token has expired: resynchronise, then continue from `photosync token`.
    case tokenExpired = 3
    /// The change token is not valid for this library (undecodable, another library's, or ahead of it).
    case tokenInvalid = 4
    /// A partial pass: some files or directories exist but could not be read (or were still being written);
    /// they were left as they were, and everything else is mirrored.
    case partial = 5
}
