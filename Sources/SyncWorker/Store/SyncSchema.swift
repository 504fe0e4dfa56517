import LibraryStorage
public import PhotoLibrary

/// One numbered migration of `Schema/sync/` (SQLite) or `Schema/sync/postgres/` (PostgreSQL), embedded at
/// build time by the EmbedSchema plugin.
struct SchemaMigration: Sendable {
    let version: Int
    let name: String
    let sql: String
}

/// The sync worker's tables in the library (its mirror state: roots, stat cache, directories, sync cookies),
/// as a client series of the library, applied when the sync worker attaches to a library: `Schema/sync/` on
/// SQLite, `Schema/sync/postgres/` — the same versions, tables and columns in PostgreSQL's dialect — on
/// PostgreSQL.
public enum SyncSchema {
    /// The sync worker's name as a client of the library: its record in `library_client_schema`, and the
    /// owner of the roots of asset paths it registers (each mirrored folder).
    public static let clientName = "photosync.sync"

    /// The series. Migration 1 adopts the tables a library made before the mirror left the core already holds
    /// (there they were the core's migration 3, with the same definitions): every row is kept.
    public static let schema = LibraryClientSchema(
        name: clientName, migrations: migrations(sqlite: embeddedSchemaMigrations, postgres: embeddedPostgresSchemaMigrations),
        adoption: .init(version: 1, tables: ["mirror_root", "mirror_sync_cookie", "mirror_file", "mirror_directory"]))

    /// The series' migrations, each with its SQL for the engines that have a file of its version.
    static func migrations(sqlite: [SchemaMigration], postgres: [SchemaMigration]) -> [ClientMigration] {
        let versions = Set(sqlite.map(\.version)).union(postgres.map(\.version)).sorted()
        return versions.map { version in
            let lite = sqlite.first { $0.version == version }
            let pg = postgres.first { $0.version == version }
            return ClientMigration(
                version: version, name: lite?.name ?? pg?.name ?? "", sqlite: lite?.sql, postgres: pg?.sql)
        }
    }
}

extension PhotoLibrary {
    /// Attaches the sync worker's tables to the library (``SyncSchema``): creates or migrates them, once per
    /// handle. Every mirror read and ``FolderMirror`` do it first; a program that reads asset paths of a
    /// library made by an earlier build before any of those (`path` in a predicate) does it on opening.
    ///
    /// - Throws: what ``PhotoLibrary/attach(_:)`` throws.
    public func attachSyncWorker() throws(PhotoLibraryError) {
        try attach(SyncSchema.schema)
    }

    /// Attaches the sync worker's tables, then runs a read of them in one snapshot.
    func readMirror<T>(_ body: (any SQLConnection) throws -> T) throws(PhotoLibraryError) -> T {
        try attachSyncWorker()
        return try readClientState(body)
    }
}
