public import Foundation
public import GRDB
import GRDBSQLite

/// The columns of the row a SQLite statement is on, read through SQLite's C API without copies. Public for
/// the fast paths that step statements themselves and hand their rows to readers written for every engine.
public struct SQLiteColumns: SQLColumns {
    let statement: SQLiteStatement

    /// The columns of the row `statement` is on (stepped to `SQLITE_ROW`).
    public init(statement: SQLiteStatement) {
        self.statement = statement
    }

    public var count: Int { Int(sqlite3_column_count(statement)) }

    public func name(_ column: Int) -> String { String(cString: sqlite3_column_name(statement, Int32(column))) }

    public func isNull(_ column: Int) -> Bool { sqlite3_column_type(statement, Int32(column)) == SQLITE_NULL }

    public func int64(_ column: Int) -> Int64 { sqlite3_column_int64(statement, Int32(column)) }

    public func double(_ column: Int) -> Double { sqlite3_column_double(statement, Int32(column)) }

    public func text(_ column: Int) -> String {
        // sqlite3_column_text before sqlite3_column_bytes: the count is that of the text form.
        guard let text = sqlite3_column_text(statement, Int32(column)) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    public func blob(_ column: Int) -> Data? {
        // sqlite3_column_blob before sqlite3_column_bytes; NULL and a zero-length blob have no pointer.
        guard !isNull(column) else { return nil }
        guard let bytes = sqlite3_column_blob(statement, Int32(column)) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(statement, Int32(column))))
    }

    public func value(_ column: Int) -> DatabaseValue { DatabaseValue(sqliteStatement: statement, index: Int32(column)) }
}
