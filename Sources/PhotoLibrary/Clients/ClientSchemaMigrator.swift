import Foundation
import GRDB

/// Applies a client's series of migrations (``LibraryClientSchema``) inside the library's write
/// transaction, recording the version reached in `library_client_schema` (Schema/0007_client_schema.sql).
enum ClientSchemaMigrator {
    /// Brings the client's tables to the series' newest version. Must run inside a write transaction: a
    /// failure leaves nothing applied.
    ///
    /// - Returns: the versions applied now (empty when the library was up to date or adopted the tables).
    /// - Throws: ``PhotoLibraryError/clientSchemaTooNew(client:found:supported:)``,
    ///   ``PhotoLibraryError/clientSchemaConflict(client:reason:)``, SQLite errors of the migrations.
    static func migrate(_ db: Database, _ schema: LibraryClientSchema) throws -> [Int] {
        let recorded = try Int.fetchOne(
            db, sql: "SELECT version FROM library_client_schema WHERE client = ?", arguments: [schema.name])
        if let recorded, recorded > schema.version {
            throw PhotoLibraryError.clientSchemaTooNew(client: schema.name, found: recorded, supported: schema.version)
        }
        var version = recorded ?? 0
        if recorded == nil, let adoption = schema.adoption, try adopts(db, adoption, client: schema.name) {
            version = adoption.version
        }
        let pending = schema.migrations.filter { $0.version > version }
        for migration in pending { try db.execute(sql: migration.sql) }
        if recorded != schema.version, schema.version > 0 {
            try db.execute(
                sql: "INSERT OR REPLACE INTO library_client_schema (client, version, migratedAt) VALUES (?, ?, ?)",
                arguments: [schema.name, schema.version, Date().timeIntervalSince1970])
        }
        return pending.map(\.version)
    }

    /// Whether the library holds every table of the adoption (true), none (false), or some (an error).
    private static func adopts(_ db: Database, _ adoption: LibraryClientSchema.Adoption, client: String) throws -> Bool {
        var present: [String] = []
        var missing: [String] = []
        for table in adoption.tables {
            if try db.tableExists(table) { present.append(table) } else { missing.append(table) }
        }
        if missing.isEmpty { return true }
        if present.isEmpty { return false }
        throw PhotoLibraryError.clientSchemaConflict(
            client: client,
            reason: "the library holds \(present.joined(separator: ", ")) but not \(missing.joined(separator: ", ")), without a record of the client's migrations")
    }
}
