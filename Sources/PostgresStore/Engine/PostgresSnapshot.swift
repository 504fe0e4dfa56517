import Foundation
import GRDB
public import LibraryStorage
import Logging
import PostgresNIO

/// A snapshot of a PostgreSQL library (``PostgresEngine/makeSnapshot()``): a connection of its own, in one
/// `REPEATABLE READ READ ONLY` transaction whose snapshot is taken when the snapshot is made, and closed
/// (ending the transaction) when the snapshot is released — explicitly with ``release()``, or when the last
/// reference goes.
///
/// Reads through it run one at a time (a connection serves one statement at a time).
public final class PostgresSnapshot: StorageSnapshot {
    private let connection: PostgresConnection
    private let configuration: PostgresConfiguration
    private let logger: Logger
    /// Held while a read runs; guards nothing else.
    private let lock = NSLock()

    init(connection: PostgresConnection, configuration: PostgresConfiguration, logger: Logger) throws {
        self.connection = connection
        self.configuration = configuration
        self.logger = logger
        // PostgreSQL takes a REPEATABLE READ snapshot at the first statement: take it now, not at the first read.
        do {
            try PostgresSQLConnection(connection, configuration: configuration, logger: logger)
                .execute(sql: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT 1")
        } catch {
            connection.closeInBackground()
            throw error
        }
    }

    deinit { connection.closeInBackground() }

    /// Ends the snapshot's transaction and closes its connection; later reads throw
    /// ``PostgresStoreError/closed``.
    public func release() {
        lock.withLock { connection.closeInBackground() }
    }

    public func read<T>(_ body: (any SQLConnection) throws -> T) throws -> T {
        lock.lock()
        defer { lock.unlock() }
        guard !connection.isClosed else { throw PostgresStoreError.closed }
        return try body(PostgresSQLConnection(connection, configuration: configuration, logger: logger))
    }
}
