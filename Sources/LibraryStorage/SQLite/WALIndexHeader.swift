import GRDBSQLite
import Synchronization

/// The wal-index header of a database in WAL mode, as SQLite keeps it in the shared memory every connection
/// to the database maps (the `-shm` file): what tells a connection, in every process, whether anything was
/// committed since it last looked, without a read transaction.
///
/// SQLite's WAL format (<https://www.sqlite.org/walformat.html>, "the wal-index header") is the contract: the
/// first 96 bytes of the wal-index are two copies of a 48-byte header that a writer rewrites at each commit
/// (the second copy first) while holding the write lock. Among its fields are a change counter incremented by
/// each commit, the last valid frame and the log's salts, which change when a writer restarts the log. Equal
/// headers read at two moments mean that no transaction was committed in between, by any connection of any
/// process; a header read while a writer rewrites it has two copies that differ, and is not taken.
///
/// The region is reached through the VFS's public shared-memory method (`xShmMap`) on the connection's
/// database file (`SQLITE_FCNTL_FILE_POINTER`). Reading it takes no lock and makes no system call.
public struct WALIndexHeader: Equatable, Sendable {
    /// The header's 48 bytes, in native byte order.
    private let w0, w1, w2, w3, w4, w5: UInt64

    /// The byte size of one copy of the header.
    static let size = 48
    /// The size of a wal-index region (`WALINDEX_PGSZ`): what SQLite maps at once, and asks `xShmMap` for.
    static let regionSize: Int32 = 32_768

    /// The change counter (`iChange`, bytes 8–11): incremented by every commit.
    public var changeCounter: UInt32 { withUnsafeBytes(of: w1) { $0.load(as: UInt32.self) } }

    /// The header of `db`'s main database; nil when its shared memory can't be reached or a writer is
    /// rewriting the header. `db` must be in WAL mode (every connection of a GRDB `DatabasePool` is).
    ///
    /// Call from the thread that uses `db` (it asks the connection for its file).
    public static func current(of db: OpaquePointer) -> WALIndexHeader? {
        guard let region = region(of: db) else { return nil }
        return read(region)
    }

    /// The wal-index's first region, as mapped in this process: valid as long as the connection stays open
    /// in WAL mode. `db` must be in WAL mode; nil when the region can't be had.
    public static func region(of db: OpaquePointer) -> UnsafeRawPointer? {
        var file: UnsafeMutablePointer<sqlite3_file>?
        guard sqlite3_file_control(db, "main", SQLITE_FCNTL_FILE_POINTER, &file) == SQLITE_OK,
            let file, let methods = file.pointee.pMethods, methods.pointee.iVersion >= 2,
            let map = methods.pointee.xShmMap
        else { return nil }
        var region: UnsafeMutableRawPointer?
        let code = withUnsafeMutablePointer(to: &region) { pointer in
            // `void volatile **` imports as a pointer to an optional raw pointer; bExtend 0: map, never grow.
            map(file, 0, regionSize, 0, UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: UnsafeMutableRawPointer?.self))
        }
        guard code == SQLITE_OK, let region else { return nil }
        return UnsafeRawPointer(region)
    }

    /// Reads the header at the start of a mapped wal-index region: both copies, the first before the second
    /// as SQLite does (a writer writes the second before the first), and only when they agree and the header
    /// is built (`isInit`, byte 12).
    public static func read(_ region: UnsafeRawPointer) -> WALIndexHeader? {
        let first = load(region)
        atomicMemoryFence(ordering: .acquiring)
        let second = load(region + size)
        guard first == second, withUnsafeBytes(of: first.w1, { $0[4] }) != 0 else { return nil }
        return first
    }

    private static func load(_ pointer: UnsafeRawPointer) -> WALIndexHeader {
        func word(_ index: Int) -> UInt64 { pointer.loadUnaligned(fromByteOffset: 8 * index, as: UInt64.self) }
        return WALIndexHeader(w0: word(0), w1: word(1), w2: word(2), w3: word(3), w4: word(4), w5: word(5))
    }
}
