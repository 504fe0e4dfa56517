import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The rendition cache's byte budget, stored with the cache (`renditions/budget`, the number in decimal), so
/// that every manager sharing the cache — the daemon's, the HTTP server's, an app's — evicts to one budget:
/// a manager configured with a smaller budget sets it for all of them rather than evicting their renditions
/// under a limit of its own.
struct RenditionCacheBudget: Sendable {
    /// The budget of a cache that never had one set: 1 GiB.
    static let defaultBytes: Int64 = 1 << 30

    let file: URL

    init(directory: URL) {
        file = directory.appending(path: "budget", directoryHint: .notDirectory)
    }

    /// The stored budget; nil when none was set (or the file is not a positive number).
    func read() -> Int64? {
        guard let data = FileManager.default.contents(atPath: file.path),
            let text = String(data: data, encoding: .utf8),
            let bytes = Int64(text.trimmingCharacters(in: .whitespacesAndNewlines)), bytes > 0
        else { return nil }
        return bytes
    }

    /// Stores `bytes` as the budget (written to a temporary file and renamed over the old one, so that a reader
    /// sees the old budget or the new one).
    ///
    /// - Throws: ``ImageError/invalidRequest(_:)`` for a budget that is not positive,
    ///   ``ImageError/cacheUnavailable(path:reason:)`` when the file can't be written.
    func store(_ bytes: Int64) throws(ImageError) {
        guard bytes > 0 else { throw .invalidRequest("the rendition cache's budget must be above 0 bytes (it was \(bytes))") }
        let temporary = file.path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: Data("\(bytes)\n".utf8)) else {
            throw .cacheUnavailable(path: temporary, reason: String(cString: strerror(errno)))
        }
        guard rename(temporary, file.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .cacheUnavailable(path: file.path, reason: reason)
        }
    }
}
