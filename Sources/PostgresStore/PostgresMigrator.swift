import Logging
public import PostgresNIO

/// Applies the migrations of `Schema/postgres/` (embedded in the build) to a database, in one transaction.
///
/// The schema version table, `photosync_schema_migration`, records each applied migration's version, name
/// and checksum. Opening checks them: a database migrated by a newer build is refused
/// (``PostgresStoreError/schemaTooNew(found:known:)``), and so is one whose applied migration differs from
/// this build's (``PostgresStoreError/migrationChanged(version:name:)``).
///
/// Safe when several processes open the same database at once: the whole step runs under a
/// transaction-scoped advisory lock (``lockKey``), so one process migrates while the others wait, then find
/// nothing left to do. PostgreSQL's DDL is transactional: a failure (or a crash) applies nothing.
public struct PostgresMigrator: Sendable {
    /// The advisory lock key every photosync process takes to migrate (`'photosyn'` as a 64-bit integer).
    public static let lockKey: Int64 = 0x7068_6f74_6f73_796e

    /// The newest schema version this build knows.
    public static var knownVersion: Int { embeddedSchemaMigrations.map(\.version).max() ?? 0 }

    let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// Migrates the database on `connection` to ``knownVersion``, and refreshes the predicate folding data.
    ///
    /// - Returns: The versions applied now (empty when the database was up to date).
    /// - Throws: ``PostgresStoreError/schemaTooNew(found:known:)``,
    ///   ``PostgresStoreError/migrationChanged(version:name:)``, or a server error (nothing is applied then).
    @discardableResult
    public func migrate(_ connection: PostgresConnection) async throws -> [Int] {
        try await PostgresStore.transaction(connection, isolation: "READ COMMITTED", logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(\(Self.lockKey))", logger: logger)
            try await connection.query(
                """
                CREATE TABLE IF NOT EXISTS photosync_schema_migration (
                    version INTEGER PRIMARY KEY, name TEXT NOT NULL, checksum TEXT NOT NULL,
                    appliedAt TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            // postgres-nio speaks the extended protocol, one statement per query; a migration is a script.
            // PL/pgSQL's EXECUTE runs a whole script, so a session-temporary function runs each migration.
            try await connection.query(
                """
                CREATE OR REPLACE FUNCTION pg_temp.photosync_run_script(script TEXT) RETURNS void
                LANGUAGE plpgsql AS $script$ BEGIN EXECUTE script; END $script$
                """, logger: logger)
            let applied = try await appliedMigrations(connection)
            let pending = try Self.pending(applied: applied)
            for migration in pending {
                logger.info("applying PostgreSQL migration \(migration.name)")
                try await connection.query("SELECT pg_temp.photosync_run_script(\(migration.sql))", logger: logger)
                try await connection.query(
                    "INSERT INTO photosync_schema_migration (version, name, checksum) VALUES (\(migration.version), \(migration.name), \(migration.checksum))",
                    logger: logger)
            }
            try await PredicateFoldTable.refresh(connection, logger: logger)
            return pending.map(\.version)
        }
    }

    private func appliedMigrations(_ connection: PostgresConnection) async throws -> [Int: (name: String, checksum: String)] {
        var applied: [Int: (name: String, checksum: String)] = [:]
        let rows = try await connection.query("SELECT version, name, checksum FROM photosync_schema_migration", logger: logger)
        for try await row in rows {
            let (version, name, checksum) = try row.decode((Int, String, String).self)
            applied[version] = (name, checksum)
        }
        return applied
    }

    /// The migrations still to apply, after checking the applied ones.
    static func pending(applied: [Int: (name: String, checksum: String)]) throws(PostgresStoreError) -> [SchemaMigration] {
        if let newest = applied.keys.max(), newest > knownVersion {
            throw .schemaTooNew(found: newest, known: knownVersion)
        }
        for migration in embeddedSchemaMigrations {
            if let record = applied[migration.version], record.checksum != migration.checksum {
                throw .migrationChanged(version: migration.version, name: migration.name)
            }
        }
        return embeddedSchemaMigrations.filter { applied[$0.version] == nil }.sorted { $0.version < $1.version }
    }
}
