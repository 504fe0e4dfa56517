public import GRDB

/// The SQLite engine: a GRDB pool on one file in WAL mode (reads on snapshots, concurrently with the one
/// writer; SQLite serialises writers across processes).
public final class SQLiteEngine: StorageEngine {
    /// The pool the engine runs on: the door for what only SQLite does (its file, its statement cache,
    /// GRDB's configuration).
    public let pool: DatabasePool

    /// An engine on an open pool.
    public init(pool: DatabasePool) {
        self.pool = pool
    }

    public var dialect: SQLDialect { .sqlite }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try pool.read { db in try body(db) }
    }

    public func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try pool.write { db in try body(db) }
    }

    public func writeWithoutTransaction<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try pool.writeWithoutTransaction { db in try body(db) }
    }

    public func makeSnapshot() throws -> any StorageSnapshot {
        SQLiteSnapshot(snapshot: try pool.makeSnapshot())
    }
}

/// A SQLite snapshot: a reader connection kept in one read transaction of the WAL.
struct SQLiteSnapshot: StorageSnapshot {
    let snapshot: DatabaseSnapshot

    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try snapshot.read { db in try body(db) }
    }
}
