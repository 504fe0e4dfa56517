public import GRDB
public import GRDBSQLite

extension Statement {
    /// Runs the statement once with values that `bind` binds through SQLite's C API: what a write of many
    /// rows can afford where building GRDB's arguments for them would cost as much as the write itself. The
    /// statement still runs through GRDB, which tracks what it writes.
    ///
    /// GRDB runs a statement with the arguments it last set, so the first run sets `parameterCount` of them
    /// (any values) once; each run then resets the statement and binds its own values over them.
    ///
    /// - Parameters:
    ///   - parameterCount: how many parameters the statement has.
    ///   - clearingBindings: clear the bindings after the run, for values bound without a copy (a blob bound
    ///     with no destructor) that must not be read after their buffer is gone.
    ///   - bind: binds every parameter, given SQLite's statement.
    /// - Throws: a `DatabaseError` when SQLite fails to reset or run the statement; what `bind` throws.
    public func executeBinding(
        parameterCount: Int, clearingBindings: Bool = false, _ bind: (OpaquePointer) throws -> Void
    ) throws {
        if arguments.isEmpty {
            try setArguments(StatementArguments(Array(repeating: DatabaseValue.null, count: parameterCount)))
        }
        let code = sqlite3_reset(sqliteStatement)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
        defer { if clearingBindings { sqlite3_clear_bindings(sqliteStatement) } }
        try bind(sqliteStatement)
        try execute()
    }
}

/// `SQLITE_TRANSIENT`: SQLite copies a bound text or blob before the bind call returns.
public let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
