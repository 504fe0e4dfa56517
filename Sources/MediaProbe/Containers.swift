/// What a still-image container says before EXIF: its stored size, and where its EXIF and XMP are.
struct ImageContainerInfo {
    var width: Int?
    var height: Int?
    /// An EXIF block (TIFF structure, possibly behind an `Exif\0\0` header) for libexif.
    var exifBlock: [UInt8]?
    /// The first IFD lies beyond what libexif can be given.
    var exifOutOfReach = false
    /// The XMP packet's bytes, as stored (parsed by ``XMPParser``).
    var xmp: ArraySlice<UInt8>?
    /// For HEIF: the orientation from `irot`/`imir`, already applied to the size.
    var transformOrientation: ImageOrientation?
    /// Canon CR3 EXIF, split over three blocks.
    var canonBlocks: (ifd0: [UInt8]?, exif: [UInt8]?, gps: [UInt8]?)?
}

/// Readers of the containers' own headers: JPEG markers, PNG chunks, GIF screen, WebP chunks, TIFF IFDs.
struct ContainerReader {
    let context: ProbeContext
    var reader: BoundedReader { context.reader }

    static let xmpSignature = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]
    static let exifSignature = Array("Exif".utf8) + [0, 0]
    /// The most XMP read from one file.
    static let xmpLimit = 256 * 1024

    // MARK: JPEG

    /// Walks the JPEG marker segments up to the start of scan: SOFn gives the size, APP1 the EXIF and XMP.
    ///
    /// Extended XMP (APP1 `http://ns.adobe.com/xmp/extension/`, the continuation a packet names with
    /// `xmpNote:HasExtendedXMP`) is not read: writers move only large values there (Google's depth maps and
    /// embedded images, up to megabytes of base64), never the short properties photosync uses, which the
    /// XMP specification keeps in the main packet.
    func jpeg(at start: Int64 = 0) -> ImageContainerInfo {
        var info = ImageContainerInfo()
        var offset = start + 2
        while true {
            guard context.visitElement() else { break }
            guard let head = reader.readExactly(at: offset, count: 4) else {
                context.note(.truncated, "JPEG", "ends before the image data")
                break
            }
            guard head[0] == 0xFF else {
                context.note(.malformed, "JPEG", "no marker at offset \(offset)")
                break
            }
            let marker = head[1]
            if marker == 0xFF {  // fill byte
                offset += 1
                continue
            }
            if marker == 0x01 || marker == 0xD8 || (0xD0...0xD7).contains(marker) {
                offset += 2
                continue
            }
            if marker == 0xD9 || marker == 0xDA { break }  // end of image, start of scan
            let length = Int64(ByteView(head).u16(2)!)
            guard length >= 2 else {
                context.note(.malformed, "JPEG", "segment length \(length)")
                break
            }
            let payloadStart = offset + 4
            let payloadLength = Int(length - 2)
            if payloadStart + Int64(payloadLength) > reader.size {
                context.note(.truncated, "JPEG", "segment \(String(marker, radix: 16)) ends past the end of the file")
            }
            switch marker {
            case 0xE1:
                let payload = reader.read(at: payloadStart, count: payloadLength)
                if info.exifBlock == nil, payload.starts(with: Self.exifSignature) {
                    info.exifBlock = payload
                } else if info.xmp == nil, payload.starts(with: Self.xmpSignature) {
                    info.xmp = payload.dropFirst(Self.xmpSignature.count)
                }
            case 0xC0...0xCF where marker != 0xC4 && marker != 0xC8 && marker != 0xCC:
                if info.width == nil, let sof = reader.readExactly(at: payloadStart, count: 5) {
                    let view = ByteView(sof)
                    info.height = Int(view.u16(1)!)
                    info.width = Int(view.u16(3)!)
                }
            default:
                break
            }
            offset = payloadStart + Int64(payloadLength)
        }
        return info
    }

    // MARK: PNG

    /// IHDR for the size; `eXIf` for EXIF; an uncompressed `iTXt` `XML:com.adobe.xmp` for XMP.
    func png() -> ImageContainerInfo {
        var info = ImageContainerInfo()
        if let ihdr = reader.readExactly(at: 16, count: 8) {
            let view = ByteView(ihdr)
            info.width = Int(view.u32(0)!)
            info.height = Int(view.u32(4)!)
        } else {
            context.note(.truncated, "PNG/IHDR")
        }
        var offset: Int64 = 8
        for _ in 0..<1024 {
            guard context.visitElement() else { break }
            guard let (length32, type) = reader.readHeaderWords(at: offset) else {
                context.note(.truncated, "PNG", "ends before IEND")
                break
            }
            let length = Int64(length32)
            if length > Int64(Int32.max) {
                context.note(.malformed, "PNG", "chunk length \(length)")
                break
            }
            if offset + 12 + length > reader.size {
                context.note(.truncated, "PNG/" + fourCCString(type), "chunk ends past the end of the file")
            }
            switch type {
            case fourCC("eXIf") where info.exifBlock == nil:
                info.exifBlock = reader.read(at: offset + 8, count: Int(min(length, Int64(ExifReader.maximumTIFFLength))))
            case fourCC("iTXt") where info.xmp == nil && length < Int64(Self.xmpLimit):
                let chunk = reader.read(at: offset + 8, count: Int(length))
                let keyword = Array("XML:com.adobe.xmp".utf8) + [0]
                // keyword, NUL, compression flag, method, language tag NUL, translated keyword NUL, text.
                if chunk.starts(with: keyword), chunk.count > keyword.count + 2, chunk[keyword.count] == 0 {
                    var rest = chunk.dropFirst(keyword.count + 2)
                    for _ in 0..<2 {
                        guard let nul = rest.firstIndex(of: 0) else { break }
                        rest = rest[(nul + 1)...]
                    }
                    info.xmp = rest
                }
            case fourCC("IEND"):
                return info
            default:
                break
            }
            offset += 12 + length
        }
        return info
    }

    // MARK: GIF

    func gif() -> ImageContainerInfo {
        var info = ImageContainerInfo()
        if let screen = reader.readExactly(at: 6, count: 4) {
            let view = ByteView(screen)
            info.width = Int(view.u16(0, bigEndian: false)!)
            info.height = Int(view.u16(2, bigEndian: false)!)
        } else {
            context.note(.truncated, "GIF", "no logical screen descriptor")
        }
        return info
    }

    // MARK: WebP

    /// The RIFF chunks: VP8X (canvas), VP8L / VP8 (bitstream headers), EXIF, XMP.
    func webp() -> ImageContainerInfo {
        var info = ImageContainerInfo()
        let riffEnd = reader.readExactly(at: 4, count: 4).map { Int64(ByteView($0).u32(0, bigEndian: false)!) + 8 }
            ?? reader.size
        if riffEnd > reader.size { context.note(.truncated, "RIFF", "declares \(riffEnd) bytes") }
        var offset: Int64 = 12
        var fromCanvas = false
        while offset + 8 <= min(riffEnd, reader.size) {
            guard context.visitElement() else { break }
            guard let (type, swappedLength) = reader.readHeaderWords(at: offset) else { break }
            let length = Int64(swappedLength.byteSwapped)  // RIFF sizes are little-endian
            if offset + 8 + length > reader.size {
                context.note(.truncated, "WEBP/" + fourCCString(type), "chunk ends past the end of the file")
            }
            switch type {
            case fourCC("VP8X"):
                if let p = reader.readExactly(at: offset + 8, count: 10) {
                    let canvas = ByteView(p)
                    info.width = Int(canvas.u24(4, bigEndian: false)!) + 1
                    info.height = Int(canvas.u24(7, bigEndian: false)!) + 1
                    fromCanvas = true
                }
            case fourCC("VP8L") where !fromCanvas:
                if let p = reader.readExactly(at: offset + 8, count: 5), p[0] == 0x2F {
                    let bits = ByteView(p).u32(1, bigEndian: false)!
                    info.width = Int(bits & 0x3FFF) + 1
                    info.height = Int((bits >> 14) & 0x3FFF) + 1
                } else {
                    context.note(.malformed, "WEBP/VP8L", "no lossless signature")
                }
            case fourCC("VP8 ") where !fromCanvas:
                if let p = reader.readExactly(at: offset + 8, count: 10), p[3] == 0x9D, p[4] == 0x01, p[5] == 0x2A {
                    let frame = ByteView(p)
                    info.width = Int(frame.u16(6, bigEndian: false)! & 0x3FFF)
                    info.height = Int(frame.u16(8, bigEndian: false)! & 0x3FFF)
                } else {
                    context.note(.malformed, "WEBP/VP8", "no key frame start code")
                }
            case fourCC("EXIF") where info.exifBlock == nil:
                info.exifBlock = reader.read(at: offset + 8, count: Int(min(length, Int64(ExifReader.maximumTIFFLength + 6))))
            case fourCC("XMP ") where info.xmp == nil && length < Int64(Self.xmpLimit):
                info.xmp = reader.read(at: offset + 8, count: Int(length))[...]
            default:
                break
            }
            offset += 8 + length + (length & 1)
        }
        return info
    }

    // MARK: TIFF and TIFF-based raws

    /// The main image's size from the IFDs, and the head of the file as the EXIF block for libexif.
    func tiff(format: MediaFormat) -> ImageContainerInfo {
        var info = ImageContainerInfo()
        guard let head = reader.readExactly(at: 0, count: 8) else { return info }
        let bigEndian = head[0] == UInt8(ascii: "M")
        let firstIFD = Int64(ByteView(head).u32(4, bigEndian: bigEndian)!)
        let structure = TIFFStructure(reader: reader, bigEndian: bigEndian)
        if let packet = structure.directory(at: firstIFD)?.entry(TIFFTag.xmp) {
            info.xmp = structure.valueBytes(packet, limit: Self.xmpLimit)[...]
        }
        if let size = structure.mainImageSize(firstIFD: firstIFD) {
            info.width = size.width
            info.height = size.height
        } else {
            context.note(.malformed, "TIFF", "no image size in the IFDs")
        }
        if firstIFD + 2 > Int64(ExifReader.maximumTIFFLength) {
            info.exifOutOfReach = true
        }
        var block = reader.read(at: 0, count: ExifReader.maximumTIFFLength)
        if format == .orf || format == .rw2, block.count >= 4 {
            // Olympus and Panasonic replace TIFF's magic 42 with their own; libexif wants 42.
            if bigEndian { block[2] = 0; block[3] = 42 } else { block[2] = 42; block[3] = 0 }
        }
        info.exifBlock = block
        return info
    }

    /// Fujifilm RAF: the embedded JPEG preview carries the EXIF (offset and length at bytes 84 and 88).
    func raf() -> ImageContainerInfo {
        guard let header = reader.readExactly(at: 84, count: 8) else {
            context.note(.truncated, "RAF", "no preview directory")
            return ImageContainerInfo()
        }
        let view = ByteView(header)
        let jpegOffset = Int64(view.u32(0)!)
        guard jpegOffset >= 92, let soi = reader.readExactly(at: jpegOffset, count: 3), soi == [0xFF, 0xD8, 0xFF]
        else {
            context.note(.malformed, "RAF", "no JPEG preview")
            return ImageContainerInfo()
        }
        var info = jpeg(at: jpegOffset)
        // The preview's size is not the raw image's: only the EXIF is used.
        info.width = nil
        info.height = nil
        return info
    }
}
