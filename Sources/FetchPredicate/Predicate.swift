/// A fetch predicate: a Boolean condition on the keys of an object, like `NSPredicate` in PhotoKit's
/// `PHFetchOptions`.
///
/// A predicate is plain data: it names keys and holds literal values, and is checked against a
/// ``PredicateSchema`` when it is parsed (``parse(_:schema:timeZone:)``), compiled to SQL
/// (``sql(_:)``) or evaluated in memory (``evaluate(_:schema:)``). Build one from text, with the typed
/// API (`Asset.mediaType == .image && Asset.isFavorite`), or from these cases.
///
/// ## Semantics
/// Logic is two-valued, like `NSPredicate`: every predicate is true or false for every object, never
/// unknown.
/// - `key == v`, `<`, `<=`, `>`, `>=`, `IN`, `BETWEEN`, the string operators and `CONTAINS` on an option
///   set are false when the key is nil (NULL) or when a literal they need is nil.
/// - `key != v` is exactly `NOT (key == v)`: true when the key is nil and `v` is not (as in `NSPredicate`).
/// - `key == nil` / `key != nil` test for nil. `key IN {…, nil}` is true when the key is nil.
/// - `NOT p` is true exactly when `p` is false: `NOT (creationDate < X)` holds for assets without a date.
/// - A bare Boolean key `isFavorite` means `isFavorite == true`.
/// - Equality and ordering of strings are binary (UTF-8 bytes, no normalisation, like SQLite's BINARY
///   collation); the string operators are described in ``StringOptions``.
///
/// The ``CustomStringConvertible/description`` is the text format, and parses back to an equal predicate
/// (see ``description``).
public indirect enum Predicate: Sendable, Hashable, Codable {
    /// `TRUEPREDICATE` (true) or `FALSEPREDICATE` (false).
    case constant(Bool)
    /// A bare Boolean key, `isFavorite`: the same as `isFavorite == true`.
    case key(String)
    /// `key op value`, e.g. `pixelWidth >= 100`; with a `.null` value, `==` and `!=` test for nil and
    /// the other operators are false.
    case comparison(key: String, op: ComparisonOperator, value: PredicateValue)
    /// `key IN {v1, v2, …}`: the key equals one of the values (or is nil and a value is `.null`).
    case `in`(key: String, values: [PredicateValue])
    /// `key BETWEEN {lower, upper}`: `key >= lower AND key <= upper`.
    case between(key: String, lower: PredicateValue, upper: PredicateValue)
    /// `key CONTAINS[cd] "pattern"` and the other string operators, on a string key.
    case stringMatch(key: String, op: StringOperator, pattern: String, options: StringOptions)
    /// `key CONTAINS flag` on an option-set key: every bit of `mask` is set in the key's value.
    case containsFlags(key: String, mask: Int64)
    /// `NOT p`.
    case not(Predicate)
    /// `p1 AND p2 AND …`; true when empty.
    case and([Predicate])
    /// `p1 OR p2 OR …`; false when empty.
    case or([Predicate])

    /// `TRUEPREDICATE`: matches every object.
    public static var truePredicate: Predicate { .constant(true) }

    /// `FALSEPREDICATE`: matches no object.
    public static var falsePredicate: Predicate { .constant(false) }

    /// The negation, `NOT self`.
    public var negated: Predicate { .not(self) }

    /// The conjunction of predicates; `TRUEPREDICATE` when empty, the predicate itself when there is one.
    public static func all(_ predicates: [Predicate]) -> Predicate {
        predicates.count == 1 ? predicates[0] : .and(predicates)
    }

    /// The disjunction of predicates; `FALSEPREDICATE` when empty, the predicate itself when there is one.
    public static func any(_ predicates: [Predicate]) -> Predicate {
        predicates.count == 1 ? predicates[0] : .or(predicates)
    }

    /// The names of the keys the predicate uses, each once, in order of first use.
    ///
    /// - Complexity: O(n) in the size of the predicate.
    public var keyNames: [String] {
        var seen = Set<String>()
        var names: [String] = []
        func visit(_ predicate: Predicate) {
            switch predicate {
            case .constant: return
            case .not(let operand): visit(operand)
            case .and(let operands), .or(let operands): operands.forEach(visit)
            case .key(let key), .comparison(let key, _, _), .in(let key, _), .between(let key, _, _),
                .stringMatch(let key, _, _, _), .containsFlags(let key, _):
                if seen.insert(key).inserted { names.append(key) }
            }
        }
        visit(self)
        return names
    }
}

/// A comparison operator of ``Predicate/comparison(key:op:value:)``.
public enum ComparisonOperator: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// `==` (also written `=`).
    case equal = "=="
    /// `!=` (also written `<>`).
    case notEqual = "!="
    /// `<`.
    case less = "<"
    /// `<=` (also written `=<`).
    case lessOrEqual = "<="
    /// `>`.
    case greater = ">"
    /// `>=` (also written `=>`).
    case greaterOrEqual = ">="

    /// The operator as written in the text format.
    public var description: String { rawValue }

    /// Whether the operator orders values (`<`, `<=`, `>`, `>=`).
    var isOrdering: Bool { self != .equal && self != .notEqual }

    /// The operator that is true exactly when this one is false, for two non-null values.
    var inverse: ComparisonOperator {
        switch self {
        case .equal: .notEqual
        case .notEqual: .equal
        case .less: .greaterOrEqual
        case .lessOrEqual: .greater
        case .greater: .lessOrEqual
        case .greaterOrEqual: .less
        }
    }

    /// Whether `order` (-1, 0, 1) of left versus right satisfies the operator.
    func holds(forOrder order: Int) -> Bool {
        switch self {
        case .equal: order == 0
        case .notEqual: order != 0
        case .less: order < 0
        case .lessOrEqual: order <= 0
        case .greater: order > 0
        case .greaterOrEqual: order >= 0
        }
    }

    /// The SQL operator for two non-null operands.
    var sql: String {
        switch self {
        case .equal: "="
        case .notEqual: "<>"
        default: rawValue
        }
    }
}

/// A string operator of ``Predicate/stringMatch(key:op:pattern:options:)``.
public enum StringOperator: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// `CONTAINS`: the pattern occurs in the value (an empty pattern always does).
    case contains = "CONTAINS"
    /// `BEGINSWITH`: the value starts with the pattern.
    case beginsWith = "BEGINSWITH"
    /// `ENDSWITH`: the value ends with the pattern.
    case endsWith = "ENDSWITH"
    /// `LIKE`: the whole value matches the pattern, where `*` matches any run of characters (possibly
    /// empty) and `?` matches exactly one Unicode scalar. There is no escape: `*` and `?` are always
    /// wildcards.
    case like = "LIKE"

    /// The keyword in the text format.
    public var description: String { rawValue }
}

/// The options of a string operator: `[c]`, `[d]`, `[cd]`.
///
/// Matching works on Unicode scalars (equivalently, on UTF-8 bytes):
/// - Without options, it is exact and binary: no case folding, no normalisation ("e\u{301}" does not
///   contain "é").
/// - With any option, both the value and the pattern are first brought to a canonical form: canonical
///   decomposition (NFD), then Foundation's `folding(options:locale: nil)` with `.caseInsensitive` for `[c]`
///   (full Unicode case folding: `ß` matches `ss`, `É` matches `é`) and/or `.diacriticInsensitive` for
///   `[d]` (marks removed: `é` matches `e`), then canonical composition (NFC). Canonically equivalent
///   strings then match each other; the locale is never used, so results do not depend on the machine.
///
/// The same Swift code runs in SQL (through ``PredicateFunctions``) and in memory, so both always agree.
/// Strings are cut at their first U+0000, as GRDB passes strings to SQL functions as C strings.
public struct StringOptions: OptionSet, Sendable, Hashable, Codable, CustomStringConvertible {
    /// The option bits: 1 for `[c]`, 2 for `[d]`.
    public let rawValue: Int

    /// Creates options from their bits (1: case-insensitive, 2: diacritic-insensitive).
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// `[c]`: case-insensitive (Unicode case folding).
    public static let caseInsensitive = StringOptions(rawValue: 1)
    /// `[d]`: diacritic-insensitive.
    public static let diacriticInsensitive = StringOptions(rawValue: 2)

    /// `""`, `"[c]"`, `"[d]"` or `"[cd]"`.
    public var description: String {
        let letters = (contains(.caseInsensitive) ? "c" : "") + (contains(.diacriticInsensitive) ? "d" : "")
        return letters.isEmpty ? "" : "[\(letters)]"
    }

    /// The options that the matcher knows, without unknown bits.
    var known: StringOptions { intersection([.caseInsensitive, .diacriticInsensitive]) }
}
