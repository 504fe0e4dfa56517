import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The rendition cache: rendered images kept in the library directory, under `renditions/`, by
/// ``RenditionKey``. Derived data only: deleting the directory loses nothing but time.
///
/// Layout: `renditions/r1/ab/<content hash>/<key hash>.rnd`, each file a small header (magic, pixel size,
/// the key's canonical text) then the encoded bytes or pixels. A rendition is written to
/// `renditions/.incoming/` and renamed into place, so a reader never sees a partial file and a failed or
/// cancelled render leaves none. Any number of processes may share the cache: a file is found by its path.
///
/// The cache keeps under its byte budget by evicting the least recently used files (a file's modification
/// time is its last use: a hit touches it). The index of sizes and uses is read from the directory on first
/// use and again before each eviction, so the files of other processes are counted too.
final class RenditionCache: Sendable {
    let directory: URL
    /// The byte budget; eviction brings the cache down to 90 % of it.
    let budget: Int64
    private let root: URL
    private let incoming: URL
    private let index = Mutex<Index?>(nil)

    private struct Index {
        var entries: [String: (bytes: Int64, lastUse: Double)] = [:]
        var total: Int64 = 0

        mutating func set(_ path: String, bytes: Int64, lastUse: Double) {
            total -= entries[path]?.bytes ?? 0
            entries[path] = (bytes, lastUse)
            total += bytes
        }

        mutating func remove(_ path: String) {
            if let old = entries.removeValue(forKey: path) { total -= old.bytes }
        }
    }

    /// The header of a rendition file.
    struct Header: Hashable {
        let size: PixelSize
        let canonical: String
        var byteCount: Int { 14 + canonical.utf8.count }
    }

    private static let magic: [UInt8] = Array("PSR1".utf8)

    init(directory: URL, budget: Int64) {
        self.directory = directory
        self.budget = budget
        root = directory.appending(path: "r\(RenditionKey.pipelineRevision)", directoryHint: .isDirectory)
        incoming = directory.appending(path: ".incoming", directoryHint: .isDirectory)
    }

    private func folder(for contentHash: String) -> URL {
        root.appending(path: String(contentHash.prefix(2))).appending(path: contentHash, directoryHint: .isDirectory)
    }

    func url(for key: RenditionKey) -> URL { folder(for: key.contentHash).appending(path: key.fileName) }

    // MARK: Reading

    /// The rendition stored for `key`, or nil. A hit counts as a use.
    ///
    /// - Complexity: one open and one read of the file.
    func lookup(_ key: RenditionKey) -> RenderedImage? {
        let path = url(for: key).path
        guard let (header, image) = Self.read(path: path, headerOnly: false), header.canonical == key.canonical,
            let image
        else { return nil }
        touch(path)
        return image
    }

    /// Whether a rendition is stored for `key` (its file exists; not read).
    func contains(_ key: RenditionKey) -> Bool {
        access(url(for: key).path, F_OK) == 0
    }

    /// The largest stored rendition of the same kind as `key` (content, mode, crop, format), in any size
    /// that `accept` takes.
    ///
    /// - Complexity: one directory listing and a header read per rendition of that content.
    func lookupSibling(of key: RenditionKey, accepting accept: (PixelSize) -> Bool) -> RenderedImage? {
        let folder = folder(for: key.contentHash)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return nil }
        let kind = Self.kind(of: key.canonical)
        var best: (path: String, header: Header)?
        for name in names where name.hasSuffix(".rnd") {
            let path = folder.appending(path: name).path
            guard let (header, _) = Self.read(path: path, headerOnly: true), Self.kind(of: header.canonical) == kind,
                accept(header.size)
            else { continue }
            if let current = best, current.header.size.width * current.header.size.height
                >= header.size.width * header.size.height
            {
                continue
            }
            best = (path, header)
        }
        guard let best, let (header, image) = Self.read(path: best.path, headerOnly: false),
            header == best.header, let image
        else { return nil }
        touch(best.path)
        return image
    }

    /// The canonical key without its size: any size of a fit rendition shows the same picture; a fill
    /// rendition keeps its target's proportions (a 100×50 fill is no smaller version of a 200×200 one).
    private static func kind(of canonical: String) -> String {
        var fields = canonical.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        guard fields.count > 3 else { return canonical }
        if fields[3] == "fill" {
            let sides = fields[2].split(separator: "x").compactMap { Int($0) }
            if sides.count == 2 {
                let divisor = greatestCommonDivisor(sides[0], sides[1])
                fields[2] = "\(sides[0] / divisor):\(sides[1] / divisor)"
                return fields.joined(separator: "|")
            }
        }
        fields.remove(at: 2)
        return fields.joined(separator: "|")
    }

    private static func greatestCommonDivisor(_ a: Int, _ b: Int) -> Int { b == 0 ? max(a, 1) : greatestCommonDivisor(b, a % b) }

    /// Reads a rendition file: its header, and its image unless `headerOnly`.
    private static func read(path: String, headerOnly: Bool) -> (Header, RenderedImage?)? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_size >= 14 else { return nil }
        let count = headerOnly ? min(Int(status.st_size), 512) : Int(status.st_size)
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, 0) }
        guard read == count, let header = decodeHeader(bytes) else { return nil }
        if headerOnly { return (header, nil) }
        guard let image = decodeImage(header: header, payload: bytes[header.byteCount...]) else { return nil }
        return (header, image)
    }

    private static func decodeHeader(_ bytes: [UInt8]) -> Header? {
        guard bytes.count >= 14, Array(bytes[0..<4]) == magic else { return nil }
        func word(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        let keyLength = Int(bytes[12]) | Int(bytes[13]) << 8
        guard bytes.count >= 14 + keyLength else { return nil }
        let canonical = String(decoding: bytes[14..<(14 + keyLength)], as: UTF8.self)
        return Header(size: PixelSize(width: word(4), height: word(8)), canonical: canonical)
    }

    private static func decodeImage(header: Header, payload: ArraySlice<UInt8>) -> RenderedImage? {
        let size = header.size
        let name = header.canonical.split(separator: "|").last.map(String.init) ?? ""
        guard let format = ImageOutputFormat(canonicalName: name) else { return nil }
        if format == .rgba8 {
            guard payload.count == size.width * size.height * 4 else { return nil }
            return RenderedImage(
                content: .pixels(PixelBuffer(width: size.width, height: size.height, bytes: Array(payload))), size: size)
        }
        return RenderedImage(content: .encoded(Data(payload), format: format), size: size)
    }

    private static func encode(_ image: RenderedImage, canonical: String) -> [UInt8] {
        var bytes = magic
        for value in [image.size.width, image.size.height] {
            bytes += [UInt8(value & 0xff), UInt8(value >> 8 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 24 & 0xff)]
        }
        let key = Array(canonical.utf8)
        bytes += [UInt8(key.count & 0xff), UInt8(key.count >> 8 & 0xff)]
        bytes += key
        switch image.content {
        case .encoded(let data, _): bytes += data
        case .pixels(let buffer): bytes += buffer.bytes
        }
        return bytes
    }

    // MARK: Writing

    /// Stores a rendition: written to a temporary file, synced, renamed into place.
    ///
    /// - Throws: ``ImageError/cacheUnavailable(path:reason:)``; nothing is left behind.
    func store(_ image: RenderedImage, for key: RenditionKey) throws(ImageError) {
        let destination = url(for: key)
        let bytes = Self.encode(image, canonical: key.canonical)
        let temporary = incoming.appending(path: UUID().uuidString).path
        do {
            try FileManager.default.createDirectory(at: incoming, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .cacheUnavailable(path: directory.path, reason: "\(error)")
        }
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .cacheUnavailable(path: temporary, reason: String(cString: strerror(errno))) }
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if result < 0 && errno == EINTR { continue }
            if result <= 0 { break }
            written += result
        }
        let reason = written == bytes.count ? nil : String(cString: strerror(errno))
        close(descriptor)
        guard reason == nil, rename(temporary, destination.path) == 0 else {
            let failure = reason ?? String(cString: strerror(errno))
            unlink(temporary)
            throw .cacheUnavailable(path: destination.path, reason: failure)
        }
        let overBudget = index.withLock { index -> Bool in
            if index == nil { return false }
            index!.set(destination.path, bytes: Int64(bytes.count), lastUse: Date().timeIntervalSince1970)
            return index!.total > budget
        }
        if overBudget || isIndexMissing { evictIfNeeded() }
    }

    private var isIndexMissing: Bool { index.withLock { $0 == nil } }

    /// Marks a use: the file's modification time becomes now.
    private func touch(_ path: String) {
        utimensat(AT_FDCWD, path, nil, 0)
        index.withLock { index in
            guard index != nil, let entry = index!.entries[path] else { return }
            index!.set(path, bytes: entry.bytes, lastUse: Date().timeIntervalSince1970)
        }
    }

    // MARK: Eviction

    /// The bytes the cache holds (as last counted).
    var totalBytes: Int64 {
        loadIndexIfNeeded()
        return index.withLock { $0?.total ?? 0 }
    }

    /// Evicts least recently used renditions until the cache is within 90 % of its budget. Recounts the
    /// directory first (other processes write here too).
    ///
    /// - Complexity: O(n log n) in the number of renditions.
    func evictIfNeeded() {
        let scanned = scan()
        let evicted = index.withLock { index -> [String] in
            index = scanned
            guard scanned.total > budget else { return [] }
            var victims: [String] = []
            let goal = budget / 10 * 9
            for (path, entry) in scanned.entries.sorted(by: { $0.value.lastUse < $1.value.lastUse }) {
                if index!.total <= goal { break }
                index!.remove(path)
                victims.append(path)
                _ = entry
            }
            return victims
        }
        for path in evicted {
            unlink(path)
            rmdir(URL(fileURLWithPath: path).deletingLastPathComponent().path)  // only when empty
        }
    }

    private func loadIndexIfNeeded() {
        guard isIndexMissing else { return }
        let scanned = scan()
        index.withLock { if $0 == nil { $0 = scanned } }
    }

    /// Every rendition file with its size and last use.
    private func scan() -> Index {
        var result = Index()
        guard let walker = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.fileSizeKey, .contentModificationDateKey])
        else { return result }
        for case let url as URL in walker where url.pathExtension == "rnd" {
            let values = try? url.resourceValues(forKeys: [.fileSizeKey, .contentModificationDateKey])
            result.set(
                url.path, bytes: Int64(values?.fileSize ?? 0),
                lastUse: values?.contentModificationDate?.timeIntervalSince1970 ?? 0)
        }
        return result
    }

    /// Removes leftovers of renders that a crash interrupted (temporary files over an hour old).
    func removeStaleIncomingFiles() {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: incoming.path) else { return }
        let limit = Date().addingTimeInterval(-3600)
        for name in names {
            let path = incoming.appending(path: name).path
            if let date = (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date,
                date < limit
            {
                unlink(path)
            }
        }
    }
}

extension ImageOutputFormat {
    /// Parses the format field of a rendition key.
    init?(canonicalName name: String) {
        func quality(after prefix: String) -> Int? {
            name.hasPrefix(prefix) ? Int(name.dropFirst(prefix.count)) : nil
        }
        if name == "png" {
            self = .png
        } else if name == "rgba8" {
            self = .rgba8
        } else if let value = quality(after: "jpeg") {
            self = .jpeg(quality: value)
        } else if let value = quality(after: "webp") {
            self = .webp(quality: value)
        } else if let value = quality(after: "avif") {
            self = .avif(quality: value)
        } else {
            return nil
        }
    }
}
