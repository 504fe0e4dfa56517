/// A key that predicates and sort descriptors can use on objects of type `Object`.
///
/// A key joins the name written in predicates (`creationDate`), its type, the SQL expression it maps to
/// (`asset.creationDate`), and how to read it from an object in memory. The SQL expression is trusted text
/// from the schema, never from a user: it is inserted into SQL as is, while user values always become
/// statement arguments.
///
/// The SQL expression must produce what ``PredicateValue`` describes for the key's type: integers 0/1 for
/// bools, integers for integers, enumerations and option sets, REAL seconds since 1970 for dates, TEXT for
/// strings. The accessor must return the same value the SQL expression produces for the same object
/// (for a date, a `Date` whose `timeIntervalSince1970` is the stored number), or `.null`.
public struct PredicateKey<Object>: Sendable {
    /// The name used in predicates and sort descriptors, e.g. `creationDate`.
    public let name: String
    /// The key's type.
    public let type: PredicateKeyType
    /// Whether the key can be NULL. A non-optional key promises that its SQL expression is never NULL,
    /// which lets negations compile to simpler, index-friendly SQL.
    public let isOptional: Bool
    /// The SQL expression the key maps to, e.g. `asset.creationDate`. Trusted text from the schema.
    public let sqlExpression: String
    /// Reads the key's value from an object in memory.
    public let value: @Sendable (Object) -> PredicateValue

    /// Creates a key from its parts.
    ///
    /// - Parameters:
    ///   - name: The name used in predicates. It must be an identifier (a letter or `_`, then letters,
    ///     digits, `_` or `.`) and not a keyword of the predicate language (`AND`, `IN`, `nil`, …);
    ///     ``PredicateSchema/init(_:)`` checks this.
    ///   - type: The key's type.
    ///   - isOptional: Whether the key can be NULL.
    ///   - sql: The SQL expression the key maps to (trusted; never user input).
    ///   - value: Reads the key's value from an object.
    public init(
        name: String,
        type: PredicateKeyType,
        isOptional: Bool,
        sql: String,
        value: @escaping @Sendable (Object) -> PredicateValue
    ) {
        self.name = name
        self.type = type
        self.isOptional = isOptional
        self.sqlExpression = sql
        self.value = value
    }

    /// Creates a key for a typed key path, taking its name, type and optionality from the key path.
    ///
    /// ```swift
    /// PredicateKey(Asset.creationDate, sql: "asset.creationDate") { $0.creationDate }
    /// ```
    ///
    /// - Parameters:
    ///   - key: The typed key path, which gives the name; `Value` gives the type and optionality.
    ///   - sql: The SQL expression the key maps to (trusted; never user input).
    ///   - value: Reads the key's typed value from an object.
    public init<Value: PredicateValueConvertible>(
        _ key: PredicateKeyPath<Object, Value>,
        sql: String,
        value: @escaping @Sendable (Object) -> Value
    ) {
        self.init(
            name: key.name,
            type: Value.predicateKeyType,
            isOptional: Value.isOptionalPredicateValue,
            sql: sql,
            value: { value($0).predicateValue }
        )
    }

    /// The SQL expression, parenthesised unless it is a plain (possibly qualified) column name.
    var sqlOperand: String {
        let isPlainName =
            !sqlExpression.isEmpty
            && sqlExpression.unicodeScalars.allSatisfy {
                ($0 >= "a" && $0 <= "z") || ($0 >= "A" && $0 <= "Z") || ($0 >= "0" && $0 <= "9") || $0 == "_"
                    || $0 == "."
            }
        return isPlainName ? sqlExpression : "(\(sqlExpression))"
    }

    /// The operand for comparisons and ordering: strings get an explicit `COLLATE BINARY`, so that a
    /// column declared with another collation still compares by UTF-8 bytes, like the in-memory evaluation.
    var sqlComparable: String {
        if case .string = type { return sqlOperand + " COLLATE BINARY" }
        return sqlOperand
    }
}
