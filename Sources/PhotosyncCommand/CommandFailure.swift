import Foundation
import PhotoLibrary
import PhotosyncWire
import SyncWorker

/// A failed command: its exit status, the error code of its JSON report, and a message for people.
struct CommandFailure: Error, CustomStringConvertible {
    let status: ExitStatus
    /// `error`, `notFound`, `noLibrary`, `unavailable`, `usage`, `tokenExpired` or `tokenInvalid` (the JSON report's `error`).
    let code: String
    let message: String
    /// For an expired token: the oldest token the library accepts.
    var oldestValidToken: String?

    init(_ status: ExitStatus, code: String, _ message: String) {
        self.status = status
        self.code = code
        self.message = message
    }

    /// An error (exit code 1) with a JSON code other than `error`.
    init(code: String, _ message: String) {
        self.init(.failure, code: code, message)
    }

    /// An error (exit code 1).
    init(_ message: String) {
        self.init(.failure, code: "error", message)
    }

    /// The form DaemonLock (moving to SyncWorker) still uses: a raw exit code and error name.
    init(code: Int32, name: String, message: String) {
        self.init(ExitStatus(rawValue: code) ?? .failure, code: name, message)
    }

    var description: String { message }

    /// The JSON report (written to stderr with `--json`).
    var report: Wire.Error {
        Wire.Error(error: code, message: message, exitCode: status.rawValue, oldestValidToken: oldestValidToken)
    }

    /// The failure for any error a command's body throws.
    static func from(_ error: any Error) -> CommandFailure {
        switch error {
        case let failure as CommandFailure: failure
        case let error as PhotoLibraryError: from(error)
        case let error as SyncError: from(error)
        default: CommandFailure("\(error)")
        }
    }

    static func from(_ error: PhotoLibraryError) -> CommandFailure {
        switch error {
        case .persistentChangeTokenExpired(let oldest):
            var failure = CommandFailure(
                .tokenExpired, code: "tokenExpired",
                "the change token has expired: the history after it is no longer kept; resynchronise (`photosync assets --json`, `photosync albums --json`), then continue from `photosync token`")
            failure.oldestValidToken = oldest.stringValue
            return failure
        case .undecodableChangeToken, .changeTokenFromAnotherLibrary, .changeTokenAheadOfLibrary:
            return CommandFailure(.tokenInvalid, code: "tokenInvalid", error.description)
        case .objectNotFound:
            return CommandFailure(code: "notFound", error.description)
        case .storageUnavailable(_, let reason) where reason.hasPrefix("invalid PostgreSQL URL"):
            // PostgresStore's invalidURL, which the library reports as storage it can't use: a bad --library.
            return CommandFailure(.usage, code: "usage", LibraryLocation.redacted(reason))
        case .storageUnavailable:
            // The disk or the database server: what a client retries later.
            return CommandFailure(code: "unavailable", LibraryLocation.redacted(error.description))
        default:
            return CommandFailure(LibraryLocation.redacted(error.description))
        }
    }

    /// The sync worker's errors, in the command line's words (its options, not the API's property names).
    static func from(_ error: SyncError) -> CommandFailure {
        switch error.kind {
        case .massDeletionRefused(let wouldDelete, let mirrored, let limit):
            return CommandFailure("""
                refused a pass that would delete \(Plural.count(wouldDelete, "asset")) of the \(mirrored) mirrored (more \
                than the \(limit) --max-deletion-share allows); nothing was deleted. If the files really are gone, \
                run `photosync scan DIR --allow-mass-deletion` once
                """)
        case .library(let error):
            return from(error)
        default:
            return CommandFailure(commandLineSpelling(error.message))
        }
    }

    /// The sync worker names its options as the API does; the command line has flags for them.
    static func commandLineSpelling(_ message: String) -> String {
        message.replacingOccurrences(of: "acceptRootDeviceChange", with: "`photosync scan DIR --accept-device-change`")
            .replacingOccurrences(of: "allowMassDeletion", with: "`photosync scan DIR --allow-mass-deletion`")
    }

    /// A token given on the command line that isn't one.
    static func notAToken(_ text: String, option: String, reason: String) -> CommandFailure {
        let shown = text.count > 24 ? String(text.prefix(24)) + "…" : text
        return CommandFailure(
            .tokenInvalid, code: "tokenInvalid",
            "\(option) '\(shown)' isn't a photosync change token (\(reason)); tokens are what `photosync token` and `photosync changes` print")
    }
}

/// An exit with a status but no error message: a command that did its work and reports a partial result.
struct CommandExit: Error {
    let status: ExitStatus
}
