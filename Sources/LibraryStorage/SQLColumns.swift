public import Foundation
public import GRDB

/// The columns of the row a query is on, read by position while a row visitor runs
/// (``SQLConnection/forEachRow(sql:arguments:cached:_:)``).
///
/// A value is read in the type the caller asks for; a NULL reads as 0, 0.0, "" or nil. Positions start at
/// 0. The columns are only valid during the visitor's call: copy what must outlive it.
public protocol SQLColumns {
    /// How many columns the row has.
    var count: Int { get }
    /// The name of a column, as the query spells it (PostgreSQL folds unquoted names to lower case).
    func name(_ column: Int) -> String
    /// Whether the column holds NULL.
    func isNull(_ column: Int) -> Bool
    /// The column as an integer.
    func int64(_ column: Int) -> Int64
    /// The column as a floating-point number.
    func double(_ column: Int) -> Double
    /// The column as text.
    func text(_ column: Int) -> String
    /// The column's bytes; nil for NULL.
    func blob(_ column: Int) -> Data?
    /// The column as a database value, in its own storage class.
    func value(_ column: Int) -> DatabaseValue
}

extension SQLColumns {
    /// The column as an optional integer: nil for NULL.
    public func optionalInt64(_ column: Int) -> Int64? { isNull(column) ? nil : int64(column) }
    /// The column as an optional floating-point number: nil for NULL.
    public func optionalDouble(_ column: Int) -> Double? { isNull(column) ? nil : double(column) }
    /// The column as optional text: nil for NULL.
    public func optionalText(_ column: Int) -> String? { isNull(column) ? nil : text(column) }

    /// A copy of the row, its columns looked up by name (a later column of the same name wins).
    public func row() -> Row {
        var values: [String: DatabaseValue] = [:]
        for column in 0..<count { values[name(column)] = value(column) }
        return Row(values.mapValues { $0 as (any DatabaseValueConvertible)? })
    }
}
