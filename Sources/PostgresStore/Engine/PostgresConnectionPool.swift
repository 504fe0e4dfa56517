import Dispatch
import Logging
import PostgresNIO
import Synchronization

/// The engine's connections for reads: at most `capacity` at once, a caller beyond that waiting for one to
/// come back. Connections are made on demand, kept while healthy, and closed when broken.
///
/// Connections are made and used through NIO futures, waited for on the calling thread (``Blocking``).
final class PostgresConnectionPool: Sendable {
    let configuration: PostgresConfiguration
    let logger: Logger
    private let permits: DispatchSemaphore
    private let idle = Mutex<[PostgresConnection]>([])
    private let closed = Atomic<Bool>(false)
    private let nextID = Atomic<Int>(1)

    init(configuration: PostgresConfiguration, logger: Logger, capacity: Int) {
        self.configuration = configuration
        self.logger = logger
        self.permits = DispatchSemaphore(value: capacity)
    }

    deinit {
        for connection in idle.withLock({ $0 }) { connection.closeInBackground() }
    }

    /// A new connection, outside the pool's count (the writer's, a snapshot's).
    ///
    /// - Throws: ``PostgresStoreError`` when it can't be made.
    func connect() throws -> PostgresConnection {
        if closed.load(ordering: .acquiring) { throw PostgresStoreError.closed }
        do {
            let future = PostgresConnection.connect(
                on: PostgresConnection.defaultEventLoopGroup.any(),
                configuration: try PostgresStore.connectionConfiguration(configuration),
                id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, logger: logger)
            return try Blocking.wait(future)
        } catch {
            throw (PostgresStoreError.map(error, configuration) as? PostgresStoreError)
                ?? .connectionFailed(address: configuration.address, message: "\(error)")
        }
    }

    /// Runs `body` on a connection of the pool, waiting for one when all are in use.
    ///
    /// - Parameter body: returns its result and whether the connection can be used again (false closes it);
    ///   a connection whose body throws is closed.
    /// - Throws: ``PostgresStoreError`` when no connection can be made; what `body` throws.
    func withConnection<T>(_ body: (PostgresConnection) throws -> (outcome: T, reusable: Bool)) throws -> T {
        permits.wait()
        defer { permits.signal() }
        let connection = try idle.withLock { $0.popLast() } ?? connect()
        let result: (outcome: T, reusable: Bool)
        do {
            result = try body(connection)
        } catch {
            release(connection, reusable: false)
            throw error
        }
        release(connection, reusable: result.reusable)
        return result.outcome
    }

    private func release(_ connection: PostgresConnection, reusable: Bool) {
        if reusable && !connection.isClosed && !closed.load(ordering: .acquiring) {
            idle.withLock { $0.append(connection) }
        } else {
            connection.closeInBackground()
        }
    }

    /// Closes the idle connections; connections in use close when they come back, later calls throw
    /// ``PostgresStoreError/closed``.
    func close() async {
        closed.store(true, ordering: .releasing)
        for connection in idle.withLock({ idle in defer { idle = [] }; return idle }) {
            try? await connection.close()
        }
    }
}
