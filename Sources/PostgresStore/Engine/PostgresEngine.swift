public import Foundation
public import LibraryStorage
public import Logging
import PostgresNIO

/// The PostgreSQL storage engine: a library's tables in a PostgreSQL database, with the guarantees of
/// ``StorageEngine`` — one snapshot per read, one writer at a time across every process, rollback on throw.
///
/// ```swift
/// let engine = try PostgresEngine(url: URL(string: "postgres://photos@db.example/library")!)
/// let count = try engine.read { db in try db.fetchValue(Int64.self, sql: "SELECT count(*) FROM asset") }
/// ```
///
/// ## Blocking
///
/// The engine is synchronous, like the library: each call blocks its thread until PostgreSQL answers,
/// waiting on postgres-nio's futures, which need no thread of the caller's (so calls from Swift's
/// cooperative pool can't starve each other). A call from an event-loop thread stops the process with a
/// message: it would block the loop that must answer it. See ``Blocking``.
///
/// ## Transactions
///
/// - ``read(_:)``: `BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY` on a pooled connection. PostgreSQL
///   takes the snapshot at the transaction's first statement, and the whole body reads it.
/// - ``write(_:)``: on the writer connection, under a process-local lock, `BEGIN ISOLATION LEVEL READ
///   COMMITTED` then `pg_advisory_xact_lock(writerLockKey)`, held until `COMMIT` (when the body returns) or
///   `ROLLBACK` (when it throws). The isolation level must be READ COMMITTED: each statement then reads a
///   snapshot taken after the lock was granted, so it sees every earlier writer's commit (a REPEATABLE READ
///   snapshot would be taken by the locking statement itself, before the wait, and miss them: lost updates).
/// - ``writeWithoutTransaction(_:)``: the writer connection, under the process-local lock, no transaction.
///   A body that begins a write transaction of its own must take ``writerLockKey`` first
///   (`SELECT pg_advisory_xact_lock(…)`), in READ COMMITTED, to stay serialised with other processes.
/// - ``makeSnapshot()``: a connection of its own, in one REPEATABLE READ READ ONLY transaction whose
///   snapshot is taken at once, until the snapshot is released.
///
/// ## Why writes become visible in order
///
/// The writer lock is ``writerLockKey``, taken by every write transaction as its first statement: one lock
/// for the library's tables and its journal, so no order between two locks to get wrong. A write transaction
/// holds it from its first statement to its end; PostgreSQL releases a transaction's locks only after its
/// commit is visible. So the next writer draws its journal sequence numbers only after the previous writer's
/// are visible (or rolled back, leaving a gap no reader waits for): every snapshot sees a prefix of the
/// sequence numbers, in commit order, and a reader's `WHERE seq > token` misses nothing (see
/// `Schema/postgres/README.md`). Any other process writing the library's tables must take the same lock.
public final class PostgresEngine: StorageEngine {
    /// The advisory lock every library writer holds for its whole transaction, across processes and machines
    /// (`'journal!'` as a 64-bit integer): it serialises the journal's appends, so tokens never skip (see the
    /// type's discussion). Its value is part of the on-database protocol: processes of different versions
    /// sharing a database must agree on it, so it never changes.
    public static let writerLockKey: Int64 = 0x6a6f_7572_6e61_6c21

    /// The store the engine opened: its configuration, and its async pool.
    public let store: PostgresStore
    private let pool: PostgresConnectionPool
    private let writer: PostgresWriter
    /// Commit hints through `LISTEN`/`NOTIFY` (``CommitSignaling``).
    let commitSignals = PostgresCommitSignals()

    private init(store: PostgresStore, readers: Int) {
        self.store = store
        self.pool = PostgresConnectionPool(configuration: store.configuration, logger: store.logger, capacity: readers)
        self.writer = PostgresWriter(pool: pool)
    }

    /// Opens the database at a `postgres://` URL, migrating its schema (``PostgresStore/open(url:logger:)``).
    ///
    /// - Parameter readers: how many reads may run at once (each on a connection of its own).
    /// - Throws: ``PostgresStoreError``, as ``PostgresStore/open(url:logger:)`` throws.
    public static func open(url: URL, logger: Logger = Logger(label: "photosync.postgres"), readers: Int = 8)
        async throws(PostgresStoreError) -> PostgresEngine
    {
        PostgresEngine(store: try await PostgresStore.open(url: url, logger: logger), readers: readers)
    }

    /// Opens the database at a `postgres://` URL, blocking the calling thread (see ``open(url:logger:readers:)``).
    ///
    /// - Throws: ``PostgresStoreError``.
    public convenience init(url: URL, logger: Logger = Logger(label: "photosync.postgres"), readers: Int = 8) throws {
        let store = try Blocking.run { try await PostgresStore.open(url: url, logger: logger) }
        self.init(store: store, readers: readers)
    }

    /// Closes the engine's connections (its commit-hint subscriptions' too) and its store. Later calls throw
    /// ``PostgresStoreError/closed``.
    public func close() async {
        commitSignals.close()
        await pool.close()
        await writer.close()
        await store.close()
    }

    public var dialect: SQLDialect { .postgres }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try pool.withConnection { connection in
            Self.transaction(makeAdapter(connection), begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
        }.get()
    }

    public func write<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try writer.withConnection { connection in
            let (outcome, reusable) = Self.transaction(
                makeAdapter(connection),
                begin: "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(\(Self.writerLockKey))", body)
            if !reusable { writer.discard(connection) }
            return outcome
        }.get()
    }

    public func writeWithoutTransaction<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        try writer.withConnection { connection in try body(makeAdapter(connection)) }
    }

    public func makeSnapshot() throws -> any StorageSnapshot {
        try PostgresSnapshot(connection: pool.connect(), configuration: store.configuration, logger: store.logger)
    }

    private func makeAdapter(_ connection: PostgresConnection) -> PostgresSQLConnection {
        PostgresSQLConnection(connection, configuration: store.configuration, logger: store.logger)
    }

    /// Runs `body` in a transaction that `begin` opens: committed when it returns, rolled back when it throws.
    ///
    /// - Returns: the body's result or error (or the engine's), and whether the connection can be used again:
    ///   false when the transaction could not be ended (the connection is then closed).
    static func transaction<T>(
        _ connection: PostgresSQLConnection, begin: String, _ body: (any SQLConnection) throws -> T
    ) -> (outcome: Result<T, any Error>, reusable: Bool) {
        do {
            try connection.execute(sql: begin)
            let result = try body(connection)
            try connection.execute(sql: "COMMIT")
            return (.success(result), true)
        } catch {
            let failure = error
            do {
                try connection.execute(sql: "ROLLBACK")
                return (.failure(failure), true)
            } catch {
                connection.connection.closeInBackground()
                return (.failure(failure), false)
            }
        }
    }
}
