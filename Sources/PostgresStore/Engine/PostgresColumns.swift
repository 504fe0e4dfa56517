import Foundation
import GRDB
import LibraryStorage
import PostgresNIO

/// The columns of one PostgreSQL result row, converted to GRDB's storage classes (``SQLColumns``).
///
/// Reading a value in another class than its own converts it as SQLite would: an integer read as text is
/// its decimal form, text read as an integer is its parsed value (0 when it isn't a number).
struct PostgresColumns: SQLColumns {
    let names: [String]
    let values: [DatabaseValue]

    var count: Int { values.count }

    func name(_ column: Int) -> String { names[column] }

    func isNull(_ column: Int) -> Bool { values[column].isNull }

    func int64(_ column: Int) -> Int64 {
        switch values[column].storage {
        case .null, .blob: 0
        case .int64(let value): value
        case .double(let value): value.isFinite ? Int64(exactly: value.rounded(.towardZero)) ?? (value < 0 ? .min : .max) : 0
        case .string(let value): Int64(value) ?? Double(value).map { Int64(exactly: $0.rounded(.towardZero)) ?? 0 } ?? 0
        }
    }

    func double(_ column: Int) -> Double {
        switch values[column].storage {
        case .null, .blob: 0
        case .int64(let value): Double(value)
        case .double(let value): value
        case .string(let value): Double(value) ?? 0
        }
    }

    func text(_ column: Int) -> String {
        switch values[column].storage {
        case .null: ""
        case .int64(let value): String(value)
        case .double(let value): String(value)
        case .string(let value): value
        case .blob(let value): String(decoding: value, as: UTF8.self)
        }
    }

    func blob(_ column: Int) -> Data? {
        switch values[column].storage {
        case .null: nil
        case .blob(let value): value
        case .string(let value): Data(value.utf8)
        case .int64, .double: Data(text(column).utf8)
        }
    }

    func value(_ column: Int) -> DatabaseValue { values[column] }
}

extension PostgresColumns {
    /// The values of a result row: SMALLINT, INTEGER and BIGINT as `Int64`; REAL and DOUBLE PRECISION as
    /// `Double`; NUMERIC as `Int64` when integral and in range, else `Double`; TEXT, VARCHAR, CHAR and NAME as
    /// `String`; BYTEA as `Data`; BOOLEAN as 0 or 1; NULL as NULL.
    ///
    /// - Throws: ``PostgresStoreError/invalidStatement(sql:reason:)`` for a column of another type (cast it
    ///   in the SQL).
    static func values(of row: PostgresRow, sql: String) throws -> [DatabaseValue] {
        var values: [DatabaseValue] = []
        values.reserveCapacity(row.count)
        for cell in row { values.append(try value(of: cell, sql: sql)) }
        return values
    }

    private static func value(of cell: PostgresCell, sql: String) throws -> DatabaseValue {
        guard cell.bytes != nil else { return .null }
        do {
            switch cell.dataType {
            case .int2, .int4, .int8: return try cell.decode(Int64.self).databaseValue
            case .float4, .float8: return try cell.decode(Double.self).databaseValue
            case .numeric:
                let text = "\(try cell.decode(Decimal.self))"
                return Int64(text)?.databaseValue ?? (Double(text) ?? .nan).databaseValue
            case .text, .varchar, .bpchar, .name: return try cell.decode(String.self).databaseValue
            case .bytea: return Data(try cell.decode(ByteBuffer.self).readableBytesView).databaseValue
            case .bool: return (try cell.decode(Bool.self) ? 1 : 0 as Int64).databaseValue
            default:
                throw PostgresStoreError.invalidStatement(
                    sql: sql,
                    reason: "column '\(cell.columnName)' has type \(cell.dataType), which the storage boundary doesn't read: cast it in the SQL")
            }
        } catch let error as PostgresStoreError {
            throw error
        } catch {
            throw PostgresStoreError.invalidStatement(
                sql: sql, reason: "column '\(cell.columnName)' of type \(cell.dataType) could not be read: \(error)")
        }
    }
}
