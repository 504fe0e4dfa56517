public import Foundation

/// The JSON shapes photosync speaks: the command line's `--json` output and, later, the HTTP API's bodies.
///
/// One type per shape, every one `Codable`, so that a client in Swift decodes what the tool encodes. Field
/// names are the library's own, the names predicates and sort descriptors use (`originalFilename`,
/// `latitude`, `localIdentifier`); decoding also accepts the names earlier versions wrote (`filename`,
/// `location`, `id`). Dates are ``Timestamp``s. A missing value is written as `null`, never left out, so that
/// every object of a shape has the same keys.
public enum Wire {
    /// The encoder of every shape: keys sorted, slashes unescaped, one line per value.
    public static func makeEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    /// The decoder matching ``makeEncoder()``.
    public static func makeDecoder() -> JSONDecoder { JSONDecoder() }

    /// `value` as one line of JSON, without the newline.
    ///
    /// - Throws: `EncodingError` only for a value that can't be JSON (a non-finite number).
    public static func line(_ value: some Encodable) throws -> String {
        String(decoding: try makeEncoder().encode(value), as: UTF8.self)
    }
}

extension KeyedDecodingContainer {
    /// The value under the first of `keys` present (a field and its aliases), or nil.
    func decodeFirst<T: Decodable>(_ type: T.Type, _ keys: Key...) throws -> T? {
        for key in keys where contains(key) {
            if let value = try decodeIfPresent(type, forKey: key) { return value }
        }
        return nil
    }

    /// The value under the first of `keys` present, or a `keyNotFound` error naming the first key.
    func decodeRequired<T: Decodable>(_ type: T.Type, _ keys: Key...) throws -> T {
        for key in keys where contains(key) {
            if let value = try decodeIfPresent(type, forKey: key) { return value }
        }
        throw DecodingError.keyNotFound(
            keys[0], DecodingError.Context(codingPath: codingPath, debugDescription: "no value for \(keys[0].stringValue)"))
    }
}
