import Foundation
import PostgresNIO
import Synchronization

/// The engine's writer connection and the process-local lock around it: one writer of this process at a
/// time (other processes are kept out by the advisory lock a write transaction takes, see
/// ``PostgresEngine/writerLockKey``).
///
/// The connection is made on first use and made again when it was lost.
final class PostgresWriter: Sendable {
    private let pool: PostgresConnectionPool
    /// Held while a body runs on the connection.
    private let lock = NSLock()
    /// The thread holding ``lock`` (0 when none): a write inside a write would wait for itself forever.
    private let owner = Atomic<UInt>(0)
    private let connection = Mutex<PostgresConnection?>(nil)

    init(pool: PostgresConnectionPool) {
        self.pool = pool
    }

    deinit { connection.withLock { $0 }?.closeInBackground() }

    /// Runs `body` on the writer connection, other writers of this process waiting.
    ///
    /// - Throws: ``PostgresStoreError`` when the connection can't be made; what `body` throws.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let thread = UInt(pthread_self())
        precondition(
            owner.load(ordering: .relaxed) != thread,
            "a PostgreSQL engine write started inside another write of the same thread: writes don't nest")
        lock.lock()
        owner.store(thread, ordering: .relaxed)
        defer {
            owner.store(0, ordering: .relaxed)
            lock.unlock()
        }
        return try body(try current())
    }

    /// Closes the writer connection (its transaction could not be ended): the next writer makes a new one.
    func discard(_ broken: PostgresConnection) {
        connection.withLock { if $0 === broken { $0 = nil } }
        broken.closeInBackground()
    }

    /// The open writer connection, made when there is none or it was lost.
    private func current() throws -> PostgresConnection {
        if let existing = connection.withLock({ $0 }), !existing.isClosed { return existing }
        let made = try pool.connect()
        connection.withLock { $0 = made }
        return made
    }

    /// Closes the connection (waiting for the writer in progress, if any).
    func close() async {
        let existing = lock.withLock { connection.withLock { connection in defer { connection = nil }; return connection } }
        try? await existing?.close()
    }
}
