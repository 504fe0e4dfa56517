public import Foundation

/// A point in one library's change history: opaque, versioned and serialisable.
///
/// Store it (as ``data`` or ``stringValue``, both URL-safe to carry) and later ask the library what changed
/// since: ``PhotoLibrary/fetchPersistentChanges(since:options:)``. A token carries its library's identity,
/// so a token from another library is refused instead of misread, and a stamp of the transaction it names,
/// so a library restored from an older backup that has since moved on is detected too.
///
/// Tokens of one library are ordered by their position in the history.
public struct ChangeToken: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    /// The format version written by this build.
    public static let currentVersion: UInt8 = 1
    private static let magic: [UInt8] = Array("PSCT".utf8)
    private static let encodedCount = 4 + 1 + 16 + 8 + 8 + 4

    /// The library this token belongs to.
    public let libraryIdentity: UUID
    /// The sequence number of the last transaction this token has seen; 0 before the first one.
    public let sequence: Int64
    /// A stamp of that transaction (its commit time in microseconds), checked when the token is used.
    let stamp: Int64

    init(libraryIdentity: UUID, sequence: Int64, stamp: Int64) {
        self.libraryIdentity = libraryIdentity
        self.sequence = sequence
        self.stamp = stamp
    }

    /// The stamp of a transaction committed at `date` (seconds since 1970): microseconds, rounded half away
    /// from zero. Computed once, by the commit, and stored with the transaction (`change_transaction.stamp`);
    /// readers take the stored value. Schema/0006 backfilled earlier transactions with exactly this value.
    static func stamp(forDate date: Double) -> Int64 {
        Int64((date * 1_000_000).rounded())
    }

    /// The binary form: 41 bytes, with a magic number, the version and a checksum.
    public var data: Data {
        var bytes = Self.magic
        bytes.append(Self.currentVersion)
        withUnsafeBytes(of: libraryIdentity.uuid) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(bitPattern: sequence).bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: UInt64(bitPattern: stamp).bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: Self.checksum(bytes).bigEndian) { bytes.append(contentsOf: $0) }
        return Data(bytes)
    }

    /// The string form: ``data`` in unpadded base64url (55 characters), safe in URLs, file names and shells.
    public var stringValue: String { TokenText.encode([UInt8](data)) }

    public var description: String { stringValue }

    /// Decodes the binary form.
    ///
    /// - Throws: ``PhotoLibraryError/undecodableChangeToken(reason:)`` for anything that isn't a token of a
    ///   version this build reads — whatever its length or content.
    public init(data: Data) throws(PhotoLibraryError) {
        let bytes = [UInt8](data)
        guard bytes.count == Self.encodedCount else {
            throw .undecodableChangeToken(reason: "expected \(Self.encodedCount) bytes, got \(bytes.count)")
        }
        guard Array(bytes[0..<4]) == Self.magic else { throw .undecodableChangeToken(reason: "wrong magic number") }
        guard bytes[4] == Self.currentVersion else {
            throw .undecodableChangeToken(reason: "token version \(bytes[4]) is not supported (this build reads \(Self.currentVersion))")
        }
        let body = Array(bytes[0..<(Self.encodedCount - 4)])
        let stored = bytes[(Self.encodedCount - 4)...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard stored == Self.checksum(body) else { throw .undecodableChangeToken(reason: "checksum mismatch") }
        let uuidBytes = Array(bytes[5..<21])
        let uuid = uuidBytes.withUnsafeBytes { $0.loadUnaligned(as: uuid_t.self) }
        let sequence = bytes[21..<29].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let stamp = bytes[29..<37].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        guard Int64(bitPattern: sequence) >= 0 else { throw .undecodableChangeToken(reason: "negative sequence") }
        self.init(libraryIdentity: UUID(uuid: uuid), sequence: Int64(bitPattern: sequence), stamp: Int64(bitPattern: stamp))
    }

    /// Decodes the string form (unpadded base64url; padding and standard base64 are accepted too).
    ///
    /// - Throws: ``PhotoLibraryError/undecodableChangeToken(reason:)`` for anything else.
    public init(string: String) throws(PhotoLibraryError) {
        if string.utf8.count <= 128, let bytes = TokenText.decodeCanonical(string) {
            try self.init(data: Data(bytes))
            return
        }
        let trimmed = string.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.count <= 128 else { throw .undecodableChangeToken(reason: "too long to be a token") }
        var base64 = trimmed.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        guard let data = Data(base64Encoded: base64) else {
            throw .undecodableChangeToken(reason: "not base64url text")
        }
        try self.init(data: data)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        try self.init(string: try container.decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(stringValue)
    }

    /// Orders by library identity, then by position in the history: only the order of tokens of one library
    /// is meaningful.
    public static func < (lhs: ChangeToken, rhs: ChangeToken) -> Bool {
        if lhs.libraryIdentity != rhs.libraryIdentity {
            return lhs.libraryIdentity.uuidString < rhs.libraryIdentity.uuidString
        }
        return lhs.sequence < rhs.sequence
    }

    /// FNV-1a, 32 bits: catches truncation and typing errors, not an authenticator.
    private static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var hash: UInt32 = 0x811C_9DC5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash = hash &* 0x0100_0193
        }
        return hash
    }
}
