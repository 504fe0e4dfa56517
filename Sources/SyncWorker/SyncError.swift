public import PhotoLibrary

/// Why a mirror pass stopped. Every refusal leaves the library as it was for the paths concerned: nothing is
/// deleted because of a root that misbehaves.
///
/// It is the only error the sync worker's calls throw: a failure of the library itself comes wrapped, as
/// ``Kind/library(_:)``, and ``underlying`` hands it out, so one `catch` handles a pass:
///
/// ```swift
/// do {
///     let summary = try await mirror.scan()
/// } catch {
///     if let libraryError = error.underlying { … }   // the library failed: a PhotoLibraryError
///     else { … }                                     // the folder was refused: switch on error.kind
/// }
/// ```
public struct SyncError: Error, Sendable, CustomStringConvertible {
    /// The kinds of failure, for programs to act on.
    public enum Kind: Sendable, Equatable {
        /// The root does not exist (or is not a directory).
        case rootMissing
        /// The root exists but cannot be listed.
        case rootUnreadable
        /// The root holds no media file while assets are mirrored from it: it looks unmounted (an empty
        /// mount point, possibly on another device than recorded) or was emptied. Nothing was deleted.
        case rootEmptied
        /// The pass would delete `wouldDelete` of the `mirrored` assets, more than the `limit` allowed by
        /// ``FolderMirrorOptions/maximumDeletionShare``. Nothing was deleted; set
        /// ``FolderMirrorOptions/allowMassDeletion`` to confirm.
        case massDeletionRefused(wouldDelete: Int, mirrored: Int, limit: Int)
        /// ``FolderMirror/requestSync(library:root:timeout:)`` timed out: no watcher processed the cookie.
        case syncTimedOut
        /// The cookie file could not be written into the root.
        case cookieUnwritable
        /// The folder watch could not start.
        case watchFailed
        /// Another mirror writer of the library — another process, or another ``FolderMirror`` of this one —
        /// is running a pass: `holder` says which (pid, root, mode, since). Nothing was read or written. Set
        /// ``FolderMirrorOptions/mirrorWriterWait`` to wait for it instead.
        case mirrorWriterBusy(holder: MirrorWriterLock.Holder)
        /// The library failed.
        case library(PhotoLibraryError)
    }

    /// What went wrong, for programs to match on.
    public let kind: Kind
    /// What happened, for people.
    public let message: String

    /// Makes an error of a kind, with a message for people.
    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// The library's error when the pass stopped because the library failed (``Kind/library(_:)``): a full
    /// disk, a damaged or unreadable database… Nil when the folder was the problem.
    public var underlying: PhotoLibraryError? {
        if case .library(let error) = kind { return error }
        return nil
    }

    static func library(_ error: PhotoLibraryError) -> SyncError {
        SyncError(.library(error), "library error: \(error)")
    }
}
