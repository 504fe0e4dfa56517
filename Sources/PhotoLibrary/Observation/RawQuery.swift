import GRDB
import GRDBSQLite
import LibraryStorage

/// A cached read-only statement stepped through SQLite's C API, its integer arguments bound there too: the
/// SQLite fast path of the reads a delivery round makes on any engine (``forEachRow(_:_:_:body:)``).
///
/// A delivery round runs a handful of small queries, and GRDB's work around each execution (argument
/// validation, a cursor and row objects, the bookkeeping of what observed statements read) costs more than
/// most of them cost SQLite. A raw query only reads. GRDB keeps no record of the arguments bound here, so a
/// statement run this way is run only this way: its SQL is used nowhere else (or has no parameters).
struct RawQuery {
    let statement: Statement

    /// Prepares `sql`, or takes it from the connection's statement cache.
    init(_ db: Database, _ sql: String) throws {
        statement = try db.cachedStatement(sql: sql)
        precondition(statement.isReadonly, "a raw query only reads")
    }

    /// Binds `arguments` to parameters 1, 2, … and calls `body` on each row, with the SQLite statement to read
    /// the row's columns from (`sqlite3_column_*`, during the call). The statement is reset when it returns.
    ///
    /// - Throws: a `DatabaseError` when SQLite fails; what `body` throws.
    func forEachRow(_ arguments: Int64..., body: (SQLiteStatement) throws -> Void) throws {
        try forEachRow(arguments, body: body)
    }

    /// The same, with the arguments in an array.
    func forEachRow(_ arguments: [Int64], body: (SQLiteStatement) throws -> Void) throws {
        defer { sqlite3_reset(statement.sqliteStatement) }
        try bind(arguments)
        try Self.step(statement, body)
    }

    /// The first column of the first row as an integer; nil when there is no row or the value is NULL.
    func int64(_ arguments: Int64...) throws -> Int64? {
        let sqlite = statement.sqliteStatement
        defer { sqlite3_reset(sqlite) }
        try bind(arguments)
        let code = sqlite3_step(sqlite)
        if code == SQLITE_DONE { return nil }
        guard code == SQLITE_ROW else { throw statement.sqliteError(code) }
        return sqlite3_column_type(sqlite, 0) == SQLITE_NULL ? nil : sqlite3_column_int64(sqlite, 0)
    }

    /// Resets the statement and binds `arguments` to parameters 1, 2, … (bindings can only change on a reset
    /// statement).
    func bind(_ arguments: [Int64]) throws {
        let sqlite = statement.sqliteStatement
        let code = sqlite3_reset(sqlite)
        guard code == SQLITE_OK else { throw statement.sqliteError(code) }
        for (index, argument) in arguments.enumerated() { sqlite3_bind_int64(sqlite, Int32(index + 1), argument) }
    }

    /// Steps a bound read-only statement to its end, calling `body` on each row.
    static func step(_ statement: Statement, _ body: (SQLiteStatement) throws -> Void) throws {
        try statement.stepRows { _ in
            try body(statement.sqliteStatement)
            return true
        }
    }

    /// Runs a read-only query whose arguments are integers on any engine, and calls `body` on each row, its
    /// columns read by position during the call. On SQLite's fast path the statement is a raw query (bound
    /// and stepped through the C API, its rows read in place); elsewhere it runs through the engine, prepared
    /// once per connection. The SQL is that of both engines, and a raw query's: used nowhere else.
    ///
    /// - Throws: the engine's error; what `body` throws.
    static func forEachRow(_ db: any SQLConnection, _ sql: String, _ arguments: [Int64], body: (any SQLColumns) throws -> Void) throws {
        if let sqlite = db.sqliteDatabase {
            return try RawQuery(sqlite, sql).forEachRow(arguments) { row in try body(SQLiteColumns(statement: row)) }
        }
        try db.forEachRow(sql: sql, arguments: StatementArguments(arguments), cached: true) { columns in
            try body(columns)
            return true
        }
    }
}
