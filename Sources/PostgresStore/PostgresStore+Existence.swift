public import Foundation
public import Logging
import PostgresNIO

extension PostgresStore {
    /// Whether the database at a `postgres://` URL holds a photosync schema (a migration ever applied to
    /// it), read without creating or changing anything: one connection, one query, closed.
    ///
    /// Blocks the calling thread (see ``Blocking``).
    ///
    /// - Throws: ``PostgresStoreError``: ``PostgresStoreError/invalidURL(_:reason:)``,
    ///   ``PostgresStoreError/connectionRefused(address:)``, ``PostgresStoreError/authenticationFailed(user:message:)``,
    ///   ``PostgresStoreError/databaseDoesNotExist(_:)`` and other connection or server errors.
    public static func holdsSchema(url: URL, logger: Logger = Logger(label: "photosync.postgres")) throws(PostgresStoreError) -> Bool {
        let configuration = try PostgresConfiguration(url: url)
        do {
            return try Blocking.run {
                let connection = try await connect(configuration, logger: logger)
                do {
                    let rows = try await connection.query(
                        "SELECT to_regclass('photosync_schema_migration') IS NOT NULL", logger: logger
                    ).collect()
                    try? await connection.close()
                    return try rows.first?.decode(Bool.self) ?? false
                } catch {
                    try? await connection.close()
                    throw PostgresStoreError.map(error, configuration)
                }
            }
        } catch let error as PostgresStoreError {
            throw error
        } catch {
            throw .connectionFailed(address: configuration.address, message: "\(error)")
        }
    }
}
