import CServerIO
import Hummingbird
import NIOCore
import NIOPosix
#if canImport(Glibc)
import Glibc
#endif

/// A response body read from an open file without ever blocking an event loop or the cooperative pool: up to
/// ``wholeLimit`` in one buffer (the response is then written in one piece), larger ranges in chunks, so
/// that memory stays at one chunk however large the file. What the page cache holds already is read at once
/// (`preadv2` with `RWF_NOWAIT`: it never waits for the disk); anything else is read on NIO's blocking-I/O
/// thread pool.
enum FileBody {
    static let chunkSize = 256 * 1024
    static let wholeLimit = 1 << 20

    /// The bytes `range` of `file`.
    ///
    /// - Throws: ``APIError`` 503 when a small file can't be read whole (it shrank: being rewritten).
    static func make(_ file: OpenFile, range: ClosedRange<Int64>) async throws(APIError) -> ResponseBody {
        let length = Int(range.upperBound - range.lowerBound + 1)
        if length <= wholeLimit {
            do {
                let start = range.lowerBound
                if let cached = cachedRead(file, count: length, at: start) { return ResponseBody(byteBuffer: cached) }
                let buffer = try await NIOThreadPool.singleton.runIfActive { try read(file, count: length, at: start) }
                return ResponseBody(byteBuffer: buffer)
            } catch {
                throw APIError(.serviceUnavailable, "unavailable", "the file changed while it was being read; retry", headers: [.retryAfter: "2"])
            }
        }
        return ResponseBody(contentLength: length) { writer in
            var offset = range.lowerBound
            while offset <= range.upperBound {
                let count = Int(min(Int64(chunkSize), range.upperBound - offset + 1))
                let start = offset
                let chunk = try await NIOThreadPool.singleton.runIfActive { () throws -> ByteBuffer in
                    try read(file, count: count, at: start)
                }
                try await writer.write(chunk)
                offset += Int64(chunk.readableBytes)
            }
            try await writer.finish(nil)
        }
    }

    /// Exactly `count` bytes at `offset` if the page cache holds them all; nil if any would need the disk.
    private static func cachedRead(_ file: OpenFile, count: Int, at offset: Int64) -> ByteBuffer? {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var complete = true
        buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count) { pointer in
            var done = 0
            while done < count {
                let result = photosync_pread_cached(file.descriptor, pointer.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if result < 0 && errno == EINTR { continue }
                guard result > 0 else {
                    complete = false
                    break
                }
                done += result
            }
            return complete ? count : 0
        }
        return complete ? buffer : nil
    }

    /// Reads exactly `count` bytes at `offset` (a file that shrank meanwhile is an error: the response
    /// already promised its length).
    private static func read(_ file: OpenFile, count: Int, at offset: Int64) throws -> ByteBuffer {
        var buffer = ByteBufferAllocator().buffer(capacity: count)
        var done = 0
        while done < count {
            var result = 0
            let written = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: count - done) { pointer in
                result = pread(file.descriptor, pointer.baseAddress, count - done, off_t(offset) + off_t(done))
                return max(result, 0)
            }
            if result < 0 && errno == EINTR { continue }
            guard result > 0 else { throw FileChanged() }
            done += written
        }
        return buffer
    }

    /// The file ended before the length the response announced.
    struct FileChanged: Error, CustomStringConvertible {
        var description: String { "the file changed while it was being sent" }
    }
}
