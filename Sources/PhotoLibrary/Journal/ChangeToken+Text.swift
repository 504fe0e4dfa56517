/// The string form of tokens without Foundation's string machinery: a server parses a token per request, and
/// `trimmingCharacters` + `replacingOccurrences` + `Data(base64Encoded:)` cost microseconds where a table
/// lookup per character costs nanoseconds.
enum TokenText {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Each byte's 6-bit value in the base64url alphabet; 0xFF for any other byte.
    private static let values: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (index, character) in alphabet.enumerated() { table[Int(character)] = UInt8(index) }
        return table
    }()

    /// `bytes` in unpadded base64url.
    ///
    /// - Complexity: O(*n*).
    static func encode(_ bytes: [UInt8]) -> String {
        var text: [UInt8] = []
        text.reserveCapacity((bytes.count * 4 + 2) / 3)
        var index = 0
        while index < bytes.count {
            let count = min(3, bytes.count - index)
            var group = UInt32(bytes[index]) << 16
            if count > 1 { group |= UInt32(bytes[index + 1]) << 8 }
            if count > 2 { group |= UInt32(bytes[index + 2]) }
            for position in 0...count { text.append(alphabet[Int((group >> (18 - 6 * UInt32(position))) & 0x3F)]) }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes of canonical unpadded base64url text — nothing but the alphabet, no padding, unused trailing
    /// bits zero; nil for anything else (which the general decoder then judges).
    ///
    /// - Complexity: O(*n*).
    static func decodeCanonical(_ text: String) -> [UInt8]? {
        var text = text
        return text.withUTF8 { decode($0) }
    }

    private static func decode(_ characters: UnsafeBufferPointer<UInt8>) -> [UInt8]? {
        guard characters.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(characters.count * 3 / 4)
        var group: UInt32 = 0
        var bits = 0
        for character in characters {
            let value = values[Int(character)]
            guard value != 0xFF else { return nil }
            group = group << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                bytes.append(UInt8(truncatingIfNeeded: group >> UInt32(bits)))
                group &= (1 << UInt32(bits)) - 1
            }
        }
        return group == 0 ? bytes : nil
    }
}
