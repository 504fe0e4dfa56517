/// An optional field that is written as `null` when it has no value: synthesized `Codable` would leave the
/// key out, and every object of a wire shape has the same keys. A missing key decodes as nil.
@propertyWrapper
public struct Nullable<Value: Codable & Sendable & Hashable>: Codable, Sendable, Hashable {
    public var wrappedValue: Value?

    /// A field holding `wrappedValue`.
    public init(wrappedValue: Value?) {
        self.wrappedValue = wrappedValue
    }

    /// Decodes the JSON form, accepting what the type says it accepts.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : try container.decode(Value.self)
    }

    /// Encodes the JSON form.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(wrappedValue)
    }
}

extension KeyedDecodingContainer {
    /// A ``Nullable`` field whose key is missing is nil (synthesized decoding would call this).
    public func decode<Value>(_ type: Nullable<Value>.Type, forKey key: Key) throws -> Nullable<Value> {
        try decodeIfPresent(type, forKey: key) ?? Nullable(wrappedValue: nil)
    }
}
