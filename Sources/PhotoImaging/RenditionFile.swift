import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The file of one rendition: the magic `PSR1`, the pixel size (two little-endian UInt32), the length of the
/// key's canonical text (a little-endian UInt16), that text, then the encoded bytes or the RGBA8 pixels.
/// The text makes a file self-describing: a name collision is detected, never served.
enum RenditionFile {
    /// The header of a rendition file.
    struct Header: Hashable {
        let size: PixelSize
        let canonical: String
        var byteCount: Int { Self.fixedCount + canonical.utf8.count }

        /// Magic, width, height and key length.
        static let fixedCount = 14
    }

    static let magic: [UInt8] = Array("PSR1".utf8)

    /// A file read: its image, and when it was last used (its modification time, seconds since 1970).
    struct Read {
        let image: RenderedImage
        let lastUse: Int
    }

    /// Reads the rendition of `key` at `path`: one open, one fstat and one scatter read of the header and
    /// the payload into their own buffers (the payload straight into the result's storage). Nil when the file
    /// is missing, damaged, or holds another key.
    static func read(path: String, key: RenditionKey) -> Read? {
        read(path: path, canonical: key.canonicalBytes, format: key.format)
    }

    /// Reads the rendition at `path` whose key's canonical text is `canonical`, of `format`.
    static func read(path: String, canonical: [UInt8], format: ImageOutputFormat) -> Read? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        let headerCount = Header.fixedCount + canonical.count
        guard fstat(descriptor, &status) == 0, status.st_size >= headerCount else { return nil }
        let payloadCount = Int(status.st_size) - headerCount
        var header = [UInt8](repeating: 0, count: headerCount)
        var payload = Data(count: payloadCount)
        let count = header.withUnsafeMutableBytes { head in
            payload.withUnsafeMutableBytes { body in
                var vectors = [
                    iovec(iov_base: head.baseAddress, iov_len: headerCount), iovec(iov_base: body.baseAddress, iov_len: payloadCount),
                ]
                return preadv(descriptor, &vectors, 2, 0)
            }
        }
        guard count == Int(status.st_size), header[0..<4].elementsEqual(magic),
            Int(header[12]) | Int(header[13]) << 8 == canonical.count,
            header[Header.fixedCount...].elementsEqual(canonical)
        else { return nil }
        let size = PixelSize(width: word(header, at: 4), height: word(header, at: 8))
        guard let image = image(size: size, format: format, payload: payload) else { return nil }
        return Read(image: image, lastUse: status.st_mtim.tv_sec)
    }

    /// Reads a file's header only (one read of at most 512 bytes), for choosing among renditions.
    static func readHeader(path: String) -> Header? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 512)
        let count = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count >= Header.fixedCount, bytes[0..<4].elementsEqual(magic) else { return nil }
        let keyLength = Int(bytes[12]) | Int(bytes[13]) << 8
        guard count >= Header.fixedCount + keyLength else { return nil }
        let canonical = String(decoding: bytes[Header.fixedCount..<(Header.fixedCount + keyLength)], as: UTF8.self)
        return Header(size: PixelSize(width: word(bytes, at: 4), height: word(bytes, at: 8)), canonical: canonical)
    }

    /// The file's bytes for `image` under `key`.
    static func encode(_ image: RenderedImage, key: RenditionKey) -> [UInt8] {
        var bytes = magic
        for value in [image.size.width, image.size.height] {
            bytes += [UInt8(value & 0xff), UInt8(value >> 8 & 0xff), UInt8(value >> 16 & 0xff), UInt8(value >> 24 & 0xff)]
        }
        let canonical = key.canonicalBytes
        bytes += [UInt8(canonical.count & 0xff), UInt8(canonical.count >> 8 & 0xff)]
        bytes += canonical
        switch image.content {
        case .encoded(let data, _): bytes += data
        case .pixels(let buffer): bytes += buffer.bytes
        }
        return bytes
    }

    private static func word(_ bytes: [UInt8], at offset: Int) -> Int {
        Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
    }

    private static func image(size: PixelSize, format: ImageOutputFormat, payload: Data) -> RenderedImage? {
        guard format == .rgba8 else { return RenderedImage(content: .encoded(payload, format: format), size: size) }
        guard payload.count == size.width * size.height * 4 else { return nil }
        return RenderedImage(
            content: .pixels(PixelBuffer(width: size.width, height: size.height, bytes: Array(payload))), size: size)
    }
}
