public import Foundation

/// A Swift type that maps to a ``PredicateKeyType``: the value type of a typed key
/// (``PredicateKeyPath``).
///
/// Conforming types: `Bool`, `Int`, `Int64`, `Int32`, `Double`, `Date`, `String`, enumerations adopting
/// ``PredicateEnumeration``, option sets adopting ``PredicateOptionSet``, and `Optional` of any of them.
public protocol PredicateValueConvertible: Sendable {
    /// The key type for keys of this Swift type.
    static var predicateKeyType: PredicateKeyType { get }
    /// Whether values can be nil (true only for `Optional`).
    static var isOptionalPredicateValue: Bool { get }
    /// The value as a ``PredicateValue``.
    var predicateValue: PredicateValue { get }
}

extension PredicateValueConvertible {
    /// False: only `Optional` is optional.
    public static var isOptionalPredicateValue: Bool { false }
}

/// A value type on which `<`, `<=`, `>`, `>=` and `between` apply in the typed API.
public protocol PredicateOrderedValue: PredicateValueConvertible {}

/// A string value type (`String` or `String?`), on which the typed API offers `contains`, `beginsWith`,
/// `endsWith` and `like`.
public protocol PredicateStringValue: PredicateValueConvertible {}

/// An enumeration with `Int` raw values, used as a key's value type and written by case name in the text
/// format (`mediaType == image`).
///
/// If the type is `CustomStringConvertible`, its `description` is the case name:
///
/// ```swift
/// extension AssetMediaType: PredicateEnumeration {}
/// ```
public protocol PredicateEnumeration: PredicateValueConvertible, RawRepresentable, CaseIterable
where RawValue == Int {
    /// The name of this case in the predicate text format; an identifier.
    var predicateName: String { get }
}

extension PredicateEnumeration {
    /// `.enumeration` with every case's name and raw value.
    public static var predicateKeyType: PredicateKeyType {
        .enumeration(cases: allCases.map { (name: $0.predicateName, rawValue: $0.rawValue) })
    }

    /// The raw value as an integer.
    public var predicateValue: PredicateValue { .integer(Int64(rawValue)) }
}

extension PredicateEnumeration where Self: CustomStringConvertible {
    /// The `description`.
    public var predicateName: String { description }
}

/// An option set with `Int` raw values, used as a key's value type; the text format writes single flags by
/// name (`mediaSubtypes CONTAINS photoPanorama`).
///
/// ```swift
/// extension AssetMediaSubtypes: PredicateOptionSet {
///     public static var predicateFlags: [(name: String, value: AssetMediaSubtypes)] { named }
/// }
/// ```
public protocol PredicateOptionSet: PredicateValueConvertible, OptionSet where RawValue == Int {
    /// Every named flag, each with its name (an identifier) and its value (usually a single bit).
    static var predicateFlags: [(name: String, value: Self)] { get }
}

extension PredicateOptionSet {
    /// `.optionSet` with every flag's name and raw value.
    public static var predicateKeyType: PredicateKeyType {
        .optionSet(flags: predicateFlags.map { (name: $0.name, rawValue: $0.value.rawValue) })
    }

    /// The bit mask as an integer.
    public var predicateValue: PredicateValue { .integer(Int64(rawValue)) }
}

extension Bool: PredicateValueConvertible {
    /// `.bool`.
    public static var predicateKeyType: PredicateKeyType { .bool }
    /// `.bool(self)`.
    public var predicateValue: PredicateValue { .bool(self) }
}

extension Int: PredicateOrderedValue {
    /// `.integer`.
    public static var predicateKeyType: PredicateKeyType { .integer }
    /// `.integer(self)`.
    public var predicateValue: PredicateValue { .integer(Int64(self)) }
}

extension Int64: PredicateOrderedValue {
    /// `.integer`.
    public static var predicateKeyType: PredicateKeyType { .integer }
    /// `.integer(self)`.
    public var predicateValue: PredicateValue { .integer(self) }
}

extension Int32: PredicateOrderedValue {
    /// `.integer`.
    public static var predicateKeyType: PredicateKeyType { .integer }
    /// `.integer(self)`.
    public var predicateValue: PredicateValue { .integer(Int64(self)) }
}

extension Double: PredicateOrderedValue {
    /// `.double`.
    public static var predicateKeyType: PredicateKeyType { .double }
    /// `.double(self)`.
    public var predicateValue: PredicateValue { .double(self) }
}

extension Date: PredicateOrderedValue {
    /// `.date`.
    public static var predicateKeyType: PredicateKeyType { .date }
    /// `.date(self)`.
    public var predicateValue: PredicateValue { .date(self) }
}

extension String: PredicateOrderedValue, PredicateStringValue {
    /// `.string`.
    public static var predicateKeyType: PredicateKeyType { .string }
    /// `.string(self)`.
    public var predicateValue: PredicateValue { .string(self) }
}

extension Optional: PredicateValueConvertible where Wrapped: PredicateValueConvertible {
    /// The wrapped type's key type.
    public static var predicateKeyType: PredicateKeyType { Wrapped.predicateKeyType }
    /// True.
    public static var isOptionalPredicateValue: Bool { true }
    /// The wrapped value's, or `.null`.
    public var predicateValue: PredicateValue { self?.predicateValue ?? .null }
}

extension Optional: PredicateOrderedValue where Wrapped: PredicateOrderedValue {}
extension Optional: PredicateStringValue where Wrapped: PredicateStringValue {}
