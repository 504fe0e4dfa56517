import GRDB
import GRDBSQLite
import LibraryStorage

/// A read-only query over the assets of a group of ids, run for any number of ids a group of ``arity`` at a
/// time: `WITH ids(id) AS (VALUES (CAST(? AS BIGINT)), …) SELECT … FROM ids CROSS JOIN asset WHERE asset.id =
/// ids.id`, on any engine.
///
/// It is the incremental path's probe: a few rows per run, several runs per delivery round, so what runs
/// around the engine counts as much as the engine. The statement is prepared once per connection. On
/// SQLite's fast path its other arguments are bound once per use through GRDB, and each group's ids are
/// bound, and its rows stepped and read, through SQLite's C API (GRDB's arguments and row cursors allocate
/// more per run than the run costs); the statement is read-only and runs inside GRDB's read transaction:
/// GRDB's per-step bookkeeping (transaction observers, region recording) is for statements that write or
/// are observed. Elsewhere each group runs through the engine with all its arguments. The ids come from a
/// VALUES co-routine, each one a seek by id: `asset.id IN (?, …)` would build a temporary b-tree of the list
/// on every run in SQLite, which costs more than the seeks. The ids are cast so that PostgreSQL knows their
/// type whatever is bound (NULL among them).
struct IDGroupStatement {
    /// The ids bound to one run. A smaller group is padded with NULL, which joins no row and costs no seek.
    static var arity: Int { 16 }

    /// The SQL of a statement, and the arguments of its columns (after the group's ids): build it once and
    /// keep it (``query(columns:arguments:)``).
    struct Query: Sendable {
        let sql: String
        /// The arguments after the ids.
        let arguments: StatementArguments
        /// Every argument, the ids' as NULL: what SQLite's fast path binds once.
        let paddedArguments: StatementArguments
    }

    private let db: any SQLConnection
    private let query: Query
    /// The prepared statement, on SQLite's fast path.
    private let statement: Statement?

    private static let values = Array(repeating: "(CAST(? AS BIGINT))", count: arity).joined(separator: ",")
    private static let padding = StatementArguments(Array(repeating: DatabaseValue.null, count: arity))

    /// The statement's SQL and arguments for `SELECT columns` over the group's assets, `columns` binding
    /// `arguments`.
    static func query(columns: String, arguments: StatementArguments = StatementArguments()) -> Query {
        Query(
            sql: "WITH ids(id) AS (VALUES \(values)) SELECT \(columns) FROM ids CROSS JOIN asset WHERE asset.id = ids.id",
            arguments: arguments, paddedArguments: padding + arguments)
    }

    /// A statement of ``query(columns:arguments:)`` on `db`. On SQLite's fast path it is prepared (or taken
    /// from the connection's cache) and its arguments bound.
    init(_ db: any SQLConnection, query: Query) throws {
        self.db = db
        self.query = query
        guard let sqlite = db.sqliteDatabase else {
            statement = nil
            return
        }
        let statement = try sqlite.cachedStatement(sql: query.sql)
        precondition(statement.isReadonly, "an id group statement only reads")
        // GRDB binds the arguments (the ids' as NULL); the ids are rebound for each group, the rest stays bound.
        // A statement that already has these arguments (the usual case, round after round) keeps them.
        if statement.arguments != query.paddedArguments { try statement.setArguments(query.paddedArguments) }
        self.statement = statement
    }

    /// Runs the statement for `ids`, ``arity`` at a time, and calls `body` on each row: read its columns during
    /// the call.
    func forEachRow(ids: some Collection<Int64>, _ body: (any SQLColumns) throws -> Void) throws {
        guard let statement else { return try forEachRowOfEngine(ids: ids, body) }
        let sqlite = statement.sqliteStatement
        defer { sqlite3_reset(sqlite) }
        var remaining = ids[...]
        while !remaining.isEmpty {
            // Bindings can only change on a reset statement.
            let code = sqlite3_reset(sqlite)
            guard code == SQLITE_OK else { throw statement.sqliteError(code) }
            var parameter: Int32 = 1
            for id in remaining.prefix(Self.arity) {
                sqlite3_bind_int64(sqlite, parameter, id)
                parameter += 1
            }
            while parameter <= Int32(Self.arity) {
                sqlite3_bind_null(sqlite, parameter)
                parameter += 1
            }
            remaining = remaining.dropFirst(Self.arity)
            try RawQuery.step(statement) { row in try body(SQLiteColumns(statement: row)) }
        }
    }

    /// ``forEachRow(ids:_:)`` through the engine: each group with all its arguments.
    private func forEachRowOfEngine(ids: some Collection<Int64>, _ body: (any SQLColumns) throws -> Void) throws {
        var remaining = ids[...]
        while !remaining.isEmpty {
            var group = remaining.prefix(Self.arity).map(\.databaseValue)
            group += Array(repeating: DatabaseValue.null, count: Self.arity - group.count)
            remaining = remaining.dropFirst(Self.arity)
            try db.forEachRow(sql: query.sql, arguments: StatementArguments(group) + query.arguments, cached: true) { columns in
                try body(columns)
                return true
            }
        }
    }
}
