/// The keys that predicates and sort descriptors may use on objects of type `Object`.
///
/// A schema is declared once per object type by the library, e.g. one for assets and one for collections,
/// and passed to parsing, SQL compilation and in-memory evaluation.
public struct PredicateSchema<Object>: Sendable {
    /// The keys, in declaration order.
    public let keys: [PredicateKey<Object>]
    private let indexByName: [String: Int]

    /// Creates a schema from its keys.
    ///
    /// - Precondition: Key names are unique, are identifiers (a letter or `_`, then letters, digits, `_`
    ///   or `.`) and are not keywords of the predicate language (`AND`, `OR`, `NOT`, `IN`, `BETWEEN`,
    ///   `CONTAINS`, `BEGINSWITH`, `ENDSWITH`, `LIKE`, `TRUEPREDICATE`, `FALSEPREDICATE`, `YES`, `NO`,
    ///   `TRUE`, `FALSE`, `NIL`, `NULL`, in any case). A schema is static program data, so a violation
    ///   is a programming error and traps.
    /// - Complexity: O(n) in the number of keys.
    public init(_ keys: [PredicateKey<Object>]) {
        var index: [String: Int] = [:]
        for (offset, key) in keys.enumerated() {
            precondition(Lexer.isIdentifier(key.name), "PredicateSchema: key name '\(key.name)' is not an identifier")
            precondition(
                Keyword(rawValue: key.name.lowercased()) == nil,
                "PredicateSchema: key name '\(key.name)' is a keyword of the predicate language")
            precondition(index[key.name] == nil, "PredicateSchema: duplicate key '\(key.name)'")
            index[key.name] = offset
        }
        self.keys = keys
        self.indexByName = index
    }

    /// The key with this name (case-sensitive), or nil.
    ///
    /// - Complexity: O(1) on average.
    public func key(named name: String) -> PredicateKey<Object>? {
        indexByName[name].map { keys[$0] }
    }

    /// The names of the keys, in declaration order (as listed in ``PredicateError`` messages).
    public var keyNames: [String] { keys.map(\.name) }

    /// Looks up a key, or throws ``PredicateError/Kind/unknownKey(name:validKeys:)``.
    func resolve(_ name: String, position: Int?) throws(PredicateError) -> PredicateKey<Object> {
        guard let key = key(named: name) else {
            throw PredicateError.unknownKey(name, validKeys: keyNames, position: position)
        }
        return key
    }
}
