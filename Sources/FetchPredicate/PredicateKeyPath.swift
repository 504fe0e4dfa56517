/// A typed key of objects of type `Object`, whose values have the Swift type `Value`: the building block of
/// the typed predicate API.
///
/// The library declares one per key, and users combine them with operators into a ``Predicate``:
///
/// ```swift
/// typealias AssetKey<Value: PredicateValueConvertible> = PredicateKeyPath<Asset, Value>
/// extension Asset {
///     static let mediaType = AssetKey<AssetMediaType>("mediaType")
///     static let isFavorite = AssetKey<Bool>("isFavorite")
///     static let creationDate = AssetKey<Date?>("creationDate")
/// }
/// let predicate = Asset.mediaType == .image && Asset.isFavorite && Asset.creationDate != nil
/// ```
///
/// A key path carries only its name; the schema (``PredicateKey/init(_:sql:value:)``) gives it its SQL
/// expression and accessor. `Object` is a phantom type that keeps keys of different object types apart.
public struct PredicateKeyPath<Object, Value: PredicateValueConvertible>: Sendable, Hashable,
    CustomStringConvertible
{
    /// The key's name in predicates.
    public let name: String

    /// Creates a typed key with the name used in predicates.
    public init(_ name: String) {
        self.name = name
    }

    /// The key's name.
    public var description: String { name }

    /// `key == value`; with a nil value, `key == nil`.
    public static func == (key: Self, value: Value) -> Predicate {
        .comparison(key: key.name, op: .equal, value: value.predicateValue)
    }

    /// `key != value`, the negation of `key == value` (true when the key is nil and the value is not).
    public static func != (key: Self, value: Value) -> Predicate {
        .comparison(key: key.name, op: .notEqual, value: value.predicateValue)
    }

    /// `key IN {values…}`.
    public func `in`(_ values: some Sequence<Value>) -> Predicate {
        .in(key: name, values: values.map(\.predicateValue))
    }

    /// `key == nil`.
    public var isNil: Predicate { .comparison(key: name, op: .equal, value: .null) }

    /// `key != nil`.
    public var isNotNil: Predicate { .comparison(key: name, op: .notEqual, value: .null) }

    /// An ascending sort descriptor on this key (nil first).
    public var ascending: SortDescriptor { SortDescriptor(key: name, ascending: true) }

    /// A descending sort descriptor on this key (nil last).
    public var descending: SortDescriptor { SortDescriptor(key: name, ascending: false) }
}

extension PredicateKeyPath where Value: PredicateOrderedValue {
    /// `key < value` (false when either is nil).
    public static func < (key: Self, value: Value) -> Predicate {
        .comparison(key: key.name, op: .less, value: value.predicateValue)
    }

    /// `key <= value` (false when either is nil).
    public static func <= (key: Self, value: Value) -> Predicate {
        .comparison(key: key.name, op: .lessOrEqual, value: value.predicateValue)
    }

    /// `key > value` (false when either is nil).
    public static func > (key: Self, value: Value) -> Predicate {
        .comparison(key: key.name, op: .greater, value: value.predicateValue)
    }

    /// `key >= value` (false when either is nil).
    public static func >= (key: Self, value: Value) -> Predicate {
        .comparison(key: key.name, op: .greaterOrEqual, value: value.predicateValue)
    }

    /// `key BETWEEN {lower, upper}`: `key >= lower AND key <= upper`.
    public func between(_ lower: Value, _ upper: Value) -> Predicate {
        .between(key: name, lower: lower.predicateValue, upper: upper.predicateValue)
    }
}

extension PredicateKeyPath where Value: PredicateStringValue {
    /// `key CONTAINS[cd] substring` (see ``StringOptions`` for the matching rules).
    public func contains(
        _ substring: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Predicate {
        match(.contains, substring, caseInsensitive, diacriticInsensitive)
    }

    /// `key BEGINSWITH[cd] prefix`.
    public func beginsWith(
        _ prefix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Predicate {
        match(.beginsWith, prefix, caseInsensitive, diacriticInsensitive)
    }

    /// `key ENDSWITH[cd] suffix`.
    public func endsWith(
        _ suffix: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Predicate {
        match(.endsWith, suffix, caseInsensitive, diacriticInsensitive)
    }

    /// `key LIKE[cd] pattern`, where `*` matches any run of characters and `?` one Unicode scalar.
    public func like(
        _ pattern: String, caseInsensitive: Bool = false, diacriticInsensitive: Bool = false
    ) -> Predicate {
        match(.like, pattern, caseInsensitive, diacriticInsensitive)
    }

    private func match(
        _ op: StringOperator, _ pattern: String, _ caseInsensitive: Bool, _ diacriticInsensitive: Bool
    ) -> Predicate {
        var options: StringOptions = []
        if caseInsensitive { options.insert(.caseInsensitive) }
        if diacriticInsensitive { options.insert(.diacriticInsensitive) }
        return .stringMatch(key: name, op: op, pattern: pattern, options: options)
    }
}

extension PredicateKeyPath where Value: PredicateOptionSet {
    /// `key CONTAINS flags`: every flag in `flags` is set.
    public func contains(_ flags: Value) -> Predicate {
        .containsFlags(key: name, mask: Int64(flags.rawValue))
    }
}

extension PredicateKeyPath {
    /// `key CONTAINS flags` on an optional option set: every flag in `flags` is set (false when nil).
    public func contains<Flags: PredicateOptionSet>(_ flags: Flags) -> Predicate where Value == Flags? {
        .containsFlags(key: name, mask: Int64(flags.rawValue))
    }
}

// MARK: - Logical operators

/// A value usable as a predicate operand of `&&`, `||` and `!`: a ``Predicate``, or a Boolean
/// ``PredicateKeyPath`` (a bare Boolean key).
public protocol PredicateConvertible: Sendable {
    /// The value as a predicate.
    var predicate: Predicate { get }
}

extension Predicate: PredicateConvertible {
    /// The predicate itself.
    public var predicate: Predicate { self }
}

extension PredicateKeyPath: PredicateConvertible where Value == Bool {
    /// The bare Boolean key, meaning `key == true`.
    public var predicate: Predicate { .key(name) }
}

/// `lhs AND rhs`; nested conjunctions are flattened, so `a && b && c` is `.and([a, b, c])`.
public func && (lhs: some PredicateConvertible, rhs: some PredicateConvertible) -> Predicate {
    .and(lhs.predicate.conjuncts + rhs.predicate.conjuncts)
}

/// `lhs OR rhs`; nested disjunctions are flattened, so `a || b || c` is `.or([a, b, c])`.
public func || (lhs: some PredicateConvertible, rhs: some PredicateConvertible) -> Predicate {
    .or(lhs.predicate.disjuncts + rhs.predicate.disjuncts)
}

/// `NOT operand`.
public prefix func ! (operand: some PredicateConvertible) -> Predicate {
    .not(operand.predicate)
}

extension Predicate {
    fileprivate var conjuncts: [Predicate] {
        if case .and(let operands) = self, operands.count >= 2 { return operands }
        return [self]
    }

    fileprivate var disjuncts: [Predicate] {
        if case .or(let operands) = self, operands.count >= 2 { return operands }
        return [self]
    }
}
