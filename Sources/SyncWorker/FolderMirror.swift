public import Foundation
public import PhotoLibrary
import FolderWatch
import Synchronization

/// Mirrors a folder of photos and videos into a library, by content hash, keeping identities across
/// renames and moves, and never destructive when the folder misbehaves.
///
/// Files are referenced in place (``AssetStorage/referenced``); the library's mirror state (a stat cache
/// per file and the album or folder of each directory) commits in the same transaction as the asset changes
/// it describes, so a crash at any point converges on the next pass. See ``Reconciler`` for the rules, and
/// ``DirectoryTree`` for how directories become albums and folders.
public final class FolderMirror: Sendable {
    public let library: PhotoLibrary
    /// The root's absolute, standardized path.
    public let root: URL
    public let options: FolderMirrorOptions
    let engine: MirrorEngine
    /// How many ``watch(progress:onEvent:)`` loops run (``sync()`` uses cookies while one does).
    let watching = Mutex(0)

    /// Prepares a mirror of `root` into `library`. Nothing is read or written until a pass runs.
    ///
    /// - Throws: ``SyncError/Kind/rootMissing`` when `root` is not an existing directory.
    public convenience init(library: PhotoLibrary, root: URL, options: FolderMirrorOptions = .init()) throws(SyncError) {
        try self.init(library: library, root: root, options: options, hooks: WatchHooks())
    }

    /// Hooks into the watcher, for tests that need to hold its events (queue overflows).
    struct WatchHooks: Sendable {
        var configure: @Sendable (inout FolderWatchOptions) -> Void = { _ in }
        var started: @Sendable (FolderWatcher) -> Void = { _ in }
    }

    let hooks: WatchHooks

    init(library: PhotoLibrary, root: URL, options: FolderMirrorOptions, hooks: WatchHooks) throws(SyncError) {
        let path = root.standardizedFileURL.resolvingSymlinksInPath().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw SyncError(.rootMissing, "the folder \(path) does not exist")
        }
        self.library = library
        self.root = URL(fileURLWithPath: path, isDirectory: true)
        self.options = options
        self.engine = MirrorEngine(library: library, root: path, options: options)
        self.hooks = hooks
    }

    /// One full pass: walks the tree (stat only), hashes what is new or changed since the stat cache, and
    /// commits inserts, content updates, moves and deletes in batches (at most
    /// ``FolderMirrorOptions/batchFileLimit`` files or ``FolderMirrorOptions/batchTimeLimit`` each).
    ///
    /// - Parameter progress: called as the pass goes (on the pass's task; keep it short).
    /// - Returns: what the pass did; files it skipped and why.
    /// - Throws: ``SyncError`` — the root is missing, unreadable or looks unmounted, the pass would delete
    ///   too much, or the library failed. Nothing is deleted in the refused cases; batches committed before
    ///   an error stay committed (and are consistent).
    /// - Complexity: O(*n*) stats for *n* files plus reading the new and changed files; an unchanged tree
    ///   reads no file.
    @discardableResult
    public func scan(progress: (@Sendable (ScanProgress) -> Void)? = nil) async throws(SyncError) -> ScanSummary {
        try await engine.scan(progress: progress, onBatch: nil)
    }
}
