public import Foundation
public import PhotoLibrary
import FolderWatch
import Synchronization

/// Mirrors a folder of photos and videos into a library, by content hash, keeping identities across
/// renames and moves, and never destructive when the folder misbehaves.
///
/// Files are referenced in place (``AssetStorage/referenced``). The library's mirror state — a stat cache
/// per file (device, inode, size, mtime and ctime in nanoseconds, content hash, asset) and the album or
/// folder of each directory — commits in the same transaction as the asset changes it describes, so a crash
/// at any point converges on the next pass. Media are recognised by content (MediaProbe), never by name;
/// `.photosyncignore` files (gitignore syntax) and the built-in ignore patterns apply; symbolic links are
/// never followed.
///
/// ## One rule set for scans and the watcher
/// 1. Same path, same stamp: unchanged, not read. (A rescan of an unchanged tree reads no file.)
/// 2. A recorded file that left its path (the path is gone, or holds another file) and whose (device, inode,
///    size, mtime) is found at another path: a **move** — same local identifier, path and file name updated,
///    album membership following — found without reading the file (renames, moves across folders,
///    case-only renames, whole-directory renames, renames over another file, rotations and swaps of names).
/// 3. Everything else is hashed (XXH3-128), with a stat before and after: a file that changed meanwhile is
///    still being written and is retried later (a scan reports it as skipped and leaves its old state).
///    Then: the recorded file itself (same inode), or a new file renamed over it (an atomic save): same
///    hash → only the stat cache is refreshed, new hash → a content **update** (`assetContentChanged`); a
///    new path whose inode and hash are those of a file that left its path, or whose hash is that of a
///    recorded path gone → a **move**; any other new path → an **insert**. Identical content at two paths is
///    two assets.
/// 4. A recorded path gone and not moved → a **delete**; a recorded file whose path another file was renamed
///    onto → a delete, in the same transaction as that move. A file that exists but cannot be read, a file
///    vanishing while it is read, and everything under a folder that cannot be listed are reported and
///    kept.
///
/// The watcher (``watch(progress:onEvent:)``) applies the same rules to the paths its events mark, and keeps
/// identities whatever the timing of the events.
///
/// ## Folders become albums
/// A directory holding media directly is an album titled with its name, holding those files' assets in the
/// order they were mirrored. A directory other than the root with media in its subdirectories is a folder
/// of the same name holding, first, its own album when it has one, then its subdirectories' albums and
/// folders. The root's own album (titled with the root's name) and its subdirectories' collections sit at
/// the top level. A renamed or moved directory (recognised by device and inode) keeps its album's and
/// folder's identifiers: they are renamed and moved. A directory left without media loses its album and
/// folder.
///
/// ## Live Photos
/// A still and a movie in the same directory with the same content identifier (the still's Apple maker note
/// ContentIdentifier, the movie's `com.apple.quicktime.content.identifier`) are a Live Photo: the still's
/// asset carries ``AssetMediaSubtypes/photoLive`` — set in the same transaction as whichever file change
/// completes the pair, whatever the order, pass or batch, and cleared when the movie is deleted, leaves the
/// directory or changes identifier. The movie stays a video asset of its own, without a subtype.
///
/// ## Safety
/// A root that is missing, unreadable, empty while assets are mirrored from it, or on another device than
/// recorded (an unmounted disk's mount point) deletes nothing and throws; a pass that would delete more than
/// ``FolderMirrorOptions/maximumDeletionShare`` of the mirrored assets (and at least
/// ``FolderMirrorOptions/minimumMassDeletion``) stops before deleting, unless
/// ``FolderMirrorOptions/allowMassDeletion`` confirms it.
public final class FolderMirror: Sendable {
    /// The library the folder is mirrored into.
    public let library: PhotoLibrary
    /// The root's absolute path, with symbolic links resolved: the path the library records
    /// (``PhotoLibrary/fetchMirrorRoot(path:)``).
    public let root: URL
    /// How the mirror scans, batches, watches and protects the folder, as given to the initialiser.
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
    /// Cancelling the task ends the pass after the batch being built is committed; the summary then says
    /// ``ScanSummary/interrupted``, and nothing was deleted.
    ///
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
