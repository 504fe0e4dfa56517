public import GRDB
import GRDBSQLite

extension Statement {
    /// Steps a bound read-only statement through SQLite's C API, calling `body` on each row (its columns read
    /// in place) until the rows end or `body` returns false. No cursor, no row object: what a read that
    /// visits many rows, or a small read run every delivery round, can afford.
    ///
    /// Only for read-only statements whose arguments GRDB bound (`setArguments`) or that are only ever run
    /// this way: GRDB keeps no record of what runs here.
    ///
    /// - Throws: a `DatabaseError` when SQLite fails; what `body` throws.
    public func stepRows(_ body: (SQLiteColumns) throws -> Bool) throws {
        let columns = SQLiteColumns(statement: sqliteStatement)
        while true {
            let code = sqlite3_step(sqliteStatement)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else { throw sqliteError(code) }
            if try !body(columns) { return }
        }
    }

    /// The error SQLite reports for `code`, on the statement's connection.
    public func sqliteError(_ code: Int32) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: String(cString: sqlite3_errmsg(sqlite3_db_handle(sqliteStatement))), sql: sql)
    }
}
