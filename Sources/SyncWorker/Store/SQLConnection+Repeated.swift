import GRDB
import LibraryStorage

extension SQLConnection {
    /// Runs a write the sync worker runs once per file or directory of a pass: on SQLite through GRDB's
    /// statement cache (prepared once per connection, the fast path), elsewhere through
    /// ``SQLConnection/execute(sql:arguments:)``.
    ///
    /// (PhotoLibrary's writer has the same helper, internal to it: the two could share one in LibraryStorage.)
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
