import Foundation
import PhotoLibrary
#if canImport(Glibc)
import Glibc
#endif

/// An open regular file, closed when the last reference goes.
final class OpenFile: Sendable {
    let descriptor: Int32
    let size: Int64

    init(descriptor: Int32, size: Int64) {
        self.descriptor = descriptor
        self.size = size
    }

    deinit { close(descriptor) }
}

/// Opens the files the API serves, and only those: a file inside the library's `originals/` store or inside
/// one of its mirrored folders.
///
/// No request path ever names a file: routes name objects, and the path comes from the library. Still, a
/// mirrored folder is the user's: a symbolic link planted in it (or a directory replaced by one) could point
/// anywhere. So a file is opened without following a final symbolic link (`O_NOFOLLOW`), must be a regular
/// file, and the path the kernel reports for the open descriptor (`/proc/self/fd/N`: every symbolic link
/// along the way resolved, no race between the check and the read) must lie inside one of the allowed
/// roots, themselves resolved.
struct LibraryFiles: Sendable {
    let library: PhotoLibrary

    /// Opens the original of `asset` for reading, if it lies inside `roots` (resolved: see ``HeadCache``).
    ///
    /// - Throws: ``APIError``: 404 when the asset has no file, the file is gone, or it lies outside the
    ///   library and its mirrored folders (which a client can't tell from a missing file).
    func openOriginal(of asset: Asset, roots: [String]) throws(APIError) -> OpenFile {
        guard let url = asset.fileURL(in: library) else { throw .notFound("asset \(asset.localIdentifier) has no original file") }
        return try open(url.path, roots: roots, what: "the original of asset \(asset.localIdentifier)")
    }

    /// Opens `path` if it is a regular file inside `roots`.
    func open(_ path: String, roots: [String], what: String) throws(APIError) -> OpenFile {
        guard !path.utf8.contains(0) else { throw .notFound("\(what) is not available") }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY)
        guard descriptor >= 0 else { throw .notFound("\(what) is not available (\(String(cString: strerror(errno))))") }
        let file = OpenFile(descriptor: descriptor, size: Self.size(of: descriptor) ?? -1)
        guard file.size >= 0, let real = Self.path(of: descriptor), Self.isInside(real, roots: roots) else {
            throw .notFound("\(what) is not available")
        }
        return file
    }

    /// Whether two open files are the same file (device and inode).
    static func sameFile(_ first: OpenFile, _ second: OpenFile) -> Bool {
        var a = stat(), b = stat()
        guard fstat(first.descriptor, &a) == 0, fstat(second.descriptor, &b) == 0 else { return false }
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino
    }

    /// The size of a regular file; nil for anything else.
    private static func size(of descriptor: Int32) -> Int64? {
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// The path the kernel knows an open descriptor by.
    private static func path(of descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func isInside(_ path: String, roots: [String]) -> Bool {
        roots.contains { root in path.hasPrefix(root.hasSuffix("/") ? root : root + "/") }
    }

    /// `path` with every symbolic link resolved; nil when it doesn't exist.
    static func resolved(_ path: String) -> String? {
        guard let pointer = realpath(path, nil) else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
