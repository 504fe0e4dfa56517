/// The type of a key in a ``PredicateSchema``: what literals it accepts and which operators apply.
///
/// | type | SQL storage | literals in text | operators |
/// | --- | --- | --- | --- |
/// | `bool` | INTEGER 0/1 | `true`/`false`/`YES`/`NO`, `0`/`1` | `==`, `!=`, `IN`, bare key |
/// | `integer` | INTEGER | integers, doubles (compared exactly) | comparisons, `IN`, `BETWEEN` |
/// | `double` | REAL | numbers | comparisons, `IN`, `BETWEEN` |
/// | `date` | REAL seconds since 1970 | date strings, numbers (seconds since 1970) | comparisons, `IN`, `BETWEEN` |
/// | `string` | TEXT | strings | comparisons, `IN`, `BETWEEN`, `CONTAINS`, `BEGINSWITH`, `ENDSWITH`, `LIKE` |
/// | `enumeration` | INTEGER raw value | case names (bare or quoted), integers | comparisons, `IN`, `BETWEEN` |
/// | `optionSet` | INTEGER bit mask | flag names (bare or quoted), integers | comparisons, `IN`, `BETWEEN`, `CONTAINS` flag |
///
/// Every key also accepts `== nil` and `!= nil`.
public enum PredicateKeyType: Sendable, Hashable, CustomStringConvertible {
    /// A Boolean.
    case bool
    /// A 64-bit integer.
    case integer
    /// A double.
    case double
    /// A date.
    case date
    /// A string.
    case string
    /// An enumeration stored as its integer raw value and written by case name (`mediaType == image`).
    case enumeration(cases: [(name: String, rawValue: Int)])
    /// An option set stored as an integer bit mask; `key CONTAINS flag` tests that the flag's bits are set
    /// (`mediaSubtypes CONTAINS photoPanorama`).
    case optionSet(flags: [(name: String, rawValue: Int)])

    /// The type's name in error messages: `bool`, `integer`, `double`, `date`, `string`, `enumeration`,
    /// `option set`.
    public var description: String {
        switch self {
        case .bool: "bool"
        case .integer: "integer"
        case .double: "double"
        case .date: "date"
        case .string: "string"
        case .enumeration: "enumeration"
        case .optionSet: "option set"
        }
    }

    /// Whether two types are the same, with the same names and raw values in the same order.
    public static func == (lhs: PredicateKeyType, rhs: PredicateKeyType) -> Bool {
        switch (lhs, rhs) {
        case (.bool, .bool), (.integer, .integer), (.double, .double), (.date, .date), (.string, .string):
            true
        case (.enumeration(let a), .enumeration(let b)), (.optionSet(let a), .optionSet(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.name == $1.name && $0.rawValue == $1.rawValue }
        default:
            false
        }
    }

    /// Hashes the type and its named values.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(description)
        for (name, rawValue) in namedValues {
            hasher.combine(name)
            hasher.combine(rawValue)
        }
    }

    /// The named values of an enumeration or option set; empty for other types.
    var namedValues: [(name: String, rawValue: Int)] {
        switch self {
        case .enumeration(let cases): cases
        case .optionSet(let flags): flags
        default: []
        }
    }

    /// Whether values are stored as numbers (everything but strings).
    var isNumeric: Bool {
        if case .string = self { return false }
        return true
    }

    /// Whether `<`, `<=`, `>`, `>=` and `BETWEEN` apply.
    var isOrdered: Bool {
        if case .bool = self { return false }
        return true
    }

    /// The name for an enumeration case or a single option-set flag, if the schema names it.
    func name(for rawValue: Int64) -> String? {
        namedValues.first { Int64($0.rawValue) == rawValue }?.name
    }

    /// The raw value of a named enumeration case or option-set flag.
    func rawValue(named name: String) -> Int64? {
        namedValues.first { $0.name == name }.map { Int64($0.rawValue) }
    }
}
