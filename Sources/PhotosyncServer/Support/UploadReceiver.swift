import Foundation
import Hummingbird
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// Streams an upload's body into a temporary file, never holding more than one chunk in memory, and stops
/// as soon as it passes the size limit (413; nothing is kept).
///
/// The file goes to `<library>/.uploads/<random>/<name>`, on the library's file system, under the name the
/// client gave: the library takes an original's name from its file. The caller removes the directory.
struct UploadReceiver: Sendable {
    let directory: URL
    let limit: Int64

    /// A received upload: the file and the directory to remove afterwards.
    struct Upload: Sendable {
        let file: URL
        let directory: URL
        let size: Int64

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    /// Checks a client's file name: 1 to 255 bytes, no `/`, no NUL, not `.` or `..`.
    static func validate(filename: String) throws(APIError) {
        guard (1...255).contains(filename.utf8.count), !filename.contains("/"), !filename.utf8.contains(0),
            filename != ".", filename != ".."
        else {
            throw .invalidRequest("\"filename\" must be a file name: 1 to 255 bytes, without '/' or NUL, not '.' or '..'")
        }
    }

    /// Receives `body` as `filename`.
    ///
    /// - Throws: ``APIError``: 413 past the limit, 507 when the disk is full, 500 when the file can't be
    ///   written; the body's own error when the client goes away.
    func receive(_ request: Request, filename: String) async throws -> Upload {
        if let declared = request.headers[.contentLength].flatMap({ Int64($0) }), declared > limit {
            throw tooLarge()
        }
        let folder = directory.appending(path: UUID().uuidString)
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw APIError(.internalServerError, "internal", "cannot store the upload: \(error.localizedDescription)")
        }
        let file = folder.appending(path: filename)
        let upload = Upload(file: file, directory: folder, size: 0)
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            upload.remove()
            throw APIError(.internalServerError, "internal", "cannot store the upload: \(String(cString: strerror(errno)))")
        }
        var size: Int64 = 0
        do {
            defer { close(descriptor) }
            for try await chunk in request.body {
                size += Int64(chunk.readableBytes)
                guard size <= limit else { throw tooLarge() }
                try await NIOThreadPool.singleton.runIfActive { try Self.write(chunk, to: descriptor) }
            }
        } catch {
            upload.remove()
            throw error
        }
        return Upload(file: file, directory: folder, size: size)
    }

    private func tooLarge() -> APIError {
        APIError(.contentTooLarge, "payloadTooLarge", "the upload is larger than this server's limit of \(limit) bytes (--max-upload-size)")
    }

    private static func write(_ chunk: ByteBuffer, to descriptor: Int32) throws {
        try chunk.withUnsafeReadableBytes { bytes in
            var done = 0
            while done < bytes.count {
                let n = Glibc.write(descriptor, bytes.baseAddress! + done, bytes.count - done)
                if n < 0 {
                    if errno == EINTR { continue }
                    let code = errno
                    if code == ENOSPC || code == EDQUOT {
                        throw APIError(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "unavailable", "not enough space for the upload")
                    }
                    throw APIError(.internalServerError, "internal", "cannot store the upload: \(String(cString: strerror(code)))")
                }
                done += n
            }
        }
    }
}
