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
    /// The byte budget (``RenditionCacheBudget``: stored with the cache, read again before each eviction);
    /// eviction brings the cache down to 90 % of it.
    var budget: Int64 { currentBudget.load(ordering: .relaxed) }
    private let currentBudget = Atomic<Int64>(RenditionCacheBudget.defaultBytes)
    private let storedBudget: RenditionCacheBudget
    private let root: URL
    private let incoming: URL
    /// `root`'s path, for building file paths without URL parsing.
    private let rootPath: String
    private let index = Mutex<Index?>(nil)
    /// Uses of this process that the files' modification times don't show (see ``touchInterval``).
    private let recentUses = Mutex<[String: Double]>([:])

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

    /// A hit on a file last used longer ago than this marks a use (its modification time becomes now); a
    /// more recent one doesn't, so that serving a hot rendition writes nothing. The LRU order is exact to
    /// this interval.
    static let touchInterval = 3600

    init(directory: URL) {
        self.directory = directory
        storedBudget = RenditionCacheBudget(directory: directory)
        root = directory.appending(path: "r\(RenditionKey.pipelineRevision)", directoryHint: .isDirectory)
        incoming = directory.appending(path: ".incoming", directoryHint: .isDirectory)
        rootPath = root.path
    }

    /// `r1/ab/<content hash>` (no URL is built: this is on the path of every hit).
    private func folderPath(for contentHash: String) -> String {
        rootPath + "/" + contentHash.prefix(2) + "/" + contentHash
    }

    func path(for key: RenditionKey) -> String { folderPath(for: key.contentHash) + "/" + key.fileName }

    // MARK: Reading

    /// The rendition stored for `key`, or nil. A hit counts as a use.
    ///
    /// - Complexity: an open, an fstat and one read of the file (and a `utimensat` when its last use is
    ///   older than ``touchInterval``).
    func lookup(_ key: RenditionKey) -> RenderedImage? {
        let path = path(for: key)
        guard let read = RenditionFile.read(path: path, key: key) else { return nil }
        touchIfStale(path, lastUse: read.lastUse)
        return read.image
    }

    /// Whether a rendition is stored for `key` (its file exists; not read).
    func contains(_ key: RenditionKey) -> Bool {
        access(path(for: key), F_OK) == 0
    }

    /// The largest stored rendition of the same kind as `key` (content, mode, crop, format), in any size
    /// that `accept` takes.
    ///
    /// - Complexity: one directory listing and a header read per rendition of that content.
    func lookupSibling(of key: RenditionKey, accepting accept: (PixelSize) -> Bool) -> RenderedImage? {
        let folder = folderPath(for: key.contentHash)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return nil }
        let kind = Self.kind(of: key.canonical)
        var best: (path: String, header: RenditionFile.Header)?
        for name in names where name.hasSuffix(".rnd") {
            let path = folder + "/" + name
            guard let header = RenditionFile.readHeader(path: path), Self.kind(of: header.canonical) == kind,
                accept(header.size)
            else { continue }
            if let current = best, current.header.size.width * current.header.size.height
                >= header.size.width * header.size.height
            {
                continue
            }
            best = (path, header)
        }
        guard let best, let format = ImageOutputFormat(canonicalName: Self.formatName(of: best.header.canonical)),
            let read = RenditionFile.read(path: best.path, canonical: Array(best.header.canonical.utf8), format: format),
            read.image.size == best.header.size
        else { return nil }
        touchIfStale(best.path, lastUse: read.lastUse)
        return read.image
    }

    /// The format field of a canonical key (its last).
    private static func formatName(of canonical: String) -> String {
        canonical.split(separator: "|").last.map(String.init) ?? ""
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

    // MARK: Writing

    /// Stores a rendition: written to a temporary file, synced, renamed into place.
    ///
    /// - Throws: ``ImageError/cacheUnavailable(path:reason:)``; nothing is left behind.
    func store(_ image: RenderedImage, for key: RenditionKey) throws(ImageError) {
        let destination = URL(fileURLWithPath: path(for: key))
        let bytes = RenditionFile.encode(image, key: key)
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

    /// Sets the budget of the cache, for every manager that shares it (this process's and others').
    ///
    /// - Throws: ``ImageError`` when the budget is not positive or can't be stored.
    func setBudget(_ bytes: Int64) throws(ImageError) {
        try storedBudget.store(bytes)
        currentBudget.store(bytes, ordering: .relaxed)
    }

    /// Reads the stored budget again (another process may have set it); the default when none is stored.
    func reloadBudget() {
        currentBudget.store(storedBudget.read() ?? RenditionCacheBudget.defaultBytes, ordering: .relaxed)
    }

    /// Marks a use (the file's modification time becomes now) unless the last one is recent.
    /// A more recent use is kept in memory, and counts at the next eviction.
    private func touchIfStale(_ path: String, lastUse: Int) {
        let now = Date().timeIntervalSince1970
        if Int(now) - lastUse >= Self.touchInterval { utimensat(AT_FDCWD, path, nil, 0) }
        recentUses.withLock { $0[path] = now }
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
        reloadBudget()
        var scanned = scan()
        let now = Date().timeIntervalSince1970
        let recent = recentUses.withLock { uses in
            uses = uses.filter { now - $0.value < Double(Self.touchInterval) }
            return uses
        }
        for (path, use) in recent {
            if let entry = scanned.entries[path], entry.lastUse < use { scanned.set(path, bytes: entry.bytes, lastUse: use) }
        }
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
