public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file of API keys (`--auth-file`): one key per line, `NAME LEVEL hmac-sha256:SALT:DIGEST`, salt and
/// digest in base64url; blank lines and lines starting with `#` are ignored.
///
/// `photosync serve --auth-file FILE --add-key NAME --level LEVEL` appends a line and prints the secret
/// once. The file holds no secret, but keep it private all the same (it is created with mode 0600).
public enum AuthFile {
    /// A problem with the file, naming its line.
    public struct Problem: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    static let scheme = "hmac-sha256"

    /// The keys of the file at `url`.
    ///
    /// - Throws: ``Problem`` for an unreadable file, a malformed line, an unknown level or a name given twice.
    public static func load(_ url: URL) throws(Problem) -> [APIKey] {
        let text: String
        do { text = try String(contentsOf: url, encoding: .utf8) } catch {
            throw Problem(description: "cannot read the auth file \(url.path): \(error.localizedDescription)")
        }
        return try parse(text, path: url.path)
    }

    /// The keys of a file's text.
    static func parse(_ text: String, path: String) throws(Problem) -> [APIKey] {
        var keys: [APIKey] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let key = try parseLine(line, at: "\(path):\(index + 1)")
            guard !keys.contains(where: { $0.name == key.name }) else {
                throw Problem(description: "\(path):\(index + 1): the key name \"\(key.name)\" is used twice")
            }
            keys.append(key)
        }
        return keys
    }

    private static func parseLine(_ line: String, at place: String) throws(Problem) -> APIKey {
        let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count == 3 else {
            throw Problem(description: "\(place): expected NAME LEVEL \(scheme):SALT:DIGEST")
        }
        let name = String(fields[0])
        guard APIKey.isValidName(name) else { throw Problem(description: "\(place): \"\(name)\" is not a valid key name") }
        guard let level = AccessLevel(rawValue: String(fields[1])) else {
            throw Problem(description: "\(place): unknown level \"\(fields[1])\" (read, add-only or read-write)")
        }
        let hash = fields[2].split(separator: ":")
        guard hash.count == 3, hash[0] == scheme, let salt = Base64URL.decode(hash[1]), let digest = Base64URL.decode(hash[2]),
            salt.count >= 16, digest.count == 32
        else { throw Problem(description: "\(place): the hash must be \(scheme):SALT:DIGEST (base64url)") }
        return APIKey(name: name, level: level, salt: salt, digest: digest)
    }

    /// The line that stores `key`.
    static func line(for key: APIKey) -> String {
        "\(key.name) \(key.level.rawValue) \(scheme):\(Base64URL.encode(key.salt)):\(Base64URL.encode(key.digest))"
    }

    /// Makes a new key and appends it to the file (created, mode 0600, when missing).
    ///
    /// - Returns: the secret, which is stored nowhere: show it once.
    /// - Throws: ``Problem`` for an invalid name, a name already in the file, or a file that can't be read
    ///   or written.
    public static func addKey(name: String, level: AccessLevel, to url: URL) throws(Problem) -> String {
        guard APIKey.isValidName(name) else {
            throw Problem(description: "\"\(name)\" is not a valid key name: 1 to 64 letters, digits, '.', '_', '-' or '@'")
        }
        var existing = ""
        if FileManager.default.fileExists(atPath: url.path) {
            existing = (try? String(contentsOf: url, encoding: .utf8)) ?? ""
            if try load(url).contains(where: { $0.name == name }) {
                throw Problem(description: "\(url.path) already has a key named \"\(name)\"")
            }
        }
        let (key, secret) = APIKey.generate(name: name, level: level)
        var text = existing.isEmpty ? "# photosync API keys: NAME LEVEL \(scheme):SALT:DIGEST (no secrets are stored)\n" : ""
        if !existing.isEmpty && !existing.hasSuffix("\n") { text += "\n" }
        text += line(for: key) + "\n"
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw Problem(description: "cannot write \(url.path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        guard write(fd, bytes, bytes.count) == bytes.count, fsync(fd) == 0 else {
            throw Problem(description: "cannot write \(url.path): \(String(cString: strerror(errno)))")
        }
        return secret
    }
}
