public import GRDB
import GRDBSQLite

/// A GRDB connection is the SQLite engine's ``SQLConnection``: the library's SQL runs on it as is, and the
/// fast paths reach it through ``sqliteDatabase``.
extension Database: SQLConnection {
    public var dialect: SQLDialect { .sqlite }

    public var sqliteDatabase: Database? { self }

    public func forEachRow(
        sql: String, arguments: StatementArguments, cached: Bool, _ body: (any SQLColumns) throws -> Bool
    ) throws {
        let statement = cached ? try cachedStatement(sql: sql) : try makeStatement(sql: sql)
        try statement.setArguments(arguments)
        // GRDB's cursor steps the statement (and keeps its own books on what it runs); the visitor reads the
        // columns of the row it is on in place. Stopping early resets the statement, ending its read.
        let cursor = try Row.fetchCursor(statement)
        defer { sqlite3_reset(statement.sqliteStatement) }
        let columns = SQLiteColumns(statement: statement.sqliteStatement)
        while try cursor.next() != nil {
            if try !body(columns) { return }
        }
    }

    public func fetchRows(sql: String, arguments: StatementArguments, cached: Bool) throws -> [Row] {
        let statement = cached ? try cachedStatement(sql: sql) : try makeStatement(sql: sql)
        return try Row.fetchAll(statement, arguments: arguments)
    }
}
