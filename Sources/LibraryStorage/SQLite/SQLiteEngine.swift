public import GRDB

/// The SQLite engine: a GRDB pool on one file in WAL mode (reads on snapshots, concurrently with the one
/// writer; SQLite serialises writers across processes).
public final class SQLiteEngine: StorageEngine {
    /// The pool the engine runs on: the door for what only SQLite does (its file, its statement cache,
    /// GRDB's configuration).
    public let pool: DatabasePool
    /// Whether connections offer their fast paths (``SQLConnection/sqliteDatabase``).
    let fastPaths: Bool
    /// What checkpoints the writer's log, if the pool's writer was given one (``WALCheckpointer/install(on:)``).
    public let checkpointer: WALCheckpointer?

    /// An engine on an open pool.
    ///
    /// - Parameters:
    ///   - fastPaths: false hands out connections whose ``SQLConnection/sqliteDatabase`` is nil, so the library
    ///     takes the paths every engine takes: for tests of those paths.
    ///   - checkpointer: the checkpointer installed on the pool's writer, if any, kept for its users.
    public init(pool: DatabasePool, fastPaths: Bool = true, checkpointer: WALCheckpointer? = nil) {
        self.pool = pool
        self.fastPaths = fastPaths
        self.checkpointer = checkpointer
    }

    /// The connection handed to a body: the GRDB connection itself, or without its fast paths.
    private func connection(_ db: Database) -> any SQLConnection {
        fastPaths ? db : SQLiteGenericConnection(db)
    }

    public var dialect: SQLDialect { .sqlite }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try pool.read { db in try body(connection(db)) }
    }

    public func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try pool.write { db in try body(connection(db)) }
    }

    public func writeWithoutTransaction<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try pool.writeWithoutTransaction { db in try body(connection(db)) }
    }

    public func makeSnapshot() throws -> any StorageSnapshot {
        SQLiteSnapshot(snapshot: try pool.makeSnapshot(), fastPaths: fastPaths)
    }
}

/// A SQLite snapshot: a reader connection kept in one read transaction of the WAL.
struct SQLiteSnapshot: StorageSnapshot {
    let snapshot: DatabaseSnapshot
    let fastPaths: Bool

    func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try snapshot.read { db in try body(fastPaths ? db : SQLiteGenericConnection(db)) }
    }
}
