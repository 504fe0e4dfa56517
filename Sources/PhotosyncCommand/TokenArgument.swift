import PhotoLibrary

/// A change token given on the command line.
enum TokenArgument {
    /// Parses `text`, given as `option`.
    ///
    /// - Throws: ``CommandFailure`` `tokenInvalid` (exit code 4) saying it isn't a photosync change token.
    static func parse(_ text: String, option: String) throws -> ChangeToken {
        do {
            return try ChangeToken(string: text.trimmingCharacters(in: .whitespacesAndNewlines))
        } catch {
            if case .undecodableChangeToken(let reason) = error {
                throw CommandFailure.notAToken(text, option: option, reason: reason)
            }
            throw CommandFailure.from(error)
        }
    }
}
