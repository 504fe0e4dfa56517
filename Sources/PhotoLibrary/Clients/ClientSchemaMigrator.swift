import Foundation
import GRDB
import LibraryStorage

/// Applies a client's series of migrations (``LibraryClientSchema``) inside the library's write
/// transaction, recording the version reached in `library_client_schema` (Schema/0007_client_schema.sql).
enum ClientSchemaMigrator {
    /// Brings the client's tables to the series' newest version, running each pending migration's SQL for
    /// the connection's dialect. Must run inside a write transaction: a failure leaves nothing applied.
    ///
    /// - Returns: the versions applied now (empty when the library was up to date or adopted the tables).
    /// - Throws: ``PhotoLibraryError/clientSchemaTooNew(client:found:supported:)``,
    ///   ``PhotoLibraryError/clientSchemaConflict(client:reason:)``,
    ///   ``PhotoLibraryError/clientSchemaUnsupportedEngine(client:engine:migrations:)`` (checked before any
    ///   migration runs), the engine's errors of the migrations.
    static func migrate(_ db: any SQLConnection, _ schema: LibraryClientSchema) throws -> [Int] {
        let recorded = try db.fetchValue(
            Int.self, sql: "SELECT version FROM library_client_schema WHERE client = ?", arguments: [schema.name])
        if let recorded, recorded > schema.version {
            throw PhotoLibraryError.clientSchemaTooNew(client: schema.name, found: recorded, supported: schema.version)
        }
        var version = recorded ?? 0
        if recorded == nil, let adoption = schema.adoption, try adopts(db, adoption, client: schema.name) {
            version = adoption.version
        }
        let pending = schema.migrations.filter { $0.version > version }
        let scripts = pending.compactMap { $0.sql(for: db.dialect) }
        guard scripts.count == pending.count else {
            throw PhotoLibraryError.clientSchemaUnsupportedEngine(
                client: schema.name, engine: db.dialect.engineName,
                migrations: pending.filter { $0.sql(for: db.dialect) == nil }.map(\.version))
        }
        for script in scripts { try db.execute(sql: script) }
        if recorded != schema.version, schema.version > 0 {
            try db.execute(
                sql: """
                    INSERT INTO library_client_schema (client, version, migratedAt) VALUES (?, ?, ?)
                    ON CONFLICT (client) DO UPDATE SET version = excluded.version, migratedAt = excluded.migratedAt
                    """,
                arguments: [schema.name, schema.version, Date().timeIntervalSince1970])
        }
        return pending.map(\.version)
    }

    /// Whether the library holds every table of the adoption (true), none (false), or some (an error).
    private static func adopts(_ db: any SQLConnection, _ adoption: LibraryClientSchema.Adoption, client: String) throws -> Bool {
        var present: [String] = []
        var missing: [String] = []
        for table in adoption.tables {
            if try tableExists(table, db) { present.append(table) } else { missing.append(table) }
        }
        if missing.isEmpty { return true }
        if present.isEmpty { return false }
        throw PhotoLibraryError.clientSchemaConflict(
            client: client,
            reason: "the library holds \(present.joined(separator: ", ")) but not \(missing.joined(separator: ", ")), without a record of the client's migrations")
    }

    /// Whether the library holds a table of this name (as SQL spells it unquoted: case-insensitively).
    static func tableExists(_ table: String, _ db: any SQLConnection) throws -> Bool {
        let sql = switch db.dialect {
        case .sqlite: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND lower(name) = lower(?))"
        case .postgres:
            "SELECT EXISTS (SELECT 1 FROM pg_tables WHERE schemaname = current_schema() AND tablename = lower(?))"
        }
        return try db.fetchValue(Bool.self, sql: sql, arguments: [table]) ?? false
    }
}

extension SQLDialect {
    /// The engine's name, for messages.
    var engineName: String {
        switch self {
        case .sqlite: "SQLite"
        case .postgres: "PostgreSQL"
        }
    }
}
