import Foundation
import GRDB
import PhotoLibrary
import PostgresNIO
import PostgresStore
import SyncWorker
import Testing

/// Schema/postgres promises "same tables, same columns, same meaning" as Schema/, and Schema/sync/postgres as
/// Schema/sync (the sync worker's own series, a client of the library). These tests compare the schemas as
/// the migrations leave them — a new SQLite library with the sync worker attached against a new PostgreSQL
/// database with the sync worker's series applied — so a migration written for one engine and not the other
/// fails here.
@Suite("Schema/ and Schema/postgres stay in step")
struct SchemaParityTests {
    /// Differences by design, each with its reason. Anything else that differs fails the test.
    static let expectedDifferences: Set<String> = [
        // Predicate string matching on PostgreSQL: its folding tables (migration 0005 there).
        "postgres only: table fetchpredicate_scalar",
        "postgres only: table fetchpredicate_fold_version",
        // Each engine's record of applied migrations.
        "postgres only: table photosync_schema_migration",
        "sqlite only: table sqlite_sequence",
    ]

    @Test("the same tables and columns, with corresponding types and nullability")
    func sameColumns() async throws {
        let sqlite = try sqliteColumns()
        let postgres = try await postgresColumns()
        let differences = Self.differences(sqlite: sqlite, postgres: postgres)
        #expect(differences.subtracting(Self.expectedDifferences).sorted() == [])
        #expect(Self.expectedDifferences.subtracting(differences).sorted() == [], "an expected difference is gone: drop it from the list")
    }

    @Test("the same indexes on the same columns")
    func sameIndexes() async throws {
        let sqlite = try sqliteIndexes()
        let postgres = try await postgresIndexes()
        #expect(sqlite == postgres)
    }

    /// Every difference between the two column maps, as readable lines.
    static func differences(sqlite: [String: [String: Column]], postgres: [String: [String: Column]]) -> Set<String> {
        var lines: Set<String> = []
        for table in Set(sqlite.keys).union(postgres.keys) {
            guard let left = sqlite[table] else { lines.insert("postgres only: table \(table)"); continue }
            guard let right = postgres[table] else { lines.insert("sqlite only: table \(table)"); continue }
            for name in Set(left.keys).union(right.keys) {
                switch (left[name], right[name]) {
                case (let l?, let r?) where l != r: lines.insert("differs: column \(table).\(name): sqlite \(l), postgres \(r)")
                case (nil, let r?): lines.insert("postgres only: column \(table).\(name) \(r)")
                case (let l?, nil): lines.insert("sqlite only: column \(table).\(name) \(l)")
                default: break
                }
            }
        }
        return lines
    }
}

/// A column as both engines can describe it: its kind of value and whether it may be null.
struct Column: Equatable, CustomStringConvertible {
    var kind: String
    var notNull: Bool
    var description: String { notNull ? "\(kind) not null" : kind }
}

extension Column {
    /// The engine-neutral kind of a declared type: SQLite's affinity rules, PostgreSQL's type names.
    init(declaredType: String, notNull: Bool) {
        let type = declaredType.lowercased()
        let kind =
            if type.contains("int") { "integer" }
            else if type.contains("real") || type.contains("doub") || type.contains("floa") { "real" }
            else if type.contains("text") || type.contains("char") { "text" }
            else if type.contains("blob") || type.contains("bytea") || type.isEmpty { "blob" }
            else { type }
        self.init(kind: kind, notNull: notNull)
    }
}

/// The tables and columns of a new SQLite library, with names in lower case (as PostgreSQL folds them).
func sqliteColumns() throws -> [String: [String: Column]] {
    try withNewSQLiteLibrary { db in
        var tables: [String: [String: Column]] = [:]
        for table in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") {
            let rows = try Row.fetchAll(db, sql: "SELECT name, type, \"notnull\", pk FROM pragma_table_info(?)", arguments: [table])
            var columns: [String: Column] = [:]
            for row in rows {
                // A primary key column is never null, though SQLite reports a rowid alias as nullable.
                let notNull = (row["notnull"] as Int) != 0 || (row["pk"] as Int) != 0
                columns[(row["name"] as String).lowercased()] = Column(declaredType: row["type"], notNull: notNull)
            }
            tables[table.lowercased()] = columns
        }
        return tables
    }
}

/// Each index of a new SQLite library (automatic ones left out) with its columns, in lower case.
func sqliteIndexes() throws -> [String: [String]] {
    try withNewSQLiteLibrary { db in
        var indexes: [String: [String]] = [:]
        let sql = "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_autoindex%'"
        for index in try String.fetchAll(db, sql: sql) {
            let columns = try String.fetchAll(db, sql: "SELECT name FROM pragma_index_info(?) ORDER BY seqno", arguments: [index])
            indexes[index.lowercased()] = columns.map { $0.lowercased() }
        }
        return indexes
    }
}

/// Runs `body` on the database of a library created in a temporary directory, then removes it.
func withNewSQLiteLibrary<T>(_ body: (Database) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory.appending(path: "schema-parity-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try PhotoLibrary(url: directory).attachSyncWorker()
    let queue = try DatabaseQueue(path: directory.appending(path: PhotoLibrary.databaseFileName).path)
    return try queue.read(body)
}

/// The tables and columns of a new PostgreSQL library, in its public schema.
func postgresColumns() async throws -> [String: [String: Column]] {
    let rows = try await withNewPostgresLibrary { connection in
        try await connection.run("""
            SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns
            WHERE table_schema = 'public'
            """)
    }
    var tables: [String: [String: Column]] = [:]
    for row in rows {
        let (table, column, type, nullable) = try row.decode((String, String, String, String).self)
        tables[table, default: [:]][column] = Column(declaredType: type, notNull: nullable == "NO")
    }
    return tables
}

/// Each index of a new PostgreSQL library with its columns; primary keys and unique constraints, which
/// SQLite indexes automatically, are left out as SQLite's automatic indexes are.
func postgresIndexes() async throws -> [String: [String]] {
    let rows = try await withNewPostgresLibrary { connection in
        try await connection.run("""
            SELECT i.relname, a.attname FROM pg_index x
            JOIN pg_class i ON i.oid = x.indexrelid
            JOIN pg_class t ON t.oid = x.indrelid
            JOIN pg_namespace n ON n.oid = t.relnamespace
            CROSS JOIN LATERAL unnest(x.indkey) WITH ORDINALITY AS k(attnum, position)
            JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
            WHERE n.nspname = 'public' AND NOT x.indisprimary
              AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid)
            ORDER BY i.relname, k.position
            """)
    }
    var indexes: [String: [String]] = [:]
    for row in rows {
        let (index, column) = try row.decode((String, String).self)
        indexes[index, default: []].append(column)
    }
    return indexes
}

/// Runs `body` on a connection to a new PostgreSQL library with the sync worker's series applied, then
/// closes its store.
func withNewPostgresLibrary<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
    var result: T?
    try await withStore { store in
        result = try await store.withConnection { connection in
            try await applySyncSeries(connection)
            return try await body(connection)
        }
    }
    return result!
}

/// The versions of `Schema/postgres/` (the core's series in PostgreSQL's dialect), in order: not every number
/// up to `PostgresMigrator.knownVersion` (3 left the series when the mirror became the sync worker's).
func coreSeriesVersions() -> [Int] {
    let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../Schema/postgres").standardizedFileURL
    let files = (try? FileManager.default.contentsOfDirectory(atPath: schema.path)) ?? []
    let versions = files.filter { $0.hasSuffix(".sql") }.compactMap { Int($0.prefix(4)) }.sorted()
    #expect(versions.last == PostgresMigrator.knownVersion)
    return versions
}

/// Applies `Schema/sync/postgres/` (the sync worker's series in PostgreSQL's dialect, which the library applies
/// when the sync worker attaches, not `PostgresStore`) in the order of its versions, each file as one script. It must be the same series as `Schema/sync/`: as many migrations, the same versions.
func applySyncSeries(_ connection: PostgresConnection) async throws {
    let schema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../Schema/sync").standardizedFileURL
    let postgres = try FileManager.default.contentsOfDirectory(atPath: schema.appending(path: "postgres").path)
        .filter { $0.hasSuffix(".sql") }.sorted()
    #expect(postgres.map { $0.prefix(4) } == SyncSchema.schema.migrations.map { String(format: "%04d", $0.version)[...] })
    try await connection.run("""
        CREATE OR REPLACE FUNCTION pg_temp.parity_run_script(script TEXT) RETURNS void
        LANGUAGE plpgsql AS $script$ BEGIN EXECUTE script; END $script$
        """)
    for file in postgres {
        let sql = try String(contentsOf: schema.appending(path: "postgres/\(file)"), encoding: .utf8)
        try await connection.run("SELECT pg_temp.parity_run_script(\(sql))")
    }
}
