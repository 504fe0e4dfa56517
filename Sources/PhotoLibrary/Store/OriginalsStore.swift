import ContentHash
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The content-addressed store of imported files: `originals/ab/abcdef…` where the name is the file's
/// XXH3-128. Identical files are stored once.
///
/// Files are written before the transaction that references them commits (so a committed asset always has
/// its bytes) and removed only after the transaction that stops referencing them has committed. A crash in
/// between leaves at most an unreferenced file, which ``PhotoLibrary/removeUnreferencedOriginals()`` removes.
struct OriginalsStore: Sendable {
    let directory: URL

    func prepare() throws {
        try FileManager.default.createDirectory(
            at: directory.appending(path: ".incoming"), withIntermediateDirectories: true)
    }

    func url(forHash hash: String) -> URL {
        directory.appending(path: String(hash.prefix(2))).appending(path: hash)
    }

    /// Copies a file into the store, hashing it on the way through one fixed buffer.
    ///
    /// - Returns: the content hash and the size in bytes.
    /// - Throws: ``PhotoLibraryError/fileUnreadable(path:reason:)`` when the source can't be read,
    ///   ``PhotoLibraryError/notEnoughSpace`` or ``PhotoLibraryError/storageUnavailable(path:reason:)`` when
    ///   the copy can't be written. Nothing is left behind on failure.
    func importFile(atPath source: String) throws(PhotoLibraryError) -> (hash: String, size: Int64) {
        let input = open(source, O_RDONLY | O_CLOEXEC)
        guard input >= 0 else { throw .fileUnreadable(path: source, reason: String(cString: strerror(errno))) }
        defer { close(input) }
        let temporary = directory.appending(path: ".incoming/\(UUID().uuidString)").path
        let output = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard output >= 0 else { throw Self.writeError(errno, path: temporary) }
        var keep = false
        defer {
            close(output)
            if !keep { unlink(temporary) }
        }
        var hasher = ContentHasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 64)
        defer { buffer.deallocate() }
        var size: Int64 = 0
        while true {
            let count = read(input, buffer.baseAddress, buffer.count)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw .fileUnreadable(path: source, reason: String(cString: strerror(errno)))
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            var written = 0
            while written < count {
                let result = write(output, buffer.baseAddress! + written, count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    throw Self.writeError(errno, path: temporary)
                }
                written += result
            }
            size += Int64(count)
        }
        guard fsync(output) == 0 else { throw Self.writeError(errno, path: temporary) }
        let hash = hasher.finalize().description
        let destination = url(forHash: hash)
        if FileManager.default.fileExists(atPath: destination.path) {
            return (hash, size)  // Already stored: identical content is kept once.
        }
        do {
            try FileManager.default.createDirectory(
                at: destination.deletingLastPathComponent(), withIntermediateDirectories: true)
        } catch {
            throw .storageUnavailable(path: destination.path, reason: PhotoLibrary.reason(error))
        }
        guard rename(temporary, destination.path) == 0 else { throw Self.writeError(errno, path: destination.path) }
        keep = true
        let parent = open(destination.deletingLastPathComponent().path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if parent >= 0 {
            fsync(parent)
            close(parent)
        }
        return (hash, size)
    }

    func remove(hash: String) {
        unlink(url(forHash: hash).path)
    }

    private static func writeError(_ code: Int32, path: String) -> PhotoLibraryError {
        if code == ENOSPC || code == EDQUOT { return .notEnoughSpace }
        return .storageUnavailable(path: path, reason: String(cString: strerror(code)))
    }
}
