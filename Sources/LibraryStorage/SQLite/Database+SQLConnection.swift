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
        // The visitor reads the columns of the row the statement is on in place. Stopping early resets the
        // statement, ending its read.
        defer { sqlite3_reset(statement.sqliteStatement) }
        // A read is stepped through the C API (a fetch visits a row per object); anything else through GRDB's
        // cursor, which keeps its books on what a statement changes.
        guard statement.isReadonly else {
            let cursor = try Row.fetchCursor(statement)
            let columns = SQLiteColumns(statement: statement.sqliteStatement)
            while try cursor.next() != nil {
                if try !body(columns) { return }
            }
            return
        }
        try statement.stepRows(body)
    }

    public func fetchRows(sql: String, arguments: StatementArguments, cached: Bool) throws -> [Row] {
        let statement = cached ? try cachedStatement(sql: sql) : try makeStatement(sql: sql)
        return try Row.fetchAll(statement, arguments: arguments)
    }
}
