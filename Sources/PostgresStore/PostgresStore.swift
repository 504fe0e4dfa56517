public import Foundation
public import Logging
public import PostgresNIO

/// A PostgreSQL database used as a photosync store: the connection pool, the schema (migrated on open) and
/// the helpers every other part of the store runs its SQL through.
///
/// ```swift
/// let store = try await PostgresStore.open(url: URL(string: "postgres://photos@db.example/library")!)
/// defer { Task { await store.close() } }
/// let count = try await store.withConnection { connection in
///     try await connection.query("SELECT count(*) FROM asset", logger: store.logger).collect().count
/// }
/// ```
///
/// Opening connects once to check the URL, the credentials and the server (so a bad URL, a refused
/// connection or a wrong password is a typed ``PostgresStoreError`` at once, not a pool retrying in the
/// background), applies the migrations of `Schema/postgres/` (see ``PostgresMigrator``) and refreshes the
/// predicate folding table (see ``PredicateFoldTable``). Several processes may open the same database at
/// once.
///
/// The pool runs in a task the store owns: call ``close()`` when done (the pool's connections close; a
/// connection leased at that moment finishes its work first).
public final class PostgresStore: Sendable {
    /// Where the store connects.
    public let configuration: PostgresConfiguration
    /// The logger the store's queries log into.
    public let logger: Logger
    private let client: PostgresClient
    private let runner: Task<Void, Never>

    private init(configuration: PostgresConfiguration, logger: Logger) {
        self.configuration = configuration
        self.logger = logger
        // The pool warns when a lease comes before `run()` has started; the lease waits for it, so at open,
        // racing the runner task below, that warning is noise: the pool logs errors only.
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        let client = PostgresClient(configuration: Self.clientConfiguration(configuration), backgroundLogger: background)
        self.client = client
        self.runner = Task { await client.run() }
    }

    /// Opens the database at a `postgres://` URL, migrating its schema to this build's version.
    ///
    /// - Throws: ``PostgresStoreError``: ``PostgresStoreError/invalidURL(_:reason:)``,
    ///   ``PostgresStoreError/connectionRefused(address:)``, ``PostgresStoreError/authenticationFailed(user:message:)``,
    ///   ``PostgresStoreError/databaseDoesNotExist(_:)``, ``PostgresStoreError/schemaTooNew(found:known:)``,
    ///   ``PostgresStoreError/migrationChanged(version:name:)``, ``PostgresStoreError/unsupportedServerEncoding(_:)``
    ///   and other connection or server errors.
    public static func open(url: URL, logger: Logger = Logger(label: "photosync.postgres")) async throws(PostgresStoreError)
        -> PostgresStore
    {
        let configuration = try PostgresConfiguration(url: url)
        try await withCheckedConnection(configuration, logger: logger) { connection in
            try await checkEncoding(connection, logger: logger)
            try await PostgresMigrator(logger: logger).migrate(connection)
        }
        return PostgresStore(configuration: configuration, logger: logger)
    }

    /// Closes the pool. Later calls fail with ``PostgresStoreError/closed``.
    public func close() async {
        runner.cancel()
        await runner.value
    }

    /// Runs `body` with a connection from the pool (not in a transaction).
    @discardableResult
    ///
    /// - Throws: what `body` throws, with postgres-nio's errors mapped to ``PostgresStoreError``.
    public func withConnection<Result: Sendable>(_ body: (PostgresConnection) async throws -> Result) async throws -> Result {
        do {
            return try await client.withConnection { connection in try await body(connection) }
        } catch {
            throw PostgresStoreError.map(error, configuration)
        }
    }

    /// Runs `body` in a transaction on a connection from the pool: committed when `body` returns, rolled
    /// back when it throws.
    ///
    /// - Parameter isolation: `READ COMMITTED` (PostgreSQL's default) or a stricter level, e.g.
    ///   `"REPEATABLE READ READ ONLY"` for a consistent snapshot of several reads.
    /// - Throws: what `body` throws, with postgres-nio's errors mapped to ``PostgresStoreError``.
    @discardableResult
    public func withTransaction<Result: Sendable>(
        isolation: String = "READ COMMITTED", _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await withConnection { connection in
            try await Self.transaction(connection, isolation: isolation, logger: logger, body)
        }
    }

    /// Opens a connection of its own, outside the pool: for `LISTEN`, or to hold a session-level lock.
    /// Close it with `close()`.
    ///
    /// - Throws: ``PostgresStoreError`` when the connection can't be made.
    public func makeConnection() async throws(PostgresStoreError) -> PostgresConnection {
        try await Self.connect(configuration, logger: logger)
    }

    /// Runs `body` in a transaction on `connection`.
    static func transaction<Result: Sendable>(
        _ connection: PostgresConnection, isolation: String, logger: Logger,
        _ body: (PostgresConnection) async throws -> Result
    ) async throws -> Result {
        try await connection.query(PostgresQuery(unsafeSQL: "BEGIN ISOLATION LEVEL \(isolation)"), logger: logger)
        do {
            let result = try await body(connection)
            try await connection.query("COMMIT", logger: logger)
            return result
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    // MARK: Connecting

    static func connect(_ configuration: PostgresConfiguration, logger: Logger) async throws(PostgresStoreError)
        -> PostgresConnection
    {
        do {
            return try await PostgresConnection.connect(
                configuration: connectionConfiguration(configuration), id: 0, logger: logger)
        } catch {
            throw (PostgresStoreError.map(error, configuration) as? PostgresStoreError)
                ?? .connectionFailed(address: configuration.address, message: "\(error)")
        }
    }

    /// Connects, runs `body`, and closes the connection.
    private static func withCheckedConnection(
        _ configuration: PostgresConfiguration, logger: Logger, _ body: (PostgresConnection) async throws -> Void
    ) async throws(PostgresStoreError) {
        let connection = try await connect(configuration, logger: logger)
        do {
            try await body(connection)
            try? await connection.close()
        } catch {
            try? await connection.close()
            throw (PostgresStoreError.map(error, configuration) as? PostgresStoreError)
                ?? .connectionFailed(address: configuration.address, message: "\(error)")
        }
    }

    private static func checkEncoding(_ connection: PostgresConnection, logger: Logger) async throws {
        let rows = try await connection.query("SHOW server_encoding", logger: logger).collect()
        let encoding = try rows.first?.decode(String.self) ?? "unknown"
        guard encoding.uppercased() == "UTF8" else { throw PostgresStoreError.unsupportedServerEncoding(encoding) }
    }

    /// The TLS context of every connection that may use TLS, made once per process: making one loads the
    /// system's trust roots (tens of milliseconds of processor time), and a context is thread-safe and the
    /// client configuration fixed.
    private static let clientTLSContext = Result { try NIOSSLContext(configuration: .makeClientConfiguration()) }

    static func connectionConfiguration(_ configuration: PostgresConfiguration) throws -> PostgresConnection.Configuration {
        var result: PostgresConnection.Configuration
        switch configuration.endpoint {
        case .tcp(let host, let port):
            let tls: PostgresConnection.Configuration.TLS
            switch configuration.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(try clientTLSContext.get())
            case .require: tls = .require(try clientTLSContext.get())
            }
            result = .init(
                host: host, port: port, username: configuration.user, password: configuration.password,
                database: configuration.database, tls: tls)
        case .unixSocket(let directory, let port):
            result = .init(
                unixSocketPath: "\(directory)/.s.PGSQL.\(port)", username: configuration.user,
                password: configuration.password, database: configuration.database)
        }
        result.options.additionalStartupParameters = [("application_name", configuration.applicationName)]
        return result
    }

    private static func clientConfiguration(_ configuration: PostgresConfiguration) -> PostgresClient.Configuration {
        var result: PostgresClient.Configuration
        switch configuration.endpoint {
        case .tcp(let host, let port):
            let tls: PostgresClient.Configuration.TLS
            switch configuration.tls {
            case .disable: tls = .disable
            case .prefer: tls = .prefer(.makeClientConfiguration())
            case .require: tls = .require(.makeClientConfiguration())
            }
            result = .init(
                host: host, port: port, username: configuration.user, password: configuration.password,
                database: configuration.database, tls: tls)
        case .unixSocket(let directory, let port):
            result = .init(
                unixSocketPath: "\(directory)/.s.PGSQL.\(port)", username: configuration.user,
                password: configuration.password, database: configuration.database)
        }
        result.options.additionalStartupParameters = [("application_name", configuration.applicationName)]
        return result
    }
}
