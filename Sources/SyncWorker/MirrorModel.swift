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

    /// Packs a hash: the canonical 32 lowercase hexadecimal digits, else nil. Without allocating.
    static func pack(hash: String) -> (UInt64, UInt64)? {
        var hash = hash
        return hash.withUTF8 { pack(hash: $0) }
    }

    /// Packs a hash given as UTF-8 bytes (as the String form).
    static func pack(hash bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        guard bytes.count == 32, let base = bytes.baseAddress else { return nil }
        return lowercaseDigits.withUnsafeBufferPointer { table in
            var invalid: UInt8 = 0
            let halves = (hexadecimal(base, 16, table, &invalid), hexadecimal(base + 16, 16, table, &invalid))
            return invalid & 0xF0 == 0 ? halves : nil
        }
    }

    /// Packs an asset identifier: an uppercase UUID (`8-4-4-4-12` hexadecimal digits, as `UUID.uuidString`)
    /// followed by `/L0/001`, else nil. Without allocating; the halves are the UUID's bytes, big-endian.
    static func pack(asset: String) -> (UInt64, UInt64)? {
        var asset = asset
        return asset.withUTF8 { pack(asset: $0) }
    }

    /// Packs an asset identifier given as UTF-8 bytes (as the String form).
    static func pack(asset bytes: UnsafeBufferPointer<UInt8>) -> (UInt64, UInt64)? {
        guard bytes.count == 36 + 7, let base = bytes.baseAddress, base[8] == dash, base[13] == dash, base[18] == dash,
            base[23] == dash, bytes[36...].elementsEqual(assetSuffixBytes)
        else { return nil }
        return uppercaseDigits.withUnsafeBufferPointer { table in
            var invalid: UInt8 = 0
            let high = hexadecimal(base, 8, table, &invalid) << 32 | hexadecimal(base + 9, 4, table, &invalid) << 16
                | hexadecimal(base + 14, 4, table, &invalid)
            let low = hexadecimal(base + 19, 4, table, &invalid) << 48 | hexadecimal(base + 24, 12, table, &invalid)
            return invalid & 0xF0 == 0 ? (high, low) : nil
        }
    }

    private static let dash = UInt8(ascii: "-")
    private static let assetSuffixBytes = Array(assetSuffix.utf8)

    /// Digit values by byte: 0…15 for the digits of one case, 0xFF for any other byte.
    private static func digitTable(_ digits: String) -> [UInt8] {
        var table = [UInt8](repeating: 0xFF, count: 256)
        for (value, byte) in digits.utf8.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }

    private static let lowercaseDigits = digitTable("0123456789abcdef")
    private static let uppercaseDigits = digitTable("0123456789ABCDEF")

    /// The value of `count` hexadecimal digits at `start`, looked up in `table`; a byte that is not a digit
    /// sets high bits of `invalid` (one test at the end instead of a branch per digit).
    @inline(__always)
    private static func hexadecimal(
        _ start: UnsafePointer<UInt8>, _ count: Int, _ table: UnsafeBufferPointer<UInt8>, _ invalid: inout UInt8
    ) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<count {
            let digit = table[Int(start[index])]
            invalid |= digit
            value = value << 4 | UInt64(digit & 0xF)
        }
        return value
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
    /// The recorded path of each inode, once ``indexInodes()`` was called (the watcher's rounds; a scan never
    /// needs it). One path per inode: of hard-linked files, the last one set.
    private var inodeIndex: [FileInode: String]?

    init() {}

    init(_ state: MirrorState) {
        self.init(files: state.files, directories: state.directories)
    }

    init(files: [MirroredFile], directories: [MirroredDirectory]) {
        packed.reserveCapacity(files.count)
        for file in files { set(file) }
        for directory in directories { self.directories[directory.relativePath] = directory }
    }

    /// The model of a root as the library records it, each file packed straight from its database row (no
    /// intermediate array of records, no string for a canonical hash or asset identifier).
    ///
    /// - Throws: ``PhotoLibraryError`` when the library can't be read or no longer records the root.
    /// - Complexity: O(*n*) in the root's files.
    static func load(from library: PhotoLibrary, root: MirrorRoot) throws(PhotoLibraryError) -> MirrorModel {
        var matching = 0
        return try load(from: library, root: root, matching: &matching)
    }

    /// The same, counting the records whose asset references the record's own file (for the consistency check:
    /// ``MirrorConsistency/filesWithTheirAsset``, read with the records at no extra cost).
    static func load(from library: PhotoLibrary, root: MirrorRoot, matching: inout Int) throws(PhotoLibraryError) -> MirrorModel {
        var model = MirrorModel()
        model.reserveCapacity(try library.countMirroredFiles(root: root))
        var run = ParentRun()
        var count = 0
        let directories = try library.forEachMirroredFile(root: root) { row in
            if row.assetReferencesFile { count += 1 }
            model.insertLoaded(row, run: &run)
        }
        matching = count
        model.count(directory: run.parent, run.count)
        for directory in directories { model.directories[directory.relativePath] = directory }
        return model
    }

    /// Files counted but not yet added to their directory's counts: those of one parent directory, in a row
    /// (the library hands files over in path order, so most files continue the run of the one before).
    private struct ParentRun {
        var parent = ""
        var count = 0
    }

    /// Adds a file read from the library (paths are unique there).
    private mutating func insertLoaded(_ row: borrowing MirroredFileRow, run: inout ParentRun) {
        let path = row.relativePath
        let entry = pack(path, row.stamp, hash: row.contentHashUTF8, asset: row.assetIdentifierUTF8)
        guard packed.updateValue(entry, forKey: path) == nil else { return }
        // The parent's bytes compared in place (a String is made only when the run changes).
        var pathBytes = path
        var parentBytes = run.parent
        let (parentLength, sameParent) = pathBytes.withUTF8 { path in
            let length = path.lastIndex(of: UInt8(ascii: "/")) ?? 0
            return (length, parentBytes.withUTF8 { parent in
                parent.count == length && parent.elementsEqual(UnsafeBufferPointer(rebasing: path[..<length]))
            })
        }
        if sameParent {
            run.count += 1
        } else {
            count(directory: run.parent, run.count)
            run = ParentRun(parent: String(path.utf8.prefix(parentLength))!, count: 1)
        }
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
        var hash = file.contentHash
        var asset = file.assetIdentifier ?? ""
        let entry = hash.withUTF8 { hash in
            asset.withUTF8 { asset in pack(file.relativePath, file.stamp, hash: hash, asset: file.assetIdentifier == nil ? nil : asset) }
        }
        let old = packed.updateValue(entry, forKey: file.relativePath)
        if old == nil { count(file.relativePath, +1) }
        if inodeIndex != nil {
            if let old { unindex(old.stamp, at: file.relativePath) }
            inodeIndex?[FileInode(file.stamp)] = file.relativePath
        }
    }

    /// Builds the index of paths by inode (``path(ofInode:)``), kept up to date from then on.
    ///
    /// - Complexity: O(*n*) once; then O(1) per file set or removed.
    mutating func indexInodes() {
        guard inodeIndex == nil else { return }
        var index: [FileInode: String] = [:]
        index.reserveCapacity(packed.count)
        for (path, file) in packed { index[FileInode(file.stamp)] = path }
        inodeIndex = index
    }

    /// The recorded path of a file by its device and inode (nil before ``indexInodes()``).
    func path(ofInode inode: FileInode) -> String? { inodeIndex?[inode] }

    private mutating func unindex(_ stamp: FileStamp, at path: String) {
        let inode = FileInode(stamp)
        if inodeIndex?[inode] == path { inodeIndex?[inode] = nil }
    }

    /// A file's packed entry (the one packing rule of ``set(_:)`` and of loading from the library): a hash or
    /// asset identifier without the canonical form goes to its side table by path, and a canonical one clears
    /// the side table's entry for the path.
    private mutating func pack(
        _ path: String, _ stamp: FileStamp, hash: UnsafeBufferPointer<UInt8>, asset: UnsafeBufferPointer<UInt8>?
    ) -> PackedFile {
        var entry = PackedFile(stamp: stamp, hashHigh: 0, hashLow: 0, assetHigh: 0, assetLow: 0, hashKind: .other, assetKind: .none)
        if let (high, low) = PackedFile.pack(hash: hash) {
            (entry.hashHigh, entry.hashLow, entry.hashKind) = (high, low, .packed)
            if !otherHashes.isEmpty { otherHashes[path] = nil }
        } else {
            otherHashes[path] = String(decoding: hash, as: UTF8.self)
        }
        if let asset, let (high, low) = PackedFile.pack(asset: asset) {
            (entry.assetHigh, entry.assetLow, entry.assetKind) = (high, low, .packed)
            if !otherAssets.isEmpty { otherAssets[path] = nil }
        } else if let asset {
            entry.assetKind = .other
            otherAssets[path] = String(decoding: asset, as: UTF8.self)
        } else if !otherAssets.isEmpty {
            otherAssets[path] = nil
        }
        return entry
    }

    /// Whether the model records `file` at its path (the same asset and content).
    func records(_ file: MirroredFile) -> Bool {
        guard let now = self[path: file.relativePath] else { return false }
        return now.assetIdentifier == file.assetIdentifier && now.contentHash == file.contentHash
    }

    mutating func remove(_ path: String) {
        if let old = packed.removeValue(forKey: path) {
            count(path, -1)
            if inodeIndex != nil { unindex(old.stamp, at: path) }
            if !otherHashes.isEmpty { otherHashes[path] = nil }
            if !otherAssets.isEmpty { otherAssets[path] = nil }
        }
    }

    private mutating func count(_ path: String, _ delta: Int) {
        count(directory: FileSystem.parent(of: path), delta)
    }

    /// Adds `delta` media files directly in `directory` (and so below each of its ancestors).
    private mutating func count(directory: String, _ delta: Int) {
        guard delta != 0 else { return }
        var directory = directory
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
    /// - Complexity: O(1) when no file is recorded below `path`; else O(*n*) in the files of the whole model.
    func files(within path: String) -> [String: MirroredFile] {
        var result: [String: MirroredFile] = [:]
        if let file = packed[path] { result[path] = unpack(path, file) }
        // Nothing below it (a file's path, the common case of a watch round): no pass over the model.
        if path.isEmpty ? packed.isEmpty : directCount[path] == nil && belowCount[path] == nil { return result }
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
