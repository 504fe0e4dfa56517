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
///
/// ## One writer per library
/// Every pass — ``scan(progress:)``, ``watch(progress:onEvent:)`` for as long as it runs, and the scan of
/// ``sync()`` — holds the library's mirror writer lock (``MirrorWriterLock``), whatever root it mirrors:
/// two writers with separate in-memory states would both insert an asset for the same new file. So an app
/// embedding a mirror and the daemon (`photosync watch`) exclude each other across processes, and two
/// mirrors of one process exclude each other too; the passes of one mirror share its lock (a scan during its
/// own watch waits for its engine, never for itself). On a library on PostgreSQL the lock is also an
/// advisory lock of the database, so writers on other machines sharing the library are excluded as well. A
/// pass that finds another writer throws ``SyncError/Kind/mirrorWriterBusy(holder:)`` naming it (pid, root,
/// mode, since) at once, having read and written nothing — or waits up to
/// ``FolderMirrorOptions/mirrorWriterWait`` for it to finish. ``sync()`` while a watcher of the same root runs
/// elsewhere is a barrier through that watcher, not a scan.
///
/// ## Self-healing
/// A full pass does not trust its own state. While it walks the tree it compares, in two aggregate
/// queries (a process's first pass counts while it reads the records instead), the root's records with the library's assets referencing files under the root
/// (``PhotoLibrary/mirrorConsistency(rootPath:)``); when they disagree — left so by two writers racing
/// before this rule, an app deleting mirrored assets, or a crash of an older photosync — it repairs first
/// (``ScanSummary/repaired``, journaled like any change): several assets of one file are merged into the
/// oldest, which keeps its identifier, albums and properties, joins every album a merged copy was in, is a
/// favourite when any copy was and stays hidden only when all were; an asset of a file no record names is
/// adopted; a record naming an asset that is gone or references another file is dropped (the file is then
/// new, unless an asset of it is adopted). Adopted assets are read again and follow the ordinary rules: one
/// whose file is gone is deleted like any file gone (mass-deletion safety included) or moved when its
/// content reappears. An adopted asset is put in its directory's album and out of other directories', as a
/// moved one is; the albums and folders a racing writer made beside the recorded ones are deleted (the
/// rule: ``MirrorOrphans``), their photos first put in their directories' albums. Every other photo keeps
/// the albums it is in (a user's choices stay). A pass also reads the records again when the library's change token moved
/// since it last committed (someone else changed the library). An unchanged, consistent tree costs a rescan
/// nothing more than the two queries, run on another thread while the tree is walked.
///
/// ## Libraries in the tree
/// A photosync library found in the tree — the mirror's own (`photosync --library
/// ~/Pictures/Library.photosync scan ~/Pictures`) or any other, recognised by its database
/// (``PhotoLibrary/isLibraryDirectory(atPath:)``), not its name — is left out with everything below it: its
/// originals are not photos to mirror. One that appears later (created, moved or copied in) is left out from
/// then on, and what was mirrored from its directory goes like files deleted.
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
    /// This mirror's hold on the library's mirror writer lock, shared by its overlapping passes.
    let writer = WriterLease()

    /// Prepares a mirror of `root` into `library`. Nothing of the folder is read nor any asset written until a
    /// pass runs (and takes the library's mirror writer lock); the sync worker's own tables are attached to
    /// the library now (``PhotoLibrary/attachSyncWorker()``: created, migrated or adopted, once per handle).
    ///
    /// - Throws: ``SyncError/Kind/rootMissing`` when `root` is not an existing directory;
    ///   ``SyncError/Kind/library(_:)`` when the sync worker's tables can't be attached (a newer sync worker
    ///   migrated them: ``PhotoLibraryError/clientSchemaTooNew(client:found:supported:)``).
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
        do { try library.attachSyncWorker() } catch { throw .library(error) }
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
    /// The pass holds the library's mirror writer lock (see "One writer per library" above). It first
    /// compares the library with the mirror's records of this root and repairs what disagrees (see
    /// "Self-healing" above; counted in ``ScanSummary/repaired``). Photosync libraries in the tree are left
    /// out.
    ///
    /// - Throws: ``SyncError`` — another mirror writer holds the library
    ///   (``SyncError/Kind/mirrorWriterBusy(holder:)``, nothing read or written), the root is missing,
    ///   unreadable or looks unmounted, the pass would delete too much, or the library failed. Nothing is
    ///   deleted in the refused cases; batches committed before an error stay committed (and are consistent).
    /// - Complexity: O(*n*) stats for *n* files plus reading the new and changed files; an unchanged tree
    ///   reads no file. The consistency check is two aggregate queries, run while the tree is walked.
    @discardableResult
    public func scan(progress: (@Sendable (ScanProgress) -> Void)? = nil) async throws(SyncError) -> ScanSummary {
        try await beginWriting(mode: "scan")
        defer { endWriting() }
        return try await engine.scan(progress: progress, onBatch: nil)
    }
}
