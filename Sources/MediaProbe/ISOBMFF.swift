/// One ISO base media (QuickTime) box, located in the file; its payload is read on demand.
struct Box {
    let type: UInt32
    let start: Int64
    let payloadStart: Int64
    let end: Int64
    /// The 16-byte extended type of a `uuid` box.
    var userType: [UInt8]?

    var payloadSize: Int64 { end - payloadStart }
    var name: String { fourCCString(type) }
}

/// Walks boxes by their headers, seeking (never reading whole boxes). Handles 32- and 64-bit sizes, size 0
/// ("to the end") and `uuid` boxes; clamps boxes that claim to extend past their parent or the file, noting
/// a `truncated` problem; stops on sizes smaller than a header.
struct BoxWalker {
    let context: ProbeContext
    var reader: BoundedReader { context.reader }

    static let maxDepth = 12

    /// The boxes directly inside `[start, end)`.
    func children(from start: Int64, to end: Int64, path: String) -> [Box] {
        var boxes: [Box] = []
        var offset = start
        let limit = min(end, reader.size)
        if end > reader.size, !path.isEmpty {
            context.note(.truncated, path, "ends past the end of the file")
        }
        while offset <= limit - 8 {
            guard context.visitElement() else { break }
            guard let (size32, type) = reader.readHeaderWords(at: offset) else { break }
            var headerSize: Int64 = 8
            var size: Int64
            switch size32 {
            case 0:
                size = limit - offset
            case 1:
                guard let large = reader.readExactly(at: offset + 8, count: 8).flatMap({ ByteView($0).u64(0) })
                else {
                    context.note(.truncated, join(path, fourCCString(type)), "64-bit size cut off")
                    return boxes
                }
                headerSize = 16
                size = large > UInt64(Int64.max) ? Int64.max : Int64(large)
            default:
                size = Int64(size32)
            }
            var userType: [UInt8]?
            if type == fourCC("uuid") {
                userType = reader.readExactly(at: offset + headerSize, count: 16)
                headerSize += 16
            }
            guard size >= headerSize else {
                context.note(.malformed, join(path, fourCCString(type)), "box size \(size) is smaller than its header")
                break
            }
            var boxEnd = size > limit - offset ? limit : offset + size
            if size > end - offset || (type == fourCC("uuid") && userType == nil) {
                context.note(
                    .truncated, join(path, fourCCString(type)),
                    "box of \(size) bytes at \(offset) ends past its container or the file")
                boxEnd = limit
            }
            guard boxEnd >= offset + headerSize else { break }
            boxes.append(Box(type: type, start: offset, payloadStart: offset + headerSize, end: boxEnd, userType: userType))
            offset = boxEnd
        }
        return boxes
    }

    /// The first child of the given type.
    func child(_ type: StaticString, of box: Box, path: String, skipping headerBytes: Int64 = 0) -> Box? {
        children(from: box.payloadStart + headerBytes, to: box.end, path: path).first { $0.type == fourCC(type) }
    }

    /// A box's payload, at most `limit` bytes (nil when the file has fewer than `minimum`).
    func payload(_ box: Box, limit: Int = 1 << 16, minimum: Int = 0) -> ByteView? {
        let count = Int(min(box.payloadSize, Int64(limit)))
        let bytes = reader.read(at: box.payloadStart, count: count)
        guard bytes.count >= minimum else {
            context.note(.truncated, box.name, "payload shorter than \(minimum) bytes")
            return nil
        }
        return ByteView(bytes)
    }

    /// Whether a `meta` box is a full box (ISO: version and flags first) or a plain container (QuickTime):
    /// QuickTime's starts directly with a child box header such as `hdlr`.
    func metaChildrenStart(_ meta: Box) -> Int64 {
        let peek = ByteView(reader.read(at: meta.payloadStart, count: 8))
        if peek.matches("hdlr", at: 4) || peek.matches("keys", at: 4) || peek.matches("ilst", at: 4) {
            return meta.payloadStart
        }
        return meta.payloadStart + 4
    }
}

func join(_ path: String, _ name: String) -> String { path.isEmpty ? name : path + "/" + name }

// MARK: - HEIF / AVIF transforms

/// The display transform of a HEIF image as an EXIF orientation, from its `irot` and `imir` properties.
///
/// This is the one part of HEIF still read by hand: libheif 1.15 applies the transforms (the displayed size
/// comes from it, see ``HEIFReader``) but cannot report them. Only `meta/iprp` is walked: `ipco` (the
/// properties) and `ipma` (which of them belong to the primary item).
struct HEIFTransforms {
    let walker: BoxWalker

    /// The orientation equivalent to the item's transforms; nil when it has none.
    func orientation(of itemID: UInt32, topLevel: [Box]) -> ImageOrientation? {
        guard let meta = topLevel.first(where: { $0.type == fourCC("meta") }),
            let iprp = walker.child("iprp", of: meta, path: "meta", skipping: 4)
        else { return nil }
        var properties: [Box] = []
        var indexes: [Int] = []
        for child in walker.children(from: iprp.payloadStart, to: iprp.end, path: "meta/iprp") {
            if child.type == fourCC("ipco") {
                properties = walker.children(from: child.payloadStart, to: child.end, path: "meta/iprp/ipco")
            } else if child.type == fourCC("ipma") {
                indexes += associations(child, of: itemID)
            }
        }
        var transform = DisplayTransform.identity
        var transformed = false
        for index in indexes where index >= 1 && index <= properties.count {
            let property = properties[index - 1]
            guard property.type == fourCC("irot") || property.type == fourCC("imir"),
                let value = walker.payload(property, limit: 1, minimum: 1)?.u8(0)
            else { continue }
            if property.type == fourCC("irot") {
                transform = transform.then(.rotationCounterClockwise(Int(value & 3)))
            } else {
                transform = transform.then(value & 1 == 0 ? .horizontalFlip : .verticalFlip)
            }
            transformed = true
        }
        return transformed ? transform.orientation : nil
    }

    /// The property indexes (1-based) `ipma` associates with one item.
    private func associations(_ box: Box, of itemID: UInt32) -> [Int] {
        guard let p = walker.payload(box, limit: 1 << 20, minimum: 8) else { return [] }
        let version = p.u8(0)!
        let wide = (p.u8(3)! & 1) == 1
        var at = 8
        for _ in 0..<min(Int(p.u32(4)!), 4096) {
            let id: UInt32
            if version < 1 {
                guard let v = p.u16(at) else { return [] }
                id = UInt32(v)
                at += 2
            } else {
                guard let v = p.u32(at) else { return [] }
                id = v
                at += 4
            }
            guard let count = p.u8(at) else { return [] }
            at += 1
            guard id == itemID else {
                at += Int(count) * (wide ? 2 : 1)
                continue
            }
            var indexes: [Int] = []
            for _ in 0..<count {
                if wide {
                    guard let v = p.u16(at) else { return indexes }
                    indexes.append(Int(v & 0x7FFF))
                    at += 2
                } else {
                    guard let v = p.u8(at) else { return indexes }
                    indexes.append(Int(v & 0x7F))
                    at += 1
                }
            }
            return indexes
        }
        return []
    }
}

/// A display transform in the dihedral group: first an optional horizontal flip, then a clockwise rotation
/// by `quarterTurns` × 90°. Composes HEIF `irot`/`imir` properties and maps to EXIF orientations.
struct DisplayTransform: Equatable {
    var flip: Bool
    var quarterTurns: Int

    static let identity = DisplayTransform(flip: false, quarterTurns: 0)
    static let horizontalFlip = DisplayTransform(flip: true, quarterTurns: 0)
    static let verticalFlip = DisplayTransform(flip: true, quarterTurns: 2)
    static func rotationCounterClockwise(_ quarterTurns: Int) -> DisplayTransform {
        DisplayTransform(flip: false, quarterTurns: (4 - quarterTurns % 4) % 4)
    }

    /// This transform followed by `next`.
    func then(_ next: DisplayTransform) -> DisplayTransform {
        let turns = next.flip ? next.quarterTurns - quarterTurns : next.quarterTurns + quarterTurns
        return DisplayTransform(flip: flip != next.flip, quarterTurns: ((turns % 4) + 4) % 4)
    }

    var swapsDimensions: Bool { quarterTurns % 2 == 1 }

    /// The equivalent EXIF orientation.
    var orientation: ImageOrientation {
        switch (flip, quarterTurns) {
        case (false, 0): .up
        case (true, 0): .upMirrored
        case (false, 2): .down
        case (true, 2): .downMirrored
        case (true, 3): .leftMirrored
        case (false, 1): .right
        case (true, 1): .rightMirrored
        default: .left
        }
    }
}

// MARK: - Movies

/// What the probe needs from a movie's `moov` box.
struct MovieInfo {
    var timescale: UInt32?
    var durationUnits: UInt64?
    var creationSeconds1904: UInt64?
    var width: Int?
    var height: Int?
    var hasVideoTrack = false
    var trackCount = 0
    /// Text metadata by key: QuickTime `mdta` keys (`com.apple.quicktime.creationdate`…) and user data or
    /// iTunes-style items by their four-character code (`©day`, `©xyz`).
    var metadata: [String: String] = [:]
    /// The 3GPP `loci` location (latitude, longitude, altitude), as ffmpeg writes for MP4.
    var userDataLocation: (latitude: Double, longitude: Double, altitude: Double)?
    /// Canon CR3 EXIF blocks (CMT1: IFD0, CMT2: Exif IFD, CMT4: GPS IFD).
    var canonIFD0: [UInt8]?
    var canonExif: [UInt8]?
    var canonGPS: [UInt8]?
}

struct MovieParser {
    let walker: BoxWalker

    static let canonUUID: [UInt8] = [
        0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
    ]

    func parse(moov: Box) -> MovieInfo {
        var info = MovieInfo()
        for box in walker.children(from: moov.payloadStart, to: moov.end, path: "moov") {
            switch box.type {
            case fourCC("mvhd"):
                guard let p = walker.payload(box, limit: 32, minimum: 20) else { continue }
                if p.u8(0) == 1 {
                    guard p.count >= 32 else { continue }
                    info.creationSeconds1904 = p.u64(4)
                    info.timescale = p.u32(20)
                    info.durationUnits = p.u64(24)
                } else {
                    info.creationSeconds1904 = p.u32(4).map(UInt64.init)
                    info.timescale = p.u32(12)
                    info.durationUnits = p.u32(16).map { $0 == UInt32.max ? UInt64.max : UInt64($0) }
                }
            case fourCC("trak"):
                info.trackCount += 1
                parseTrack(box, into: &info)
            case fourCC("udta"):
                parseUserData(box, path: "moov/udta", into: &info)
            case fourCC("meta"):
                parseMetadata(box, path: "moov/meta", into: &info)
            case fourCC("uuid") where box.userType == Self.canonUUID:
                for item in walker.children(from: box.payloadStart, to: box.end, path: "moov/uuid") {
                    let bytes = walker.payload(item, limit: ExifReader.maximumTIFFLength)?.bytes
                    switch item.type {
                    case fourCC("CMT1"): info.canonIFD0 = bytes
                    case fourCC("CMT2"): info.canonExif = bytes
                    case fourCC("CMT4"): info.canonGPS = bytes
                    default: break
                    }
                }
            default:
                break
            }
        }
        return info
    }

    private func parseTrack(_ trak: Box, into info: inout MovieInfo) {
        var width: Double?
        var height: Double?
        var rotated = false
        var handler: UInt32?
        var sampleSize: (Int, Int)?
        for box in walker.children(from: trak.payloadStart, to: trak.end, path: "moov/trak") {
            if box.type == fourCC("tkhd"), let p = walker.payload(box, limit: 96, minimum: 84) {
                let base = p.u8(0) == 1 ? 52 : 40
                guard let a = p.u32(base), let b = p.u32(base + 4), let c = p.u32(base + 12), let d = p.u32(base + 16),
                    let w = p.u32(base + 36), let h = p.u32(base + 40)
                else { continue }
                rotated = a == 0 && d == 0 && b != 0 && c != 0
                width = Double(w) / 65536
                height = Double(h) / 65536
            } else if box.type == fourCC("mdia") {
                for child in walker.children(from: box.payloadStart, to: box.end, path: "moov/trak/mdia") {
                    if child.type == fourCC("hdlr"), let p = walker.payload(child, limit: 12, minimum: 12) {
                        handler = p.u32(8)
                    } else if child.type == fourCC("minf") {
                        sampleSize = visualSampleSize(minf: child)
                    }
                }
            }
        }
        guard handler == fourCC("vide") else { return }
        info.hasVideoTrack = true
        guard info.width == nil else { return }
        var w = width.map { Int($0.rounded()) } ?? 0
        var h = height.map { Int($0.rounded()) } ?? 0
        if w == 0 || h == 0, let sampleSize {
            (w, h) = sampleSize
        }
        guard w > 0, h > 0 else { return }
        info.width = rotated ? h : w
        info.height = rotated ? w : h
    }

    /// The coded size in the first visual sample entry (`minf/stbl/stsd`), used when `tkhd` has none.
    private func visualSampleSize(minf: Box) -> (Int, Int)? {
        guard let stbl = walker.child("stbl", of: minf, path: "moov/trak/mdia/minf"),
            let stsd = walker.child("stsd", of: stbl, path: "moov/trak/mdia/minf/stbl"),
            let p = walker.payload(stsd, limit: 64, minimum: 44),
            let w = p.u16(40), let h = p.u16(42)
        else { return nil }
        return (Int(w), Int(h))
    }

    private func parseUserData(_ udta: Box, path: String, into info: inout MovieInfo) {
        for box in walker.children(from: udta.payloadStart, to: udta.end, path: path) {
            if box.type == fourCC("meta") {
                parseMetadata(box, path: path + "/meta", into: &info)
                continue
            }
            if box.type == fourCC("loci"), let p = walker.payload(box, limit: 1024, minimum: 20) {
                // 3GPP location: version/flags, language, name (NUL-terminated), role, then longitude,
                // latitude and altitude as signed 16.16 fixed point.
                if let nameEnd = p.bytes.dropFirst(6).firstIndex(of: 0), let lon = p.u32(nameEnd + 2),
                    let lat = p.u32(nameEnd + 6), let alt = p.u32(nameEnd + 10)
                {
                    func fixed(_ v: UInt32) -> Double { Double(Int32(bitPattern: v)) / 65536 }
                    info.userDataLocation = (fixed(lat), fixed(lon), fixed(alt))
                }
                continue
            }
            // QuickTime international text (©xxx): a 16-bit length, a 16-bit language, then the text.
            guard box.type >> 24 == 0xA9, let p = walker.payload(box, limit: 4096, minimum: 4) else { continue }
            let key = fourCCString(box.type).replacingFirstDotWithCopyright()
            let length = Int(p.u16(0)!)
            if length > 0, length <= p.count - 4, let text = cleanText(p.bytes[4..<(4 + length)]) {
                info.metadata[key] = info.metadata[key] ?? text
            } else if let data = walker.children(from: box.payloadStart, to: box.end, path: path).first(where: {
                $0.type == fourCC("data")
            }), let text = dataText(data) {
                info.metadata[key] = info.metadata[key] ?? text
            }
        }
    }

    /// A `meta` box: QuickTime `keys` + `ilst` (keys by index), or iTunes-style `ilst` (keys by code).
    private func parseMetadata(_ meta: Box, path: String, into info: inout MovieInfo) {
        let children = walker.children(from: walker.metaChildrenStart(meta), to: meta.end, path: path)
        var keys: [UInt32: String] = [:]
        if let keysBox = children.first(where: { $0.type == fourCC("keys") }),
            let p = walker.payload(keysBox, limit: 1 << 16, minimum: 8)
        {
            var at = 8
            var index: UInt32 = 1
            for _ in 0..<min(Int(p.u32(4)!), 1024) {
                guard let size = p.u32(at), size >= 8, at + Int(size) <= p.count else { break }
                keys[index] = cleanText(p.bytes[(at + 8)..<(at + Int(size))])
                index += 1
                at += Int(size)
            }
        }
        guard let ilst = children.first(where: { $0.type == fourCC("ilst") }) else { return }
        for item in walker.children(from: ilst.payloadStart, to: ilst.end, path: path + "/ilst") {
            let key = keys[item.type] ?? fourCCString(item.type).replacingFirstDotWithCopyright()
            guard let data = walker.children(from: item.payloadStart, to: item.end, path: path + "/ilst").first(where: {
                $0.type == fourCC("data")
            }), let text = dataText(data) else { continue }
            info.metadata[key] = info.metadata[key] ?? text
        }
    }

    /// The text of a `data` box (type indicator, locale, value) when it is UTF-8 (1) or unspecified (0).
    private func dataText(_ data: Box) -> String? {
        guard let p = walker.payload(data, limit: 4096, minimum: 8), let type = p.u32(0), type & 0xFFFFFF <= 1
        else { return nil }
        return cleanText(p.bytes.dropFirst(8))
    }
}

extension String {
    /// `.day` → `©day`: four-character codes starting with 0xA9 print their first byte as `.`.
    fileprivate func replacingFirstDotWithCopyright() -> String {
        hasPrefix(".") ? "©" + dropFirst() : self
    }
}
