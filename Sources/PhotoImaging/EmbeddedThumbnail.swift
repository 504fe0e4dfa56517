import CImagingGlue
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The thumbnail a file embeds, found without decoding the image: for a JPEG, its EXIF thumbnail (the
/// markers at the head of the file are walked to the APP1 "Exif" segment — one or a few small reads —
/// and libexif finds the thumbnail and the orientation in it); for HEIF, libvips reads its thumbnail item.
enum EmbeddedThumbnail {
    /// No thumbnail (or one of another shape than the image: letterboxed, or of something else).
    case none
    /// The stored JPEG thumbnail is the result as it is: upright, within the target, JPEG asked for.
    case ready(RenderedImage)
    /// A JPEG thumbnail that needs turning, resizing, cutting or encoding.
    case jpeg(Data, orientation: Int)
    /// A HEIF file: libvips reads its thumbnail.
    case heif

    /// Finds the thumbnail of the file at `source`. Blocking, but small: an open and a few reads of the
    /// file's first kilobytes.
    ///
    /// - Throws: the ``ImageError``s of opening the file.
    static func find(_ source: AssetSource, spec: RenderSpec) throws(ImageError) -> EmbeddedThumbnail {
        let file = try ImageFile(path: source.path)
        let head = JPEGMarkers(file: file)
        if head.isHEIF { return .heif }
        guard head.isJPEG, let exif = head.exifSegment(), let (stored, orientation) = parse(exif),
            let storedSize = JPEGMarkers(bytes: stored).frameSize
        else { return .none }
        // Same shape as the image (within 2 %), else it is letterboxed or of something else.
        guard let main = source.displayedSize.width > 0 ? source.displayedSize : head.frameSize(orientation: orientation),
            main.height > 0, storedSize.height > 0
        else { return .none }
        let size = orientation >= 5 ? PixelSize(width: storedSize.height, height: storedSize.width) : storedSize
        let ratio = Double(size.width * main.height) / Double(size.height * main.width)
        guard abs(ratio - 1) <= 0.02 else { return .none }
        if orientation == 1, case .jpeg = spec.format, let geometry = try? spec.geometry(for: size),
            !geometry.needsCut, geometry.outputSize == size
        {
            return .ready(RenderedImage(content: .encoded(stored, format: spec.format), size: size))
        }
        return .jpeg(stored, orientation: orientation)
    }

    /// The orientation and thumbnail of an APP1 "Exif" payload.
    private static func parse(_ exif: Data) -> (Data, Int)? {
        var orientation: Int32 = 1
        var thumbnail: UnsafeMutableRawPointer?
        var length = 0
        let status = exif.withUnsafeBytes { ci_exif_parse($0.baseAddress, $0.count, &orientation, &thumbnail, &length) }
        guard status == 0, let thumbnail else { return nil }
        defer { ci_free(thumbnail) }
        return (Data(bytes: thumbnail, count: length), Int(orientation))
    }
}

/// The markers at the head of a JPEG stream (read from a file, or from bytes in memory), up to the first
/// scan: where its EXIF segment is, and its frame size. Segments are read only as far as they are needed.
struct JPEGMarkers {
    private let read: (Int, Int) -> Data
    private let head: Data

    /// The first 64 KiB of `file` (usually every marker before the image data), more on demand.
    init(file: ImageFile) {
        let descriptor = file.descriptor
        read = { offset, count in
            var data = Data(count: count)
            let got = data.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
            return got > 0 ? data.prefix(got) : Data()
        }
        head = read(0, 65_536)
    }

    init(bytes: Data) {
        read = { offset, count in offset < bytes.count ? bytes.subdata(in: offset..<min(bytes.count, offset + count)) : Data() }
        head = bytes
    }

    var isJPEG: Bool { head.count >= 3 && head[head.startIndex] == 0xFF && head[head.startIndex + 1] == 0xD8 && head[head.startIndex + 2] == 0xFF }

    /// An ISO base media file whose brand is HEIF's or AVIF's.
    var isHEIF: Bool {
        guard head.count >= 12, head[(head.startIndex + 4)..<(head.startIndex + 8)].elementsEqual("ftyp".utf8) else { return false }
        let brand = String(decoding: head[(head.startIndex + 8)..<(head.startIndex + 12)], as: UTF8.self)
        return ["heic", "heix", "hevc", "heim", "heis", "mif1", "msf1", "avif", "avis"].contains(brand)
    }

    /// The payload of the first APP1 segment holding EXIF data ("Exif\0\0…"), or nil.
    func exifSegment() -> Data? {
        var found: Data?
        walk { marker, offset, length in
            guard marker == 0xE1, length >= 6 else { return true }
            let payload = bytes(at: offset, count: length)
            if payload.prefix(6).elementsEqual("Exif\0\0".utf8) {
                found = payload
                return false
            }
            return true
        }
        return found
    }

    /// The frame size as stored (SOF), turned by an EXIF orientation of 5–8; nil without a frame.
    func frameSize(orientation: Int = 1) -> PixelSize? {
        var size: PixelSize?
        walk { marker, offset, length in
            guard (0xC0...0xCF).contains(marker), ![0xC4, 0xC8, 0xCC].contains(marker), length >= 5 else { return true }
            let frame = bytes(at: offset, count: 5)
            guard frame.count == 5 else { return false }
            let bytes = Array(frame)
            let height = Int(bytes[1]) << 8 | Int(bytes[2]), width = Int(bytes[3]) << 8 | Int(bytes[4])
            size = orientation >= 5 ? PixelSize(width: height, height: width) : PixelSize(width: width, height: height)
            return false
        }
        return size
    }

    /// The frame size as stored.
    var frameSize: PixelSize? { frameSize() }

    /// Calls `visit(marker, payloadOffset, payloadLength)` for each segment before the first scan, while it
    /// returns true. At most 64 segments: a damaged stream can't make this loop long.
    private func walk(_ visit: (UInt8, Int, Int) -> Bool) {
        var offset = 2
        for _ in 0..<64 {
            let header = Array(bytes(at: offset, count: 4))
            guard header.count == 4, header[0] == 0xFF else { return }
            let marker = header[1]
            if marker == 0xFF { offset += 1; continue }  // fill byte
            if marker == 0xD8 || marker == 0x01 || (0xD0...0xD7).contains(marker) { offset += 2; continue }
            if marker == 0xDA || marker == 0xD9 { return }  // the image data, or the end
            let length = Int(header[2]) << 8 | Int(header[3])
            guard length >= 2, visit(marker, offset + 4, length - 2) else { return }
            offset += 2 + length
        }
    }

    private func bytes(at offset: Int, count: Int) -> Data {
        if offset >= 0, offset + count <= head.count { return head.subdata(in: (head.startIndex + offset)..<(head.startIndex + offset + count)) }
        return read(offset, count)
    }
}
