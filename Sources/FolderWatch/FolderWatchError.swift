#if canImport(Glibc)
import Glibc
#endif

/// Why a ``FolderWatcher`` could not start.
public struct FolderWatchError: Error, Sendable, CustomStringConvertible {
    /// The kind of failure.
    public enum Kind: Sendable, Hashable {
        /// The root does not exist (or a component of its path does not).
        case rootMissing
        /// The root exists but is not a directory.
        case notADirectory
        /// The root cannot be listed or watched (permissions).
        case rootUnreadable
        /// inotify cannot be used: no instance could be created (fs.inotify.max_user_instances, a kernel
        /// without inotify), or not even the root could get a watch (fs.inotify.max_user_watches).
        case inotifyUnavailable
    }

    /// The kind of failure.
    public let kind: Kind
    /// The root as given.
    public let path: String
    /// The `errno` of the failed system call (0 when none failed).
    public let errno: Int32
    /// What went wrong, for people.
    public let message: String

    /// Creates an error.
    public init(kind: Kind, path: String, errno: Int32, message: String) {
        self.kind = kind
        self.path = path
        self.errno = errno
        self.message = message
    }

    public var description: String {
        errno == 0 ? "\(path): \(message)" : "\(path): \(message) (\(String(cString: strerror(errno))))"
    }
}
