import GRDB
import GRDBSQLite

/// A read-only query over the assets of a group of ids, run for any number of ids a group of ``arity`` at a
/// time: `WITH ids(id) AS (VALUES (?), …) SELECT … FROM ids CROSS JOIN asset ON asset.id = ids.id`.
///
/// It is the incremental path's probe: a few rows per run, several runs per delivery round, so what runs
/// around SQLite counts as much as SQLite. The statement is prepared once per connection; its other
/// arguments are bound once per use through GRDB; each group's ids are bound, and its rows stepped and read,
/// through SQLite's C API (GRDB's arguments and row cursors allocate more per run than the run costs). The
/// statement is read-only and runs inside GRDB's read transaction: GRDB's per-step bookkeeping (transaction
/// observers, region recording) is for statements that write or are observed. The ids come from a VALUES
/// co-routine, each one a seek by row id: `asset.id IN (?, …)` would build a temporary b-tree of the list on
/// every run, which costs more than the seeks.
struct IDGroupStatement {
    /// The ids bound to one run. A smaller group is padded with NULL, which joins no row and costs no seek.
    static var arity: Int { 16 }

    private let statement: Statement

    private static let values = Array(repeating: "(?)", count: arity).joined(separator: ",")
    private static let padding = StatementArguments(Array(repeating: DatabaseValue.null, count: arity))

    /// The statement's SQL and arguments for `SELECT columns` over the group's assets, `columns` binding
    /// `arguments` (the ids' come first, as NULL): build them once and keep them.
    static func query(columns: String, arguments: StatementArguments = StatementArguments()) -> (sql: String, arguments: StatementArguments) {
        ("WITH ids(id) AS (VALUES \(values)) SELECT \(columns) FROM ids CROSS JOIN asset ON asset.id = ids.id", padding + arguments)
    }

    /// Prepares (or takes from the connection's cache) a statement of ``query(columns:arguments:)``, and binds
    /// its arguments.
    init(_ db: Database, query: (sql: String, arguments: StatementArguments)) throws {
        statement = try db.cachedStatement(sql: query.sql)
        precondition(statement.isReadonly, "an id group statement only reads")
        // GRDB binds the arguments (the ids' as NULL); the ids are rebound for each group, the rest stays bound.
        // A statement that already has these arguments (the usual case, round after round) keeps them.
        if statement.arguments != query.arguments { try statement.setArguments(query.arguments) }
    }

    /// Runs the statement for `ids`, ``arity`` at a time, and calls `body` with the SQLite statement on each
    /// row: read its columns with `sqlite3_column_*` during the call.
    func forEachRow(ids: some Collection<Int64>, _ body: (SQLiteStatement) throws -> Void) throws {
        let sqlite = statement.sqliteStatement
        defer { sqlite3_reset(sqlite) }
        var remaining = ids[...]
        while !remaining.isEmpty {
            // Bindings can only change on a reset statement.
            let code = sqlite3_reset(sqlite)
            guard code == SQLITE_OK else { throw RawQuery.error(code, statement) }
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
            try RawQuery.step(statement, body)
        }
    }
}
