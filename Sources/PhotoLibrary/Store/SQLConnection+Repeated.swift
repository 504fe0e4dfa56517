import GRDB
import LibraryStorage

extension SQLConnection {
    /// The rows of a query the writer runs again and again, decoded as records: on SQLite straight from a
    /// statement prepared once per connection, through GRDB's record cursor (the fast path: no copy of each
    /// row), elsewhere through ``SQLConnection/fetchRecords(_:sql:arguments:cached:)``.
    ///
    /// - Throws: the engine's error, or what the record's `init(row:)` throws.
    func fetchRepeatedRecords<Record: FetchableRecord>(
        _ type: Record.Type, sql: String, arguments: StatementArguments
    ) throws -> [Record] {
        if let sqlite = sqliteDatabase { return try Record.fetchAll(sqlite.cachedStatement(sql: sql), arguments: arguments) }
        return try fetchRecords(type, sql: sql, arguments: arguments, cached: true)
    }

    /// The first row of a query the writer runs again and again, decoded as a record (see
    /// ``fetchRepeatedRecords(_:sql:arguments:)``); nil when it has none.
    ///
    /// - Throws: the engine's error, or what the record's `init(row:)` throws.
    func fetchRepeatedRecord<Record: FetchableRecord>(
        _ type: Record.Type, sql: String, arguments: StatementArguments
    ) throws -> Record? {
        if let sqlite = sqliteDatabase { return try Record.fetchOne(sqlite.cachedStatement(sql: sql), arguments: arguments) }
        return try fetchRecords(type, sql: sql, arguments: arguments, cached: true).first
    }

    /// The first column of the first row of a query the writer runs again and again; nil when there is no row
    /// or the value is NULL. On SQLite read straight from a statement prepared once per connection (the fast
    /// path), elsewhere through ``SQLConnection/fetchValue(_:sql:arguments:cached:)``.
    ///
    /// - Throws: the engine's error, or GRDB's decoding error.
    func fetchRepeatedValue<Value: DatabaseValueConvertible & StatementColumnConvertible>(
        _ type: Value.Type, sql: String, arguments: StatementArguments
    ) throws -> Value? {
        if let sqlite = sqliteDatabase { return try Value.fetchOne(sqlite.cachedStatement(sql: sql), arguments: arguments) }
        return try fetchValue(type, sql: sql, arguments: arguments, cached: true)
    }
}
