public import GRDB

extension SQLConnection {
    /// Runs statements without arguments, discarding any rows.
    ///
    /// - Throws: the engine's error.
    public func execute(sql: String) throws { try execute(sql: sql, arguments: StatementArguments()) }

    /// The first row of a query; nil when it has none.
    ///
    /// - Throws: the engine's error.
    public func fetchRow(sql: String, arguments: StatementArguments = [], cached: Bool = false) throws -> Row? {
        var first: Row?
        try forEachRow(sql: sql, arguments: arguments, cached: cached) { columns in
            first = columns.row()
            return false
        }
        return first
    }

    /// The first column of the first row, decoded; nil when there is no row or the value is NULL.
    ///
    /// - Throws: the engine's error, or GRDB's decoding error when the value doesn't convert to `Value`.
    public func fetchValue<Value: DatabaseValueConvertible>(
        _ type: Value.Type, sql: String, arguments: StatementArguments = [], cached: Bool = false
    ) throws -> Value? {
        var value = DatabaseValue.null
        try forEachRow(sql: sql, arguments: arguments, cached: cached) { columns in
            value = columns.value(0)
            return false
        }
        return try Value.decodeIfPresent(value)
    }

    /// The first column of every row, decoded; NULLs are skipped.
    ///
    /// - Throws: the engine's error, or GRDB's decoding error.
    public func fetchValues<Value: DatabaseValueConvertible>(
        _ type: Value.Type, sql: String, arguments: StatementArguments = [], cached: Bool = false
    ) throws -> [Value] {
        var values: [Value] = []
        var failure: (any Error)?
        try forEachRow(sql: sql, arguments: arguments, cached: cached) { columns in
            do {
                if let value = try Value.decodeIfPresent(columns.value(0)) { values.append(value) }
                return true
            } catch {
                failure = error
                return false
            }
        }
        if let failure { throw failure }
        return values
    }

    /// Every row of a query, decoded as records.
    ///
    /// - Throws: the engine's error, or what the record's `init(row:)` throws.
    public func fetchRecords<Record: FetchableRecord>(
        _ type: Record.Type, sql: String, arguments: StatementArguments = [], cached: Bool = false
    ) throws -> [Record] {
        try fetchRows(sql: sql, arguments: arguments, cached: cached).map { row in try Record(row: row) }
    }
}

extension DatabaseValueConvertible {
    /// The value, or nil for NULL; a value of another storage class that doesn't convert throws.
    fileprivate static func decodeIfPresent(_ value: DatabaseValue) throws -> Self? {
        if value.isNull { return nil }
        guard let decoded = Self.fromDatabaseValue(value) else {
            throw StorageValueError(value: value, type: "\(Self.self)")
        }
        return decoded
    }
}

/// A value read from the database that doesn't convert to the type asked for.
public struct StorageValueError: Error, CustomStringConvertible {
    /// The value read.
    public let value: DatabaseValue
    /// The type it was asked as.
    public let type: String

    public var description: String { "could not read \(value) as \(type)" }
}
