internal import CHeif
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What libheif says about the primary image of a HEIF (HEIC, AVIF) file.
struct HEIFImage {
    /// The displayed size: the `ispe` size after the primary image's transformative properties, in their
    /// order — `clap` (clean aperture crop), `irot` (rotation), `imir` (mirror).
    var width: Int
    var height: Int
    /// The `ispe` size (before the transforms).
    var storedWidth: Int
    var storedHeight: Int
    /// The primary item's ID.
    var itemID: UInt32
    /// The primary image's Exif block (the `Exif` item, after its 4-byte TIFF header offset).
    var exifBlock: [UInt8]?
    /// The primary image's XMP packet (the `mime` item of content type `application/rdf+xml`).
    var xmp: [UInt8]?
}

/// Reads HEIF and AVIF files through libheif (Debian `libheif-dev`): the file's structure, the primary
/// image, its displayed size (crop and rotation included) and its metadata items.
///
/// libheif reads through a bounded reader over the probe's file: box headers, the metadata items and — for a
/// primary image that is a single coded item rather than a grid of tiles (what libheif and ImageMagick write;
/// not iPhones, whose primary images are grids) — that item's coded data, which libheif 1.15 loads while
/// interpreting the file. Its byte budget is therefore twice the file size (at least the probe's usual
/// 16 MiB), its read budget the probe's usual one.
///
/// libheif 1.15 (Debian 12) has no API for the transform properties themselves (`heif_properties.h` came in
/// 1.16): the EXIF-equivalent orientation is read from `irot`/`imir` by ``HEIFTransforms``.
struct HEIFReader {
    let context: ProbeContext

    /// The most bytes read from one metadata item.
    static let itemLimit = 256 * 1024

    /// The primary image, or nil with a problem noted (malformed, truncated, or beyond a limit).
    func read() -> HEIFImage? {
        HEIFLibrary.initialize()
        guard let heif = heif_context_alloc() else {
            context.note(.limitReached, "HEIF", "libheif could not allocate a context")
            return nil
        }
        defer { heif_context_free(heif) }
        let budget = max(BoundedReader.defaultByteBudget, Int(min(context.reader.size, Int64(Int32.max))) * 2)
        let reader = BoundedReader(context.reader.source, byteBudget: budget)
        defer { if reader.exhausted { context.note(.limitReached, "HEIF", "libheif's read budget exhausted") } }
        let stream = HEIFStream(reader: reader)
        let unmanaged = Unmanaged.passRetained(stream)
        defer { unmanaged.release() }
        var callbacks = HEIFStream.callbacks
        guard check(heif_context_read_from_reader(heif, &callbacks, unmanaged.toOpaque(), nil)) else { return nil }
        var primaryID: heif_item_id = 0
        var handle: OpaquePointer?
        guard check(heif_context_get_primary_image_ID(heif, &primaryID)),
            check(heif_context_get_primary_image_handle(heif, &handle)), let handle
        else { return nil }
        defer { heif_image_handle_release(handle) }
        var image = HEIFImage(
            width: Int(heif_image_handle_get_width(handle)), height: Int(heif_image_handle_get_height(handle)),
            storedWidth: Int(heif_image_handle_get_ispe_width(handle)),
            storedHeight: Int(heif_image_handle_get_ispe_height(handle)), itemID: primaryID)
        image.exifBlock = exif(of: handle)
        image.xmp = xmp(of: handle)
        return image
    }

    /// The first Exif item of the image, without its 4-byte offset to the TIFF header (and what it skips).
    private func exif(of handle: OpaquePointer) -> [UInt8]? {
        var id: heif_item_id = 0
        guard heif_image_handle_get_list_of_metadata_block_IDs(handle, "Exif", &id, 1) == 1,
            let data = metadata(id, of: handle, field: "Exif item")
        else { return nil }
        let view = ByteView(data)
        guard let skip = view.u32(0), Int64(skip) + 4 < Int64(data.count) else {
            context.note(.malformed, "Exif item", "bad TIFF header offset")
            return nil
        }
        return Array(data[(4 + Int(skip))...])
    }

    /// The first XMP packet of the image (a `mime` item of type `application/rdf+xml`).
    private func xmp(of handle: OpaquePointer) -> [UInt8]? {
        let count = Int(heif_image_handle_get_number_of_metadata_blocks(handle, "mime"))
        guard count > 0 else { return nil }
        var ids = [heif_item_id](repeating: 0, count: min(count, 16))
        let filled = Int(heif_image_handle_get_list_of_metadata_block_IDs(handle, "mime", &ids, Int32(ids.count)))
        for id in ids.prefix(filled) {
            guard let type = heif_image_handle_get_metadata_content_type(handle, id),
                strncmp(type, "application/rdf+xml", 19) == 0
            else { continue }
            return metadata(id, of: handle, field: "XMP item")
        }
        return nil
    }

    private func metadata(_ id: heif_item_id, of handle: OpaquePointer, field: String) -> [UInt8]? {
        let size = heif_image_handle_get_metadata_size(handle, id)
        guard size > 0 else { return nil }
        guard size <= Self.itemLimit else {
            context.note(.limitReached, field, "\(size) bytes")
            return nil
        }
        var data = [UInt8](repeating: 0, count: size)
        guard check(heif_image_handle_get_metadata(handle, id, &data)) else { return nil }
        return data
    }

    /// Notes a libheif error as a problem; true when there was none.
    private func check(_ error: heif_error) -> Bool {
        guard error.code != heif_error_Ok else { return true }
        let message = error.message.map { String(cString: $0) } ?? "libheif error \(error.code.rawValue)"
        switch (error.code, error.subcode) {
        case (_, heif_suberror_End_of_data):
            context.note(.truncated, "HEIF", message)
        case (heif_error_Memory_allocation_error, _), (_, heif_suberror_Security_limit_exceeded):
            context.note(.limitReached, "HEIF", message)
        default:
            context.note(.malformed, "HEIF", message)
        }
        return false
    }
}

/// libheif's one-time initialisation (reference-counted by libheif; done once per process, never undone).
enum HEIFLibrary {
    private static let initialized: Bool = {
        heif_init(nil).code == heif_error_Ok
    }()

    static func initialize() { _ = initialized }
}

/// The probe's bounded reader as a libheif `heif_reader`: a position over it.
final class HEIFStream {
    let reader: BoundedReader
    var position: Int64 = 0

    init(reader: BoundedReader) { self.reader = reader }

    static let callbacks = heif_reader(
        reader_api_version: 1,
        get_position: { userData in stream(userData).position },
        read: { data, size, userData in
            let this = stream(userData)
            guard size > 0 else { return 0 }
            guard let data, Int64(size) <= this.reader.size - this.position else { return 1 }
            let got = this.reader.read(at: this.position, into: UnsafeMutableRawBufferPointer(start: data, count: size))
            this.position += Int64(got)
            return got == size ? 0 : 1
        },
        seek: { position, userData in
            let this = stream(userData)
            guard position >= 0, position <= this.reader.size else { return 1 }
            this.position = position
            return 0
        },
        wait_for_file_size: { target, userData in
            target <= stream(userData).reader.size
                ? heif_reader_grow_status_size_reached : heif_reader_grow_status_size_beyond_eof
        })

    private static func stream(_ userData: UnsafeMutableRawPointer?) -> HEIFStream {
        Unmanaged<HEIFStream>.fromOpaque(userData!).takeUnretainedValue()
    }
}
