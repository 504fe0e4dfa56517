public import Foundation

/// A value in a predicate: a literal written in a predicate, or the value of a key read from an object.
///
/// Values are compared the way SQLite compares them, so that a predicate evaluated in memory agrees with
/// the same predicate compiled to SQL:
/// - `null` is smaller than every other value; a comparison with `null` (other than `== nil` /
///   `!= nil`) is false.
/// - Booleans (as 0 and 1), integers, doubles and dates (as seconds since 1970) are numbers and compare
///   numerically; an integer and a double compare exactly, like SQLite does.
/// - Strings compare by their UTF-8 bytes (SQLite's `BINARY` collation); they are greater than numbers.
/// - A `double` that is NaN behaves as `null` (SQLite stores NaN as NULL).
///
/// Equality (`==`) and hashing follow the same rules within each case: two strings are equal only when their
/// UTF-8 bytes are (no Unicode normalisation), two dates are equal when their `timeIntervalSince1970` are
/// (the number stored in SQL), and all NaNs are equal to each other. Values of different cases are never
/// equal (`.integer(1) != .double(1)`), even though they compare as the same number.
public enum PredicateValue: Sendable, Hashable, Codable, CustomStringConvertible {
    /// No value: SQL `NULL`, Swift `nil`.
    case null
    /// A Boolean, stored in SQL as the integer 0 or 1.
    case bool(Bool)
    /// A 64-bit integer.
    case integer(Int64)
    /// A double-precision number.
    case double(Double)
    /// A date, stored in SQL as a REAL number of seconds since 1970-01-01T00:00:00Z.
    case date(Date)
    /// A string, compared by its UTF-8 bytes.
    case string(String)

    /// The value in the predicate text format: `nil`, `true`, `42`, `3.5`, `"2024-01-01T10:30:00Z"`,
    /// `"text"` (double-quoted with backslash escapes).
    ///
    /// Dates print in UTC with as many fractional digits as are needed to parse back to the same
    /// `timeIntervalSince1970`. Infinite doubles print as `inf` / `-inf`, which do not parse: the text
    /// format has no literal for them.
    public var description: String {
        switch self {
        case .null: "nil"
        case .bool(let value): value ? "true" : "false"
        case .integer(let value): String(value)
        case .double(let value): Self.formatDouble(value)
        case .date(let value): DateLiteral.format(value)
        case .string(let value): Self.quote(value)
        }
    }

    /// Whether two values are the same case with the same value (see the type's notes on strings, dates, NaN).
    ///
    /// - Complexity: O(n) in the length of strings.
    public static func == (lhs: PredicateValue, rhs: PredicateValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case (.bool(let a), .bool(let b)): a == b
        case (.integer(let a), .integer(let b)): a == b
        case (.double(let a), .double(let b)): a == b || (a.isNaN && b.isNaN)
        case (.date(let a), .date(let b)): Self.seconds(a) == Self.seconds(b)
        case (.string(let a), .string(let b)): a.utf8.elementsEqual(b.utf8)
        default: false
        }
    }

    /// Hashes the value consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        switch self {
        case .null:
            hasher.combine(0)
        case .bool(let value):
            hasher.combine(1)
            hasher.combine(value)
        case .integer(let value):
            hasher.combine(2)
            hasher.combine(value)
        case .double(let value):
            hasher.combine(3)
            if value.isNaN { hasher.combine(UInt64.max) } else { hasher.combine(value) }
        case .date(let value):
            hasher.combine(4)
            hasher.combine(Self.seconds(value))
        case .string(let value):
            hasher.combine(5)
            hasher.combine(value.utf8.count)
            for byte in value.utf8 { hasher.combine(byte) }
        }
    }

    /// Whether the value is `null`, or a NaN double (which SQLite stores as NULL).
    var isNullLike: Bool {
        switch self {
        case .null: true
        case .double(let value): value.isNaN
        case .date(let value): Self.seconds(value).isNaN
        default: false
        }
    }

    /// The seconds since 1970 that stand for a date in SQL.
    static func seconds(_ date: Date) -> Double {
        date.timeIntervalSince1970
    }

    /// A double in a form the parser reads back exactly (it always has a `.` or an exponent).
    static func formatDouble(_ value: Double) -> String {
        // Swift prints the shortest representation that round-trips: "5.0", "1e-05", "1e+20".
        value.description
    }

    /// A double-quoted string literal with backslash escapes for `"`, `\` and control characters.
    static func quote(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

// MARK: - SQLite-compatible ordering

extension PredicateValue {
    /// A number as SQLite sees it: an integer or a real.
    enum Number {
        case integer(Int64)
        case real(Double)
    }

    /// The class SQLite orders values by: NULL < numbers < text.
    enum Storage {
        case null
        case number(Number)
        case text(String)
    }

    /// How SQLite stores this value (bools as 0/1, dates as seconds, NaN as NULL).
    var storage: Storage {
        switch self {
        case .null: return .null
        case .bool(let value): return .number(.integer(value ? 1 : 0))
        case .integer(let value): return .number(.integer(value))
        case .double(let value): return value.isNaN ? .null : .number(.real(value))
        case .date(let value):
            let seconds = Self.seconds(value)
            return seconds.isNaN ? .null : .number(.real(seconds))
        case .string(let value): return .text(value)
        }
    }

    /// Compares two values in SQLite's order (the order of `ORDER BY` with the BINARY collation).
    ///
    /// - Returns: -1, 0 or 1.
    /// - Complexity: O(1) for numbers, O(n) in the length of the strings.
    static func order(_ lhs: PredicateValue, _ rhs: PredicateValue) -> Int {
        order(lhs.storage, rhs.storage)
    }

    static func order(_ lhs: Storage, _ rhs: Storage) -> Int {
        switch (lhs, rhs) {
        case (.null, .null): return 0
        case (.null, _): return -1
        case (_, .null): return 1
        case (.number(let a), .number(let b)): return compareNumbers(a, b)
        case (.number, .text): return -1
        case (.text, .number): return 1
        case (.text(let a), .text(let b)): return compareUTF8(a, b)
        }
    }

    /// Compares two strings by their UTF-8 bytes, like `memcmp` then length (SQLite's BINARY collation).
    static func compareUTF8(_ a: String, _ b: String) -> Int {
        var left = a.utf8.makeIterator()
        var right = b.utf8.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    static func compareNumbers(_ a: Number, _ b: Number) -> Int {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.real(let x), .real(let y)): return x == y ? 0 : (x < y ? -1 : 1)
        case (.integer(let x), .real(let y)): return compareExactly(x, y)
        case (.real(let x), .integer(let y)): return -compareExactly(y, x)
        }
    }

    /// Compares an integer with a (non-NaN) double exactly, as SQLite's `sqlite3IntFloatCompare` does.
    static func compareExactly(_ integer: Int64, _ real: Double) -> Int {
        // -2^63 and 2^63 are exactly representable as doubles.
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        let floor = real.rounded(.down)
        let truncated = Int64(floor)
        if integer < truncated { return -1 }
        if integer > truncated { return 1 }
        return floor < real ? -1 : 0
    }
}
