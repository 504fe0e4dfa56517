import GRDB
import GRDBSQLite

/// A query over the assets of a group of ids, run for any number of ids a group of ``arity`` at a time:
/// `WITH ids(id) AS (VALUES (?), …) SELECT … FROM ids CROSS JOIN asset ON asset.id = ids.id`.
///
/// The statement is prepared once per connection and its other arguments are bound once per use; each
/// group's ids are bound through SQLite's C API (building GRDB arguments for every group cost more than
/// running the statement: the incremental path's probes are a few rows each). The ids come from a VALUES
/// co-routine, each one a seek by row id: `asset.id IN (?, …)` would build a temporary b-tree of the list on
/// every run, which costs more than the seeks.
struct IDGroupStatement {
    /// The ids bound to one run. A smaller group is padded with NULL, which joins no row and costs no seek.
    static var arity: Int { 16 }

    private let statement: Statement

    private static let values = Array(repeating: "(?)", count: arity).joined(separator: ",")
    private static let padding = StatementArguments(Array(repeating: DatabaseValue.null, count: arity))

    /// Prepares (or takes from the connection's cache) `SELECT columns` over the group's assets, `columns`
    /// binding `arguments`, and binds them.
    init(_ db: Database, columns: String, arguments: StatementArguments = StatementArguments()) throws {
        statement = try db.cachedStatement(sql: """
            WITH ids(id) AS (VALUES \(Self.values)) SELECT \(columns) FROM ids CROSS JOIN asset ON asset.id = ids.id
            """)
        // GRDB validates and binds every argument; later groups rebind the ids only, and GRDB's cursors keep
        // the bindings of a statement whose arguments it has set.
        try statement.setArguments(Self.padding + arguments)
    }

    /// Runs the statement for `ids`, ``arity`` at a time, and calls `body` with each row (valid during the
    /// call only).
    func forEachRow(ids: some Collection<Int64>, _ body: (Row) throws -> Void) throws {
        let sqlite = statement.sqliteStatement
        var remaining = ids[...]
        while !remaining.isEmpty {
            // Bindings can only change on a reset statement.
            let code = sqlite3_reset(sqlite)
            guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
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
            let rows = try Row.fetchCursor(statement)
            while let row = try rows.next() { try body(row) }
        }
    }
}
