public import Foundation
public import GRDB

/// One key of a fetch's sort order, ascending or descending, like `NSSortDescriptor`.
///
/// Values sort as SQLite sorts them (see ``PredicateValue``): nil first when ascending and last when
/// descending, numbers numerically, bools as 0/1, dates by seconds, strings by UTF-8 bytes.
///
/// The text form of a list is comma-separated keys, each with an optional leading `-` for descending (or
/// `+` for ascending): `creationDate,-pixelWidth`.
public struct SortDescriptor: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The key's name.
    public var key: String
    /// Whether the order is ascending.
    public var ascending: Bool

    /// Creates a sort descriptor on a key name.
    public init(key: String, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }

    /// Creates a sort descriptor on a typed key.
    public init<Object, Value>(_ key: PredicateKeyPath<Object, Value>, ascending: Bool = true) {
        self.init(key: key.name, ascending: ascending)
    }

    /// `key` when ascending, `-key` when descending.
    public var description: String { ascending ? key : "-" + key }

    /// The descriptor in the other direction.
    public var reversed: SortDescriptor { SortDescriptor(key: key, ascending: !ascending) }

    /// Parses a comma-separated list of sort keys, e.g. `"creationDate,-pixelWidth"` (a leading `-` means
    /// descending, `+` ascending). Whitespace around keys is ignored; an empty or blank text is an empty
    /// list.
    ///
    /// - Parameters:
    ///   - text: The list.
    ///   - schema: The keys that may be used.
    /// - Throws: ``PredicateError`` with the position of the first problem: an unknown key (listing the
    ///   valid keys), a missing key, a stray character.
    /// - Complexity: O(n) in the length of the text.
    public static func parseList<Object>(
        _ text: String, schema: PredicateSchema<Object>
    ) throws(PredicateError) -> [SortDescriptor] {
        var lexer = Lexer(text)
        var token = try lexer.next()
        var descriptors: [SortDescriptor] = []
        if token.kind == .end { return [] }
        while true {
            var ascending = true
            if token.is(Symbol.minus) || token.is(Symbol.plus) {
                ascending = token.is(Symbol.plus)
                token = try lexer.next()
            }
            let name: String
            switch token.kind {
            case .identifier(let word): name = word
            case .keyword: name = token.text
            case .end:
                throw PredicateError(
                    .unexpectedEnd, position: lexer.position(token.start),
                    message: "unexpected end of text; expected a sort key")
            default:
                throw PredicateError(
                    .unexpectedToken(token.text), position: lexer.position(token.start),
                    message: "unexpected '\(token.text)'; expected a sort key, optionally preceded by '-'")
            }
            _ = try schema.resolve(name, position: lexer.position(token.start))
            descriptors.append(SortDescriptor(key: name, ascending: ascending))
            token = try lexer.next()
            if token.kind == .end { return descriptors }
            guard token.is(Symbol.comma) else {
                throw PredicateError(
                    .unexpectedToken(token.text), position: lexer.position(token.start),
                    message: "unexpected '\(token.text)'; expected ',' or the end of the sort list")
            }
            token = try lexer.next()
        }
    }

    /// The text form of a list: descriptors joined by commas, e.g. `creationDate,-pixelWidth`.
    public static func listDescription(_ descriptors: [SortDescriptor]) -> String {
        descriptors.map(\.description).joined(separator: ",")
    }
}

/// A list of sort descriptors checked against a schema: an SQL `ORDER BY` list and an in-memory comparator
/// that order objects identically.
///
/// Neither breaks ties: the caller appends its own final key, such as a unique id, to make every order
/// deterministic (``sql(then:)`` takes it as a parameter).
public struct CompiledSortOrder<Object>: Sendable {
    /// The descriptors.
    public let descriptors: [SortDescriptor]
    let keys: [(key: PredicateKey<Object>, ascending: Bool)]

    /// Checks sort descriptors against a schema.
    ///
    /// - Throws: ``PredicateError`` (without a position) for an unknown key.
    /// - Complexity: O(n) in the number of descriptors.
    public init(_ descriptors: [SortDescriptor], schema: PredicateSchema<Object>) throws(PredicateError) {
        var keys: [(key: PredicateKey<Object>, ascending: Bool)] = []
        for descriptor in descriptors {
            keys.append((try schema.resolve(descriptor.key, position: nil), descriptor.ascending))
        }
        self.descriptors = descriptors
        self.keys = keys
    }

    /// The ordering terms for an `ORDER BY` clause, comma-separated, e.g.
    /// `asset.creationDate ASC, asset.pixelWidth DESC`, followed by `tieBreaker` when given.
    ///
    /// ```swift
    /// let order = try CompiledSortOrder(sorts, schema: assetSchema).sql(then: "asset.id")
    /// let sql: SQL = "SELECT asset.id FROM asset WHERE \(condition) ORDER BY \(order)"
    /// ```
    ///
    /// Empty when there are no descriptors and no tie-breaker; string keys sort with `COLLATE BINARY`.
    ///
    /// - Parameter tieBreaker: A final ordering term, e.g. `"asset.id"` or `"asset.id DESC"`.
    public func sql(then tieBreaker: SQL? = nil) -> SQL {
        var terms: [SQL] = keys.map { key, ascending in
            "\(sql: key.sqlComparable) \(sql: ascending ? "ASC" : "DESC")"
        }
        if let tieBreaker { terms.append(tieBreaker) }
        return terms.joined(separator: ", ")
    }

    /// Compares two objects in this order; `.orderedSame` when every key ties.
    ///
    /// - Complexity: O(k) in the number of descriptors (plus the length of compared strings).
    public func compare(_ lhs: Object, _ rhs: Object) -> ComparisonResult {
        for (key, ascending) in keys {
            let order = PredicateValue.order(key.value(lhs), key.value(rhs))
            if order != 0 {
                return (order < 0) == ascending ? .orderedAscending : .orderedDescending
            }
        }
        return .orderedSame
    }

    /// Whether `lhs` sorts strictly before `rhs`; suitable for `sort(by:)`.
    public func areInIncreasingOrder(_ lhs: Object, _ rhs: Object) -> Bool {
        compare(lhs, rhs) == .orderedAscending
    }
}
