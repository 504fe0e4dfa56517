internal import CExif

/// An unsigned EXIF rational.
struct ExifRationalValue: Hashable {
    var numerator: UInt32
    var denominator: UInt32
    /// The value, or nil for a zero denominator.
    var value: Double? { denominator == 0 ? nil : Double(numerator) / Double(denominator) }
}

/// The raw EXIF values the probe uses, copied out of libexif before validation.
struct ExifValues {
    var make: String?
    var model: String?
    var orientation: Int?
    var dateTimeOriginal: String?
    var dateTimeDigitized: String?
    var dateTime: String?
    var subSecTimeOriginal: String?
    var subSecTimeDigitized: String?
    var subSecTime: String?
    var offsetTimeOriginal: String?
    var offsetTimeDigitized: String?
    var offsetTime: String?
    var pixelXDimension: Int?
    var pixelYDimension: Int?
    var userComment: String?
    var customRendered: Int?
    var gpsLatitude: [ExifRationalValue]?
    var gpsLatitudeRef: String?
    var gpsLongitude: [ExifRationalValue]?
    var gpsLongitudeRef: String?
    var gpsAltitude: [ExifRationalValue]?
    var gpsAltitudeRef: Int?
    var hasGPSIFD = false
    var makerNote: [UInt8]?
    /// How many entries libexif loaded in all.
    var entryCount = 0
    /// Whether the block is big-endian (`MM`); maker notes of some vendors follow it.
    var bigEndian = false

    /// Whether the camera that made the file identified itself.
    var hasCameraIdentity: Bool { make != nil || model != nil }
}

/// Reads EXIF through libexif. Nothing here parses EXIF by hand: libexif loads the block, and values are read
/// with `exif_content_get_entry` and `exif_get_short`/`exif_get_long`/`exif_get_rational` in the block's
/// byte order.
enum ExifReader {
    /// libexif considers at most this many bytes after the `Exif\0\0` header (the size of a JPEG APP1).
    static let maximumTIFFLength = 0xFFFE - 6

    private static let exifHeader: [UInt8] = Array("Exif".utf8) + [0, 0]

    /// Reads a TIFF-structured EXIF block (starting with `II*\0` or `MM\0*`), or one already prefixed with the
    /// `Exif\0\0` header (as in a JPEG APP1 segment or a WebP/HEIF Exif payload). Returns nil when libexif
    /// loads nothing.
    static func read(_ block: [UInt8]) -> ExifValues? {
        ParseArena.scoped { readInArena(block) }
    }

    private static func readInArena(_ block: [UInt8]) -> ExifValues? {
        guard let loaded = load(block) else { return nil }
        defer { exif_data_unref(loaded) }
        let ifds = loaded.pointee.ifd
        let order = exif_data_get_byte_order(loaded)
        var values = ExifValues()
        values.bigEndian = order == EXIF_BYTE_ORDER_MOTOROLA
        let ifd0 = IFDRef(content: ifds.0, order: order)
        let exif = IFDRef(content: ifds.2, order: order)
        let gps = IFDRef(content: ifds.3, order: order)
        extract(ifd0: ifd0, exif: exif, gps: gps, into: &values)
        values.entryCount = [ifds.0, ifds.1, ifds.2, ifds.3, ifds.4].reduce(0) { $0 + Int($1?.pointee.count ?? 0) }
        return values.entryCount > 0 ? values : nil
    }

    /// Reads EXIF split over separate TIFF blocks, each holding one IFD as its IFD0 (Canon CR3's CMT1, CMT2,
    /// CMT4 boxes).
    static func read(ifd0Block: [UInt8]?, exifBlock: [UInt8]?, gpsBlock: [UInt8]?) -> ExifValues? {
        ParseArena.scoped { readInArena(ifd0Block: ifd0Block, exifBlock: exifBlock, gpsBlock: gpsBlock) }
    }

    private static func readInArena(ifd0Block: [UInt8]?, exifBlock: [UInt8]?, gpsBlock: [UInt8]?) -> ExifValues? {
        let blocks = [ifd0Block, exifBlock, gpsBlock].map { $0.flatMap(load) }
        defer { blocks.forEach { if let data = $0 { exif_data_unref(data) } } }
        func ref(_ data: UnsafeMutablePointer<ExifData>?) -> IFDRef {
            IFDRef(content: data?.pointee.ifd.0, order: data.map { exif_data_get_byte_order($0) } ?? EXIF_BYTE_ORDER_INTEL)
        }
        var values = ExifValues()
        extract(ifd0: ref(blocks[0]), exif: ref(blocks[1]), gps: ref(blocks[2]), into: &values)
        values.entryCount = blocks.reduce(0) { $0 + Int($1?.pointee.ifd.0?.pointee.count ?? 0) }
        return values.entryCount > 0 ? values : nil
    }

    private static func load(_ block: [UInt8]) -> UnsafeMutablePointer<ExifData>? {
        // libexif wants the `Exif\0\0` header: blocks that have it (JPEG APP1, WebP, HEIF) are handed over in
        // place; bare TIFF structures get it prepended.
        if block.starts(with: exifHeader) {
            return block.withUnsafeBufferPointer { load(UnsafeBufferPointer(rebasing: $0.prefix(exifHeader.count + maximumTIFFLength))) }
        }
        let buffer = exifHeader + block.prefix(maximumTIFFLength)
        return buffer.withUnsafeBufferPointer { load($0) }
    }

    /// Loads a block with libexif, its objects in this thread's ``ParseArena`` (the caller's scope).
    private static func load(_ buffer: UnsafeBufferPointer<UInt8>) -> UnsafeMutablePointer<ExifData>? {
        guard buffer.count >= exifHeader.count + 8, let memory = exif_mem_new(
            { size in ParseArena.allocateInCurrent(Int(size), zeroed: true) },  // libexif's default is calloc
            { pointer, size in ParseArena.reallocateInCurrent(pointer, Int(size)) },
            { _ in })
        else { return nil }
        defer { exif_mem_unref(memory) }
        guard let data = exif_data_new_mem(memory) else { return nil }
        // Load what is there, nothing more: no invented "mandatory" entries, no dropped unknown tags.
        exif_data_unset_option(data, EXIF_DATA_OPTION_FOLLOW_SPECIFICATION)
        exif_data_unset_option(data, EXIF_DATA_OPTION_IGNORE_UNKNOWN_TAGS)
        exif_data_load_data(data, buffer.baseAddress, UInt32(buffer.count))
        return data
    }

    /// One IFD of a loaded block, with the block's byte order.
    private struct IFDRef {
        let content: UnsafeMutablePointer<ExifContent>?
        let order: ExifByteOrder

        func entry(_ tag: UInt32) -> UnsafeMutablePointer<ExifEntry>? {
            guard let content else { return nil }
            return exif_content_get_entry(content, ExifTag(rawValue: tag))
        }

        /// The raw bytes of an entry, bounded by what libexif allocated.
        func bytes(_ tag: UInt32) -> [UInt8]? {
            guard let entry = entry(tag), let data = entry.pointee.data, entry.pointee.size > 0 else { return nil }
            return Array(UnsafeBufferPointer(start: data, count: Int(min(entry.pointee.size, 1 << 20))))
        }

        func text(_ tag: UInt32) -> String? {
            guard let entry = entry(tag), [1, 2, 7].contains(entry.pointee.format.rawValue) else { return nil }
            return bytes(tag).flatMap(cleanText)
        }

        /// Unsigned integers of a BYTE, SHORT or LONG entry.
        func integers(_ tag: UInt32) -> [Int]? {
            guard let entry = entry(tag), let data = entry.pointee.data else { return nil }
            let format = entry.pointee.format
            let unit = Int(exif_format_get_size(format))
            guard unit > 0 else { return nil }
            let count = min(Int(entry.pointee.components), Int(entry.pointee.size) / unit, 16)
            guard count > 0 else { return nil }
            var values: [Int] = []
            for index in 0..<count {
                let pointer = data + index * unit
                switch format.rawValue {
                case 1, 7: values.append(Int(pointer.pointee))  // BYTE, UNDEFINED
                case 3: values.append(Int(exif_get_short(pointer, order)))  // SHORT
                case 4: values.append(Int(exif_get_long(pointer, order)))  // LONG
                case 9: values.append(Int(exif_get_slong(pointer, order)))  // SLONG
                default: return nil
                }
            }
            return values
        }

        func rationals(_ tag: UInt32) -> [ExifRationalValue]? {
            guard let entry = entry(tag), let data = entry.pointee.data else { return nil }
            let format = entry.pointee.format.rawValue
            guard format == 5 || format == 10 else { return nil }  // RATIONAL, SRATIONAL
            let count = min(Int(entry.pointee.components), Int(entry.pointee.size) / 8, 8)
            guard count > 0 else { return nil }
            return (0..<count).map { index in
                let pointer = data + index * 8
                if format == 5 {
                    let value = exif_get_rational(pointer, order)
                    return ExifRationalValue(numerator: value.numerator, denominator: value.denominator)
                }
                // A negative signed rational is nonsense for GPS parts: keep its magnitude out of range.
                let value = exif_get_srational(pointer, order)
                if value.numerator < 0 || value.denominator < 0 {
                    return ExifRationalValue(numerator: UInt32.max, denominator: 1)
                }
                return ExifRationalValue(numerator: UInt32(value.numerator), denominator: UInt32(value.denominator))
            }
        }
    }

    private enum Tag {
        static let make: UInt32 = 0x010F
        static let model: UInt32 = 0x0110
        static let orientation: UInt32 = 0x0112
        static let dateTime: UInt32 = 0x0132
        static let dateTimeOriginal: UInt32 = 0x9003
        static let dateTimeDigitized: UInt32 = 0x9004
        static let offsetTime: UInt32 = 0x9010
        static let offsetTimeOriginal: UInt32 = 0x9011
        static let offsetTimeDigitized: UInt32 = 0x9012
        static let makerNote: UInt32 = 0x927C
        static let userComment: UInt32 = 0x9286
        static let subSecTime: UInt32 = 0x9290
        static let subSecTimeOriginal: UInt32 = 0x9291
        static let subSecTimeDigitized: UInt32 = 0x9292
        static let pixelXDimension: UInt32 = 0xA002
        static let pixelYDimension: UInt32 = 0xA003
        static let customRendered: UInt32 = 0xA401
        static let gpsLatitudeRef: UInt32 = 0x0001
        static let gpsLatitude: UInt32 = 0x0002
        static let gpsLongitudeRef: UInt32 = 0x0003
        static let gpsLongitude: UInt32 = 0x0004
        static let gpsAltitudeRef: UInt32 = 0x0005
        static let gpsAltitude: UInt32 = 0x0006
    }

    private static func extract(ifd0: IFDRef, exif: IFDRef, gps: IFDRef, into values: inout ExifValues) {
        // Tags are looked up in the IFD the standard puts them in, then in the other one of IFD0/Exif IFD
        // (some writers misplace them).
        func text(_ tag: UInt32, primary: IFDRef, secondary: IFDRef) -> String? {
            primary.text(tag) ?? secondary.text(tag)
        }
        values.make = text(Tag.make, primary: ifd0, secondary: exif)
        values.model = text(Tag.model, primary: ifd0, secondary: exif)
        values.orientation = (ifd0.integers(Tag.orientation) ?? exif.integers(Tag.orientation))?.first
        values.dateTimeOriginal = text(Tag.dateTimeOriginal, primary: exif, secondary: ifd0)
        values.dateTimeDigitized = text(Tag.dateTimeDigitized, primary: exif, secondary: ifd0)
        values.dateTime = text(Tag.dateTime, primary: ifd0, secondary: exif)
        values.subSecTimeOriginal = text(Tag.subSecTimeOriginal, primary: exif, secondary: ifd0)
        values.subSecTimeDigitized = text(Tag.subSecTimeDigitized, primary: exif, secondary: ifd0)
        values.subSecTime = text(Tag.subSecTime, primary: exif, secondary: ifd0)
        values.offsetTimeOriginal = text(Tag.offsetTimeOriginal, primary: exif, secondary: ifd0)
        values.offsetTimeDigitized = text(Tag.offsetTimeDigitized, primary: exif, secondary: ifd0)
        values.offsetTime = text(Tag.offsetTime, primary: exif, secondary: ifd0)
        values.pixelXDimension = exif.integers(Tag.pixelXDimension)?.first
        values.pixelYDimension = exif.integers(Tag.pixelYDimension)?.first
        values.customRendered = exif.integers(Tag.customRendered)?.first
        values.userComment = (exif.bytes(Tag.userComment) ?? ifd0.bytes(Tag.userComment)).flatMap(decodeUserComment)
        values.makerNote = exif.bytes(Tag.makerNote)
        if let content = gps.content, content.pointee.count > 0 {
            values.hasGPSIFD = true
            values.gpsLatitude = gps.rationals(Tag.gpsLatitude)
            values.gpsLatitudeRef = gps.text(Tag.gpsLatitudeRef)
            values.gpsLongitude = gps.rationals(Tag.gpsLongitude)
            values.gpsLongitudeRef = gps.text(Tag.gpsLongitudeRef)
            values.gpsAltitude = gps.rationals(Tag.gpsAltitude)
            values.gpsAltitudeRef = gps.integers(Tag.gpsAltitudeRef)?.first
        }
    }

    /// Decodes a UserComment: an 8-byte character code (`ASCII`, `UNICODE`, `JIS`, or undefined) then the
    /// text. UNICODE is UCS-2; its byte order is guessed from the zero bytes (writers disagree).
    static func decodeUserComment(_ bytes: [UInt8]) -> String? {
        guard bytes.count > 8 else { return cleanText(bytes) }
        let code = bytes.prefix(8)
        let body = Array(bytes.dropFirst(8))
        if code.starts(with: Array("UNICODE".utf8)) {
            let pairs = body.count / 2
            guard pairs > 0 else { return nil }
            let evenZeros = stride(from: 0, to: pairs * 2, by: 2).filter { body[$0] == 0 }.count
            let bigEndian = evenZeros * 2 >= pairs
            let units = (0..<pairs).map { index -> UInt16 in
                let a = UInt16(body[index * 2]), b = UInt16(body[index * 2 + 1])
                return bigEndian ? a << 8 | b : b << 8 | a
            }
            let text = String(decoding: units.prefix { $0 != 0 }, as: UTF16.self)
            return cleanText(Array(text.utf8))
        }
        // ASCII, JIS (rare; decoded as if ASCII) and undefined (all zero) codes: the body is the text. Without
        // a known code (a writer that skipped it), the whole value is the text.
        let known = code.starts(with: Array("ASCII".utf8)) || code.starts(with: Array("JIS".utf8))
            || code.allSatisfy { $0 == 0 || $0 == 0x20 }
        return known ? cleanText(body.drop { $0 == 0 }) : cleanText(bytes)
    }
}
