import GRDB
import LibraryStorage

/// One numbered migration of `Schema/`, embedded at build time by the EmbedSchema plugin.
struct SchemaMigration: Sendable {
    let version: Int
    let name: String
    let sql: String
}

/// The library schema: the migrations of `Schema/`, applied in order.
///
/// The core's tables only: a client of the library keeps its own tables as a series of its own
/// (``LibraryClientSchema``), applied when it attaches. Version 3 left this series when the sync worker's
/// mirror state became its own series (`Schema/sync/`): a library at versions 3 to 6 keeps those tables,
/// which the sync worker's series adopts.
///
/// GRDB's `DatabaseMigrator` runs each migration in a transaction of its own; a library must never be left
/// half-migrated, so pending migrations are applied here in **one** transaction, recording the schema
/// version in `PRAGMA user_version` and marking the file as a photosync library with `application_id`.
enum LibrarySchema {
    /// `PRAGMA application_id` of every photosync library: "PSYN".
    static let applicationID: Int32 = 0x5053_594E

    static let migrations: [SchemaMigration] = embeddedSchemaMigrations.sorted { $0.version < $1.version }

    /// The newest schema version this build knows.
    static var currentVersion: Int { migrations.last?.version ?? 0 }

    /// Applies the migrations newer than the database's version. Must run inside a write transaction.
    ///
    /// - Throws: ``PhotoLibraryError/schemaTooNew(found:supported:)`` when the file was written by a newer
    ///   photosync; SQLite errors otherwise.
    static func migrate(_ db: any SQLConnection) throws {
        switch db.dialect {
        case .sqlite:
            try migrateSQLite(db)
        case .postgres:
            // The boundary: PostgreSQL's schema (Schema/postgres) and its versions are PostgresStore's.
            throw PhotoLibraryError.invalidRequest("the core schema's SQLite migrations ran on PostgreSQL, whose are PostgresStore's")
        }
    }

    /// Brings a SQLite file's schema up to date: its version is `PRAGMA user_version`.
    private static func migrateSQLite(_ db: any SQLConnection) throws {
        let version = try db.fetchValue(Int.self, sql: "PRAGMA user_version") ?? 0
        guard version <= currentVersion else {
            throw PhotoLibraryError.schemaTooNew(found: version, supported: currentVersion)
        }
        for migration in migrations where migration.version > version {
            try db.execute(sql: migration.sql)
        }
        if version < currentVersion {
            try db.execute(sql: "PRAGMA user_version = \(currentVersion)")
            try db.execute(sql: "PRAGMA application_id = \(applicationID)")
        }
    }
}
