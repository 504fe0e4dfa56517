import Foundation
import Crypto

/// An API key as the server stores it: a name, a level, and a keyed hash of the secret — never the secret.
///
/// Secrets are 256 random bits (``generate(name:level:)``), so an attacker holding the hashes has nothing to
/// guess from: a slow password hash (bcrypt, Argon2) protects low-entropy passwords and would only cost
/// every request milliseconds here. The hash is HMAC-SHA256 keyed by a random per-key salt — fast,
/// one-way, and no two entries alike even for equal secrets; it is compared in constant time.
public struct APIKey: Sendable, Hashable {
    /// The key's name: the author of the writes made with it (so a client can leave out its own writes).
    public let name: String
    public let level: AccessLevel
    let salt: Data
    let digest: Data

    init(name: String, level: AccessLevel, salt: Data, digest: Data) {
        self.name = name
        self.level = level
        self.salt = salt
        self.digest = digest
    }

    /// Whether `secret` is this key's secret.
    ///
    /// - Complexity: one HMAC-SHA256 of the secret (about a microsecond); constant-time comparison.
    public func matches(_ secret: String) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(digest, authenticating: Data(secret.utf8), using: SymmetricKey(data: salt))
    }

    /// A new key with a random secret; the secret is returned once and stored nowhere.
    public static func generate(name: String, level: AccessLevel) -> (key: APIKey, secret: String) {
        let secret = "psk_" + Base64URL.encode(randomBytes(32))
        let salt = Data(randomBytes(16))
        let digest = Data(HMAC<SHA256>.authenticationCode(for: Data(secret.utf8), using: SymmetricKey(data: salt)))
        return (APIKey(name: name, level: level, salt: salt, digest: digest), secret)
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// Whether `name` can name a key: 1 to 64 characters among letters, digits, `.`, `_`, `-`, `@`.
    public static func isValidName(_ name: String) -> Bool {
        (1...64).contains(name.count)
            && name.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_@".unicodeScalars.contains($0) }
    }
}

/// Base64 with the URL-safe alphabet and no padding (RFC 4648 §5).
enum Base64URL {
    static func encode(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64)
    }
}
