public import GRDB

extension SQLConnection {
    /// Runs a statement a writer runs again and again (per asset, per file, per album), discarding any rows:
    /// on SQLite prepared once per connection (GRDB's statement cache, the fast path), elsewhere through
    /// ``SQLConnection/execute(sql:arguments:)``.
    ///
    /// - Throws: the engine's error.
    public func executeRepeated(sql: String, arguments: StatementArguments) throws {
        if let sqlite = sqliteDatabase {
            try sqlite.cachedStatement(sql: sql).execute(arguments: arguments)
        } else {
            try execute(sql: sql, arguments: arguments)
        }
    }
}
