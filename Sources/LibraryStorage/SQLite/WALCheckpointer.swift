import Dispatch
import GRDBSQLite
import Synchronization

/// Checkpoints a SQLite database's write-ahead log on a connection and a thread of its own, so that a commit
/// returns when its log frames are written (and synced), not after also copying them into the database file
/// and syncing that: SQLite's automatic checkpoint runs in the committing connection, and a commit of a scan's
/// batch writes more than its 1,000-frame threshold, so each such commit paid for a checkpoint — about a
/// tenth of an initial scan's time, mostly the database file's sync.
///
/// ``install(on:)`` replaces the writer connection's automatic checkpoint with a hook that, after each commit:
/// - leaves a log under ``backgroundThreshold`` frames alone, as SQLite does (with the same threshold);
/// - above it, starts a passive checkpoint on this checkpointer's connection, on its queue, unless one is
///   already pending;
/// - above ``inlineThreshold`` frames (the background checkpoints fall behind, or readers hold them back),
///   checkpoints passively in the committing connection itself, as SQLite's automatic checkpoint does: the log
///   stays bounded.
///
/// Passive checkpoints never wait for locks and never block the writer or readers (SQLite's guarantee); what a
/// reader's snapshot still needs stays in the log until a later one. Crash safety is SQLite's: a checkpoint
/// interrupted at any instant is redone from the log at the next opening.
///
/// The connection is opened at the first background checkpoint (a short-lived process, or a library that
/// never writes much, opens none) and closed when the checkpointer is released, after the writer's.
public final class WALCheckpointer: Sendable {
    /// Log frames (pages) after a commit from which a background checkpoint starts; by default 1,000,
    /// SQLite's automatic checkpoint's.
    public let backgroundThreshold: Int32
    /// Log frames after a commit from which the committing connection checkpoints itself; by default 16,000
    /// (64 MiB of 4 KiB pages).
    public let inlineThreshold: Int32

    /// The database file.
    private let path: String
    /// `PRAGMA synchronous` for the checkpoint's connection: whether it syncs the database file.
    private let synchronous: String
    /// Confines the connection: every use of it runs here.
    private let queue: DispatchQueue
    /// The checkpoint connection, once opened.
    ///
    /// Invariant (why unchecked): read and written only by blocks on the serial `queue`, and in `deinit`, when
    /// no block can run any more (each holds the checkpointer). `WALCheckpointerTests` commits from several
    /// threads while background checkpoints run.
    nonisolated(unsafe) private var connection: OpaquePointer?
    private let state = Mutex(State())

    private struct State {
        /// A background checkpoint is queued or running.
        var pending = false
        /// Background checkpoints run, and checkpoints the committing connection ran itself: for tests.
        var backgroundCount = 0
        var inlineCount = 0
        /// The log's frames after the last commit.
        var lastFrames: Int32 = 0
    }

    /// A checkpointer for the database at `path`; its connection uses `PRAGMA synchronous = synchronous`.
    public init(path: String, synchronous: String, backgroundThreshold: Int32 = 1_000, inlineThreshold: Int32 = 16_000) {
        self.path = path
        self.synchronous = synchronous
        self.backgroundThreshold = backgroundThreshold
        self.inlineThreshold = inlineThreshold
        queue = DispatchQueue(label: "photosync.wal-checkpoint")
    }

    deinit {
        if let connection { sqlite3_close_v2(connection) }
    }

    /// Installs the hook on a writer connection, in place of its automatic checkpoint.
    ///
    /// The connection holds the checkpointer unretained: the caller keeps it alive for as long as the
    /// connection is open (a pool's `prepareDatabase` closure that captures it does).
    public func install(on connection: OpaquePointer) {
        sqlite3_wal_hook(connection, walHook, Unmanaged.passUnretained(self).toOpaque())
    }

    /// Background checkpoints run so far, checkpoints run by the committing connection, and the log's frames
    /// after the last commit.
    public var statistics: (background: Int, inline: Int, lastFrames: Int32) {
        state.withLock { ($0.backgroundCount, $0.inlineCount, $0.lastFrames) }
    }

    /// Blocks until the pending background checkpoint, if any, has run.
    public func waitForPendingCheckpoint() {
        queue.sync {}
    }

    /// After a commit that left `frames` frames in the log of `connection`.
    fileprivate func committed(_ connection: OpaquePointer, schema: UnsafePointer<CChar>?, frames: Int32) {
        state.withLock { $0.lastFrames = frames }
        if frames >= inlineThreshold {
            sqlite3_wal_checkpoint_v2(connection, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            state.withLock { $0.inlineCount += 1 }
        } else if frames >= backgroundThreshold {
            let start = state.withLock { state in
                defer { state.pending = true }
                return !state.pending
            }
            if start { queue.async { self.checkpointInBackground() } }
        }
    }

    /// Runs one passive checkpoint on the checkpointer's connection (opened if needed). A failure (the file
    /// gone, a lock held by another process's checkpoint) is left to the next commit's checkpoint.
    private func checkpointInBackground() {
        state.withLock { $0.pending = false }
        guard let connection = openConnection() else { return }
        sqlite3_wal_checkpoint_v2(connection, nil, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
        state.withLock { $0.backgroundCount += 1 }
    }

    /// The checkpoint connection, opened at its first use (on `queue`).
    private func openConnection() -> OpaquePointer? {
        if let connection { return connection }
        var opened: OpaquePointer?
        guard sqlite3_open_v2(path, &opened, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil) == SQLITE_OK,
            let opened,
            sqlite3_exec(opened, "PRAGMA synchronous = \(synchronous)", nil, nil, nil) == SQLITE_OK
        else {
            sqlite3_close_v2(opened)
            return nil
        }
        connection = opened
        return opened
    }
}

/// The writer connection's WAL hook: hands the commit to its checkpointer.
private func walHook(
    _ context: UnsafeMutableRawPointer?, _ connection: OpaquePointer?, _ schema: UnsafePointer<CChar>?, _ frames: Int32
) -> Int32 {
    guard let context, let connection else { return SQLITE_OK }
    Unmanaged<WALCheckpointer>.fromOpaque(context).takeUnretainedValue().committed(connection, schema: schema, frames: frames)
    return SQLITE_OK
}
