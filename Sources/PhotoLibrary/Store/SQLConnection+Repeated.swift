import GRDB
import LibraryStorage

extension SQLConnection {
    /// Runs a statement the writer runs again and again (per asset, per album, per moment), discarding any
    /// rows: on SQLite prepared once per connection (GRDB's statement cache, the fast path), elsewhere through
    /// ``SQLConnection/execute(sql:arguments:)``.
    ///
    /// - Throws: the engine's error.
    func executeRepeated(sql: String, arguments: StatementArguments) throws {
        if let sqlite = sqliteDatabase {
            try sqlite.cachedStatement(sql: sql).execute(arguments: arguments)
        } else {
            try execute(sql: sql, arguments: arguments)
        }
    }
}
