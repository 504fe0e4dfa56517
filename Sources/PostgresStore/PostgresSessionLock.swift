import Logging
import PostgresNIO

/// An exclusive, session-level advisory lock (`pg_try_advisory_lock`) held on a connection of its own, for
/// a rule of one holder that must hold across every process and machine using a database.
///
/// The server releases the lock when the connection ends: when the lock is deallocated (its connection is
/// closed), when its process exits or is killed, and when the connection is lost (the holder's machine goes
/// away; the server notices at its TCP keepalive, or `idle_session_timeout` when set). A holder whose
/// connection is lost does not learn it: the lock guards against two holders that both still reach the
/// server, which is what a shared database is for.
///
/// Keys live in the database's advisory-lock space, shared with ``PostgresMigrator/lockKey`` and
/// ``PostgresEngine/writerLockKey``: use keys of your own.
public final class PostgresSessionLock: Sendable {
    /// The lock's key.
    public let key: Int64
    private let connection: PostgresConnection

    private init(key: Int64, connection: PostgresConnection) {
        self.key = key
        self.connection = connection
    }

    deinit {
        connection.closeInBackground()
    }

    /// Tries once, without waiting, to take the lock `key` of the store's database.
    ///
    /// - Returns: the lock, or nil when another session holds it.
    /// - Throws: ``PostgresStoreError`` when the connection can't be made or the server fails.
    /// - Complexity: one new connection and one round trip; blocks the calling thread until the server answers.
    public static func tryAcquire(key: Int64, store: PostgresStore) throws -> PostgresSessionLock? {
        let logger = store.logger
        let configuration = store.configuration
        return try Blocking.run { () async throws -> PostgresSessionLock? in
            let connection = try await store.makeConnection()
            do {
                var acquired = false
                let rows = try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger)
                for try await row in rows { acquired = try row.decode(Bool.self) }
                if acquired { return PostgresSessionLock(key: key, connection: connection) }
                try await connection.close()
                return nil
            } catch {
                connection.closeInBackground()
                throw PostgresStoreError.map(error, configuration)
            }
        }
    }
}
