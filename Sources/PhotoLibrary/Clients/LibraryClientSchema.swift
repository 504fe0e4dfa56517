public import LibraryStorage

/// The tables a client of the library keeps in the library's database, as a named, versioned series of
/// migrations — the way a client (a sync worker, an importer, a server) owns state that must commit in the
/// same transaction as the library changes it describes.
///
/// The library applies the series when the client attaches (``PhotoLibrary/attach(_:)``): the migrations
/// newer than the version recorded for the client run in order, in one transaction, and the new version is
/// recorded for the client in the library (`library_client_schema`). Re-attaching, in this process or any
/// other, applies nothing; a newer series attached to a library an older one migrated applies only what is
/// new; a library that a newer series of the client migrated is refused
/// (``PhotoLibraryError/clientSchemaTooNew(client:found:supported:)``), as the core's own schema is.
///
/// A client reads its tables with ``PhotoLibrary/readClientState(_:)`` and writes them inside a change block
/// through ``LibraryTransaction``, so that they commit with the block or not at all. Its SQL may refer to the
/// core's tables by their `id` columns (row ids are never reused) and read their `localIdentifier`s; it must
/// not write the core's tables (only change requests do).
///
/// Each migration carries SQL per storage engine (``ClientMigration``): the library runs the one of its
/// engine's dialect.
///
/// ```swift
/// let schema = LibraryClientSchema(name: "com.example.tags", migrations: [
///     ClientMigration(
///         version: 1, name: "tags",
///         sqlite: """
///             CREATE TABLE example_tag (assetId INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
///                 tag TEXT NOT NULL, PRIMARY KEY (assetId, tag)) WITHOUT ROWID;
///             """,
///         postgres: """
///             CREATE TABLE example_tag (assetId BIGINT NOT NULL REFERENCES asset(id) ON DELETE CASCADE,
///                 tag TEXT COLLATE "C" NOT NULL, PRIMARY KEY (assetId, tag));
///             """),
/// ])
/// try library.attach(schema)
/// ```
///
/// Name tables with a prefix of the client's own, so that they can't meet the core's or another client's.
public struct LibraryClientSchema: Sendable, Hashable {
    /// The client's name: its identity in the library's record (reverse-DNS style, or `photosync.<module>`).
    public let name: String
    /// The migrations, by increasing version.
    public let migrations: [ClientMigration]
    /// Tables that builds made before the series existed created in the library (see ``Adoption``); nil
    /// when there are none.
    public let adoption: Adoption?

    /// The newest version of the series (0 for an empty series).
    public var version: Int { migrations.map(\.version).max() ?? 0 }

    /// Tables a library may already hold without a record of the client: made by an earlier build (for
    /// instance, when the tables were the core's before they became a client's).
    ///
    /// When the library has no record of the client and holds **every** table listed, the migrations up to
    /// ``version`` are recorded as applied without running (the tables and all their rows are kept); when it
    /// holds only some of them, attaching fails with ``PhotoLibraryError/clientSchemaConflict(client:reason:)``
    /// and changes nothing.
    public struct Adoption: Sendable, Hashable {
        /// The version of the series the existing tables correspond to.
        public let version: Int
        /// The tables whose presence shows that the migrations up to ``version`` were applied.
        public let tables: [String]

        /// Makes an adoption rule.
        public init(version: Int, tables: [String]) {
            self.version = version
            self.tables = tables
        }
    }

    /// Makes a client schema. It is checked when attached (``PhotoLibrary/attach(_:)``).
    public init(name: String, migrations: [ClientMigration], adoption: Adoption? = nil) {
        self.name = name
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.adoption = adoption
    }

    /// Why the schema can't be applied, or nil: a name, versions from 1 up without repeats, an adoption
    /// within the series naming at least one table.
    var problem: String? {
        if name.isEmpty { return "a client schema needs a name" }
        if migrations.contains(where: { $0.version < 1 }) { return "client schema \(name): versions start at 1" }
        if Set(migrations.map(\.version)).count != migrations.count {
            return "client schema \(name): two migrations have the same version"
        }
        if let empty = migrations.first(where: { $0.sqliteSQL == nil && $0.postgresSQL == nil }) {
            return "client schema \(name): migration \(empty.version) (\(empty.name)) has SQL for no engine"
        }
        if let adoption {
            if adoption.tables.isEmpty { return "client schema \(name): an adoption names no table" }
            if !migrations.contains(where: { $0.version == adoption.version }) {
                return "client schema \(name): the adopted version \(adoption.version) is not one of its migrations"
            }
        }
        return nil
    }
}

/// One migration of a ``LibraryClientSchema``: SQL statements run once, in the library's migration
/// transaction, when the client's recorded version is below ``version``.
///
/// A migration carries its SQL per storage engine, as each engine's dialect differs in its DDL (SQLite's
/// `INTEGER PRIMARY KEY` and `WITHOUT ROWID`, PostgreSQL's identity columns and `COLLATE "C"`): the library
/// runs the one of its own engine (``SQLConnection/dialect``). A client that supports one engine only gives
/// that one's; attaching its series to a library on another engine is refused with
/// ``PhotoLibraryError/clientSchemaUnsupportedEngine(client:engine:migrations:)``, changing nothing.
///
/// ```swift
/// ClientMigration(
///     version: 1, name: "tags",
///     sqlite: "CREATE TABLE example_tag (assetId INTEGER NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (assetId, tag)) WITHOUT ROWID",
///     postgres: "CREATE TABLE example_tag (assetId BIGINT NOT NULL, tag TEXT NOT NULL, PRIMARY KEY (assetId, tag))")
/// ```
public struct ClientMigration: Sendable, Hashable {
    /// The migration's version: 1, 2, … (gaps are allowed; the order is by version).
    public let version: Int
    /// A name for messages and logs.
    public let name: String
    /// The SQL for a library on SQLite: one or more statements, SQLite's dialect; nil when the migration has
    /// none.
    public let sqliteSQL: String?
    /// The SQL for a library on PostgreSQL: one or more statements without parameters, PostgreSQL's
    /// dialect; nil when the migration has none.
    public let postgresSQL: String?

    /// Makes a migration with SQL for each engine the client supports (at least one: a migration with
    /// neither is refused when its series is attached).
    ///
    /// - Parameters:
    ///   - sqlite: the statements run on a library on SQLite.
    ///   - postgres: the statements run on a library on PostgreSQL.
    public init(version: Int, name: String, sqlite: String?, postgres: String?) {
        self.version = version
        self.name = name
        self.sqliteSQL = sqlite
        self.postgresSQL = postgres
    }

    /// The SQL to run on a library whose engine speaks `dialect`; nil when the migration has none for it.
    public func sql(for dialect: SQLDialect) -> String? {
        switch dialect {
        case .sqlite: sqliteSQL
        case .postgres: postgresSQL
        }
    }
}
