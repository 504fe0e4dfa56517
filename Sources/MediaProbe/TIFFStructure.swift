/// TIFF tags this module reads itself: only structural ones, to classify TIFF-based files and find the main
/// image's size. Everything EXIF (dates, GPS, camera) is read through libexif.
enum TIFFTag {
    static let newSubfileType: UInt16 = 0x00FE
    static let imageWidth: UInt16 = 0x0100
    static let imageLength: UInt16 = 0x0101
    static let subIFDs: UInt16 = 0x014A
    /// XMLPacket: the XMP packet (BYTE or UNDEFINED).
    static let xmp: UInt16 = 0x02BC
    static let dngVersion: UInt16 = 0xC612
    static let defaultCropSize: UInt16 = 0xC620
}

/// One 12-byte IFD entry, its value field kept raw.
struct TIFFEntry {
    let tag: UInt16
    let type: UInt16
    let count: UInt32
    /// The 4-byte value-or-offset field, in file order.
    let field: [UInt8]
}

/// One image file directory.
struct TIFFDirectory {
    let offset: Int64
    let entries: [TIFFEntry]
    let nextOffset: UInt32

    func entry(_ tag: UInt16) -> TIFFEntry? { entries.first { $0.tag == tag } }
}

/// A minimal reader of TIFF structure (IFDs and their integer values), bounded and loop-safe. Offsets are
/// relative to `base` (0 for a TIFF file; the start of a maker note for maker-note IFDs).
struct TIFFStructure {
    let reader: BoundedReader
    let bigEndian: Bool
    var base: Int64 = 0

    /// The most entries read from one IFD; real files have a few dozen.
    static let maxEntries = 1024

    func directory(at offset: Int64) -> TIFFDirectory? {
        let absolute = base + offset
        guard offset >= 0, let countBytes = reader.readExactly(at: absolute, count: 2),
            let count = ByteView(countBytes).u16(0, bigEndian: bigEndian), count > 0
        else { return nil }
        let available = max(0, (reader.size - absolute - 2) / 12)
        let n = Int(min(Int64(min(Int(count), Self.maxEntries)), available))
        guard n > 0 else { return nil }
        let view = ByteView(reader.read(at: absolute + 2, count: n * 12 + 4))
        var entries: [TIFFEntry] = []
        entries.reserveCapacity(n)
        for index in 0..<n {
            let at = index * 12
            guard let tag = view.u16(at, bigEndian: bigEndian), let type = view.u16(at + 2, bigEndian: bigEndian),
                let count = view.u32(at + 4, bigEndian: bigEndian), let field = view.slice(at + 8, 4)
            else { break }
            entries.append(TIFFEntry(tag: tag, type: type, count: count, field: field))
        }
        let next = Int(count) == n ? view.u32(n * 12, bigEndian: bigEndian) ?? 0 : 0
        return TIFFDirectory(offset: offset, entries: entries, nextOffset: next)
    }

    /// Byte size of one value of a TIFF field type (0 for unknown types).
    static func typeSize(_ type: UInt16) -> Int {
        switch type {
        case 1, 2, 6, 7: 1  // BYTE, ASCII, SBYTE, UNDEFINED
        case 3, 8: 2  // SHORT, SSHORT
        case 4, 9, 11, 13: 4  // LONG, SLONG, FLOAT, IFD
        case 5, 10, 12, 16, 17, 18: 8  // RATIONAL, SRATIONAL, DOUBLE, LONG8, SLONG8, IFD8
        default: 0
        }
    }

    /// The raw bytes of an entry's values (at most `limit` bytes), inline or out of line.
    func valueBytes(_ entry: TIFFEntry, limit: Int = 4096) -> [UInt8] {
        let unit = Self.typeSize(entry.type)
        guard unit > 0 else { return [] }
        let total = min(Int64(entry.count) * Int64(unit), Int64(limit))
        guard total > 0 else { return [] }
        if Int64(entry.count) * Int64(unit) <= 4 { return Array(entry.field.prefix(Int(total))) }
        guard let offset = ByteView(entry.field).u32(0, bigEndian: bigEndian) else { return [] }
        return reader.read(at: base + Int64(offset), count: Int(total))
    }

    /// The integer values of a BYTE, SHORT, LONG, SLONG (bit pattern) or IFD entry (at most `limit`).
    func integers(_ entry: TIFFEntry, limit: Int = 64) -> [UInt32] {
        let unit = Self.typeSize(entry.type)
        guard [1, 3, 4, 9, 13].contains(entry.type) else { return [] }
        let view = ByteView(valueBytes(entry, limit: limit * unit))
        var values: [UInt32] = []
        var at = 0
        while at + unit <= view.count, values.count < limit {
            switch unit {
            case 1: values.append(UInt32(view.u8(at)!))
            case 2: values.append(UInt32(view.u16(at, bigEndian: bigEndian)!))
            default: values.append(view.u32(at, bigEndian: bigEndian)!)
            }
            at += unit
        }
        return values
    }

    /// The text of an ASCII or UNDEFINED entry.
    func text(_ entry: TIFFEntry, limit: Int = 1024) -> String? {
        guard entry.type == 2 || entry.type == 7 || entry.type == 1 else { return nil }
        return cleanText(valueBytes(entry, limit: limit))
    }

    /// The size of the main (full-resolution) image of a TIFF or TIFF-based raw file: among IFD0, the IFDs
    /// chained after it and their SubIFDs, the largest one not marked as a reduced-resolution image
    /// (NewSubfileType bit 0). A DNG raw IFD's DefaultCropSize wins over its full sensor size.
    func mainImageSize(firstIFD: Int64) -> (width: Int, height: Int)? {
        var visited: Set<Int64> = []
        var queue: [Int64] = [firstIFD]
        var best: (width: Int, height: Int)?
        var chained = 0
        while let offset = queue.first, visited.count < 32 {
            queue.removeFirst()
            guard offset >= 8, visited.insert(offset).inserted, let ifd = directory(at: offset) else { continue }
            if ifd.nextOffset != 0, chained < 8 {
                chained += 1
                queue.append(Int64(ifd.nextOffset))
            }
            if let sub = ifd.entry(TIFFTag.subIFDs) {
                queue.append(contentsOf: integers(sub, limit: 8).map(Int64.init))
            }
            if let kind = ifd.entry(TIFFTag.newSubfileType), let flags = integers(kind).first, flags & 1 == 1 {
                continue  // a reduced-resolution image (thumbnail, preview)
            }
            var width = ifd.entry(TIFFTag.imageWidth).flatMap { integers($0).first }.map(Int.init)
            var height = ifd.entry(TIFFTag.imageLength).flatMap { integers($0).first }.map(Int.init)
            if let crop = ifd.entry(TIFFTag.defaultCropSize), [3, 4].contains(crop.type) {
                let values = integers(crop, limit: 2)
                if values.count == 2, values[0] > 0, values[1] > 0 {
                    width = Int(values[0])
                    height = Int(values[1])
                }
            }
            guard let width, let height, width > 0, height > 0 else { continue }
            if best == nil || width * height > best!.width * best!.height {
                best = (width, height)
            }
        }
        return best
    }
}
