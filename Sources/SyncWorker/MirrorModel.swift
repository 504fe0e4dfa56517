import PhotoLibrary

/// What the reconciler needs of the recorded files of a scope: a count, a lookup by path and a pass over all.
protocol RecordedFiles {
    var count: Int { get }
    subscript(path path: String) -> MirroredFile? { get }
    /// The stamp recorded for a path (cheaper than the whole record).
    func stamp(at path: String) -> FileStamp?
    /// Calls `body` with every recorded file, in no particular order.
    func forEachFile(_ body: (MirroredFile) throws -> Void) rethrows
}

extension Dictionary: RecordedFiles where Key == String, Value == MirroredFile {
    subscript(path path: String) -> MirroredFile? { self[path] }
    func stamp(at path: String) -> FileStamp? { self[path]?.stamp }
    func forEachFile(_ body: (MirroredFile) throws -> Void) rethrows {
        for file in values { try body(file) }
    }
}

/// One mirrored file as the model keeps it, without a heap allocation of its own (80 bytes): the content
/// hash as its two 64-bit halves and the asset identifier as the 16 bytes of its UUID (local identifiers
/// are `UUID/L0/001`). A value that does not have the canonical form is kept as a string in a side table of
/// the model instead (never seen in practice; kept so that the model returns exactly what it was given).
struct PackedFile {
    var stamp: FileStamp
    var hashHigh: UInt64
    var hashLow: UInt64
    var assetHigh: UInt64
    var assetLow: UInt64
    var hashKind: Kind
    var assetKind: Kind

    enum Kind: UInt8 {
        /// No value (an asset identifier only).
        case none
        /// The canonical form, in the two halves.
        case packed
        /// In the model's side table, by path.
        case other
    }

    static let assetSuffix = "/L0/001"

    /// The value of a hexadecimal digit of the given case (`a`…`f` or `A`…`F`), else nil.
    @inline(__always)
    private static func nibble(_ byte: UInt8, uppercase: Bool) -> UInt64? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt64(byte &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f") where !uppercase: return UInt64(byte &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F") where uppercase: return UInt64(byte &- UInt8(ascii: "A") &+ 10)
        default: return nil
        }
    }

    /// Packs a hash: the canonical 32 lowercase hexadecimal digits, else nil. Without allocating.
    static func pack(hash: String) -> (UInt64, UInt64)? {
        var hash = hash
        return hash.withUTF8 { bytes -> (UInt64, UInt64)? in
            guard bytes.count == 32 else { return nil }
            var halves: (UInt64, UInt64) = (0, 0)
            for index in 0..<32 {
                guard let value = nibble(bytes[index], uppercase: false) else { return nil }
                if index < 16 { halves.0 = halves.0 << 4 | value } else { halves.1 = halves.1 << 4 | value }
            }
            return halves
        }
    }

    /// Packs an asset identifier: an uppercase UUID (`8-4-4-4-12` hexadecimal digits, as `UUID.uuidString`)
    /// followed by `/L0/001`, else nil. Without allocating; the halves are the UUID's bytes, big-endian.
    static func pack(asset: String) -> (UInt64, UInt64)? {
        var asset = asset
        return asset.withUTF8 { bytes -> (UInt64, UInt64)? in
            guard bytes.count == 36 + 7, bytes[36...].elementsEqual(assetSuffix.utf8) else { return nil }
            var halves: (UInt64, UInt64) = (0, 0)
            var digits = 0
            for index in 0..<36 {
                if index == 8 || index == 13 || index == 18 || index == 23 {
                    guard bytes[index] == UInt8(ascii: "-") else { return nil }
                    continue
                }
                guard let value = nibble(bytes[index], uppercase: true) else { return nil }
                if digits < 16 { halves.0 = halves.0 << 4 | value } else { halves.1 = halves.1 << 4 | value }
                digits += 1
            }
            return halves
        }
    }

    /// The canonical form of a packed hash: 32 lowercase hexadecimal digits, high half first.
    static func unpackHash(_ high: UInt64, _ low: UInt64) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 32) { buffer in
            for digit in 0..<32 {
                let half = digit < 16 ? high : low
                buffer[digit] = digits.utf8Start[Int((half >> UInt64(60 - 4 * (digit % 16))) & 0xF)]
            }
            return 32
        }
    }

    /// The local identifier of a packed asset: its UUID in uppercase, then `/L0/001`.
    static func unpackAsset(_ high: UInt64, _ low: UInt64) -> String {
        let digits: StaticString = "0123456789ABCDEF"
        return String(unsafeUninitializedCapacity: 36 + 7) { buffer in
            var position = 0
            for digit in 0..<32 {
                if digit == 8 || digit == 12 || digit == 16 || digit == 20 {
                    buffer[position] = UInt8(ascii: "-")
                    position += 1
                }
                let half = digit < 16 ? high : low
                let shift = UInt64(60 - 4 * (digit % 16))
                buffer[position] = digits.utf8Start[Int((half >> shift) & 0xF)]
                position += 1
            }
            for byte in assetSuffix.utf8 {
                buffer[position] = byte
                position += 1
            }
            return position
        }
    }
}

/// The mirror state of one root held in memory while a mirror runs: the library's records plus, per
/// directory, how many media files it holds directly and below it (what decides albums and folders).
///
/// Files are kept packed (see ``PackedFile``): 80 bytes per file besides its path key and no allocation of
/// its own, where a ``MirroredFile`` takes 88 plus two heap strings (about 170 bytes more).
struct MirrorModel: RecordedFiles {
    private var packed: [String: PackedFile] = [:]
    /// Hashes and asset identifiers without their canonical form, by path.
    private var otherHashes: [String: String] = [:]
    private var otherAssets: [String: String] = [:]
    var directories: [String: MirroredDirectory] = [:]
    /// Media files directly in a directory.
    private(set) var directCount: [String: Int] = [:]
    /// Media files in a directory's subdirectories.
    private(set) var belowCount: [String: Int] = [:]

    init() {}

    init(_ state: MirrorState) {
        self.init(files: state.files, directories: state.directories)
    }

    init(files: [MirroredFile], directories: [MirroredDirectory]) {
        packed.reserveCapacity(files.count)
        for file in files { set(file) }
        for directory in directories { self.directories[directory.relativePath] = directory }
    }

    var count: Int { packed.count }

    /// Makes room for `capacity` files.
    mutating func reserveCapacity(_ capacity: Int) { packed.reserveCapacity(capacity) }
    var isEmpty: Bool { packed.isEmpty }

    subscript(path path: String) -> MirroredFile? {
        guard let file = packed[path] else { return nil }
        return unpack(path, file)
    }

    func stamp(at path: String) -> FileStamp? { packed[path]?.stamp }

    func forEachFile(_ body: (MirroredFile) throws -> Void) rethrows {
        for (path, file) in packed { try body(unpack(path, file)) }
    }

    private func unpack(_ path: String, _ file: PackedFile) -> MirroredFile {
        let hash: String
        switch file.hashKind {
        case .packed: hash = PackedFile.unpackHash(file.hashHigh, file.hashLow)
        case .other, .none: hash = otherHashes[path] ?? ""
        }
        let asset: String?
        switch file.assetKind {
        case .none: asset = nil
        case .packed: asset = PackedFile.unpackAsset(file.assetHigh, file.assetLow)
        case .other: asset = otherAssets[path]
        }
        return MirroredFile(relativePath: path, stamp: file.stamp, contentHash: hash, assetIdentifier: asset)
    }

    mutating func set(_ file: MirroredFile) {
        let path = file.relativePath
        var entry = PackedFile(stamp: file.stamp, hashHigh: 0, hashLow: 0, assetHigh: 0, assetLow: 0, hashKind: .other, assetKind: .none)
        if let (high, low) = PackedFile.pack(hash: file.contentHash) {
            (entry.hashHigh, entry.hashLow, entry.hashKind) = (high, low, .packed)
            if !otherHashes.isEmpty { otherHashes[path] = nil }
        } else {
            otherHashes[path] = file.contentHash
        }
        if let asset = file.assetIdentifier, let (high, low) = PackedFile.pack(asset: asset) {
            (entry.assetHigh, entry.assetLow, entry.assetKind) = (high, low, .packed)
            if !otherAssets.isEmpty { otherAssets[path] = nil }
        } else if let asset = file.assetIdentifier {
            entry.assetKind = .other
            otherAssets[path] = asset
        } else if !otherAssets.isEmpty {
            otherAssets[path] = nil
        }
        if packed.updateValue(entry, forKey: path) == nil { count(path, +1) }
    }

    mutating func remove(_ path: String) {
        if packed.removeValue(forKey: path) != nil {
            count(path, -1)
            if !otherHashes.isEmpty { otherHashes[path] = nil }
            if !otherAssets.isEmpty { otherAssets[path] = nil }
        }
    }

    private mutating func count(_ path: String, _ delta: Int) {
        var directory = FileSystem.parent(of: path)
        directCount[directory, default: 0] += delta
        if directCount[directory] == 0 { directCount[directory] = nil }
        while !directory.isEmpty {
            directory = FileSystem.parent(of: directory)
            belowCount[directory, default: 0] += delta
            if belowCount[directory] == 0 { belowCount[directory] = nil }
        }
    }

    /// The recorded files at `path` or below it.
    ///
    /// - Complexity: O(*n*) in the files of the whole model.
    func files(within path: String) -> [String: MirroredFile] {
        var result: [String: MirroredFile] = [:]
        if let file = packed[path] { result[path] = unpack(path, file) }
        let prefix = path.isEmpty ? "" : path + "/"
        for (key, file) in packed where key.hasPrefix(prefix) { result[key] = unpack(key, file) }
        return result
    }

    /// The album and folder a directory should have.
    ///
    /// The rule: a directory holding media directly has an album titled with its name; a directory other
    /// than the root with media in its subdirectories has a folder of the same name, holding its own album
    /// (first) and its subdirectories' albums and folders. The root's album and its subdirectories'
    /// collections sit at the top level.
    func needs(_ directory: String) -> (album: Bool, folder: Bool) {
        ((directCount[directory] ?? 0) > 0, !directory.isEmpty && (belowCount[directory] ?? 0) > 0)
    }
}
