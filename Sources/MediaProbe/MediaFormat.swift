/// Whether a file is a still image or a video.
public enum MediaKind: String, Sendable, Hashable, CaseIterable {
    /// A still image (including camera raw files).
    case image
    /// A movie.
    case video
}

/// A media file format, recognised from the file's content (its signature and container structure), never
/// from its name alone.
///
/// The file name's extension is consulted in exactly one case: to tell apart camera raw formats that are
/// plain TIFF structures without a signature of their own (NEF, ARW, PEF, SRW…). A TIFF whose name does not
/// name one of those is ``tiff``.
public enum MediaFormat: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    // Still images.
    case jpeg, png, gif, webp, tiff
    /// HEIF with HEVC-coded images (brands `heic`, `heix`, `heim`, `heis`).
    case heic
    /// HEIF image sequence with HEVC (brands `hevc`, `hevx`).
    case heics
    /// HEIF with other or unnamed codecs (brands `mif1`, `msf1` alone).
    case heif
    /// AV1 Image File Format (brands `avif`, `avis`).
    case avif

    // Camera raw formats.
    /// Adobe Digital Negative: a TIFF structure whose first IFD has a DNGVersion tag.
    case dng
    /// Canon CR2: TIFF with `CR` and major version 2 at byte 8.
    case cr2
    /// Canon CR3: ISO-BMFF with the `crx ` brand.
    case cr3
    /// Canon CRW (CIFF): `HEAPCCDR` at byte 6.
    case crw
    /// Nikon NEF / NRW (TIFF; told apart by extension).
    case nef, nrw
    /// Sony ARW / SR2 / SRF (TIFF; told apart by extension).
    case arw, sr2, srf
    /// Olympus ORF: TIFF variant with `IIRO`, `IIRS` or `MMOR` signature.
    case orf
    /// Panasonic RW2 / RAW and Leica RWL: TIFF variant with `IIU\0` signature.
    case rw2
    /// Fujifilm RAF: `FUJIFILMCCD-RAW ` signature.
    case raf
    /// Pentax PEF (TIFF; told apart by extension).
    case pef
    /// Samsung SRW (TIFF; told apart by extension).
    case srw
    /// Hasselblad 3FR / FFF (TIFF; told apart by extension).
    case threeFR = "3fr"
    /// Phase One IIQ (TIFF; told apart by extension).
    case iiq
    /// Epson ERF, Kodak DCR/KDC, Leaf MOS, Mamiya MEF (TIFF; told apart by extension).
    case erf, dcr, kdc, mos, mef
    /// Minolta MRW: `\0MRM` signature.
    case mrw
    /// Sigma X3F: `FOVb` signature.
    case x3f

    // Videos.
    /// MPEG-4 (ISO base media: brands `isom`, `iso2`…, `mp41`, `mp42`, `avc1`, `dash`…).
    case mp4
    /// QuickTime movie (brand `qt  `, or a file starting with `moov`, `mdat`, `wide` atoms).
    case mov
    /// Apple's MPEG-4 video (brands `M4V `, `M4VH`, `M4VP`).
    case m4v
    /// 3GPP and 3GPP2 movies (brands `3gp*`, `3g2*`).
    case threeGPP = "3gp", threeGPP2 = "3g2"

    public var description: String { rawValue }

    /// Whether the format holds a still image or a movie.
    public var kind: MediaKind {
        switch self {
        case .mp4, .mov, .m4v, .threeGPP, .threeGPP2: .video
        default: .image
        }
    }

    /// Whether the format is a camera raw format (its uniform type conforms to `public.camera-raw-image`).
    public var isRawImage: Bool {
        switch self {
        case .dng, .cr2, .cr3, .crw, .nef, .nrw, .arw, .sr2, .srf, .orf, .rw2, .raf, .pef, .srw, .threeFR, .iiq,
            .erf, .dcr, .kdc, .mos, .mef, .mrw, .x3f:
            true
        default: false
        }
    }

    /// The uniform type identifier, as Apple's platforms name it (e.g. `public.jpeg`, `public.heic`,
    /// `com.canon.cr2-raw-image`, `com.apple.quicktime-movie`).
    public var typeIdentifier: String {
        switch self {
        case .jpeg: "public.jpeg"
        case .png: "public.png"
        case .gif: "com.compuserve.gif"
        case .webp: "org.webmproject.webp"
        case .tiff: "public.tiff"
        case .heic: "public.heic"
        case .heics: "public.heics"
        case .heif: "public.heif"
        case .avif: "public.avif"
        case .dng: "com.adobe.raw-image"
        case .cr2: "com.canon.cr2-raw-image"
        case .cr3: "com.canon.cr3-raw-image"
        case .crw: "com.canon.crw-raw-image"
        case .nef: "com.nikon.raw-image"
        case .nrw: "com.nikon.nrw-raw-image"
        case .arw: "com.sony.arw-raw-image"
        case .sr2: "com.sony.sr2-raw-image"
        case .srf: "com.sony.raw-image"
        case .orf: "com.olympus.raw-image"
        case .rw2: "com.panasonic.rw2-raw-image"
        case .raf: "com.fuji.raw-image"
        case .pef: "com.pentax.raw-image"
        case .srw: "com.samsung.raw-image"
        case .threeFR: "com.hasselblad.3fr-raw-image"
        case .iiq: "com.phaseone.raw-image"
        case .erf: "com.epson.raw-image"
        case .dcr: "com.kodak.raw-image"
        case .kdc: "com.kodak.raw-image"
        case .mos: "com.leafamerica.raw-image"
        case .mef: "com.mamiya.raw-image"
        case .mrw: "com.konicaminolta.raw-image"
        case .x3f: "com.sigma.raw-image"
        case .mp4: "public.mpeg-4"
        case .mov: "com.apple.quicktime-movie"
        case .m4v: "com.apple.m4v-video"
        case .threeGPP: "public.3gpp"
        case .threeGPP2: "public.3gpp2"
        }
    }

    /// The usual file name extension (lowercase, no dot).
    public var preferredFilenameExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .heics: "heics"
        case .rw2: "rw2"
        default: rawValue
        }
    }

    /// Classifies a file from its content: the first 64 bytes decide, except for TIFF structures, whose first
    /// IFD is read too (wherever it lies) to find a DNGVersion tag. Pass the whole file, or at least its
    /// beginning and, for TIFF, its first IFD.
    ///
    /// - Parameters:
    ///   - contents: the file's first bytes.
    ///   - fileName: the file's name or path, used only to tell TIFF-based raw formats apart.
    /// - Returns: the format, or nil when the bytes are not a supported media file (text, archives,
    ///   truncated or unknown data).
    public static func detect(contents: [UInt8], fileName: String? = nil) -> MediaFormat? {
        let reader = BoundedReader(MemorySource(bytes: contents))
        return detect(reader, fileName: fileName)
    }

    /// Classifies the bytes behind a reader (reads the head, and for TIFF structures the first IFD).
    static func detect(_ reader: BoundedReader, fileName: String?) -> MediaFormat? {
        let head = ByteView(reader.read(at: 0, count: 64))
        let size = reader.size
        guard head.count >= 8 else { return nil }
        let b = head.bytes

        // JPEG: SOI then a marker (any of C0–FE after the FF).
        if b[0] == 0xFF, b[1] == 0xD8, b[2] == 0xFF, b[3] >= 0xC0, b[3] != 0xFF {
            return .jpeg
        }
        // PNG: the 8-byte signature, then the IHDR chunk.
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) {
            return head.matches("IHDR", at: 12) && head.u32(8) == 13 ? .png : nil
        }
        // GIF: signature and a logical screen descriptor.
        if head.matches("GIF87a", at: 0) || head.matches("GIF89a", at: 0) {
            return head.count >= 13 ? .gif : nil
        }
        // WebP: RIFF container of form WEBP whose first chunk is an image chunk.
        if head.matches("RIFF", at: 0), head.matches("WEBP", at: 8) {
            return head.matches("VP8 ", at: 12) || head.matches("VP8L", at: 12) || head.matches("VP8X", at: 12)
                ? .webp : nil
        }
        // Raw formats with signatures of their own.
        if head.matches("FUJIFILMCCD-RAW", at: 0) { return .raf }
        if head.matches("\0MRM", at: 0) { return .mrw }
        if head.matches("FOVb", at: 0) { return .x3f }
        if head.matches("HEAPCCDR", at: 6), head.matches("II", at: 0) { return .crw }
        if head.matches("IIRO", at: 0) || head.matches("IIRS", at: 0) || head.matches("MMOR", at: 0) {
            return head.u32(4, bigEndian: b[0] == UInt8(ascii: "M")).map { $0 >= 8 && Int64($0) < size } == true
                ? .orf : nil
        }
        if head.matches("IIU\0", at: 0) {
            return head.u32(4, bigEndian: false).map { $0 >= 8 && Int64($0) < size } == true ? .rw2 : nil
        }
        // TIFF and the TIFF-based raws.
        if head.matches("II*\0", at: 0) || head.matches("MM\0*", at: 0) {
            return detectTIFF(reader, head: head, fileName: fileName)
        }
        if head.matches("II+\0", at: 0) || head.matches("MM\0+", at: 0) {
            return head.count >= 16 ? .tiff : nil  // BigTIFF
        }
        // ISO base media (ftyp) and classic QuickTime.
        if let format = detectISOBMFF(head: head, size: size) { return format }
        return nil
    }

    private static let tiffRawExtensions: [String: MediaFormat] = [
        "nef": .nef, "nrw": .nrw, "arw": .arw, "sr2": .sr2, "srf": .srf, "pef": .pef, "srw": .srw,
        "3fr": .threeFR, "fff": .threeFR, "iiq": .iiq, "erf": .erf, "dcr": .dcr, "kdc": .kdc, "mos": .mos,
        "mef": .mef, "dng": .dng,
    ]

    private static func detectTIFF(_ reader: BoundedReader, head: ByteView, fileName: String?) -> MediaFormat? {
        let bigEndian = head.bytes[0] == UInt8(ascii: "M")
        guard let ifdOffset = head.u32(4, bigEndian: bigEndian), ifdOffset >= 8, Int64(ifdOffset) + 2 <= reader.size
        else { return nil }
        if head.matches("CR", at: 8), head.u8(10) == 2 { return .cr2 }
        let structure = TIFFStructure(reader: reader, bigEndian: bigEndian)
        guard let ifd0 = structure.directory(at: Int64(ifdOffset)), !ifd0.entries.isEmpty else { return nil }
        if ifd0.entry(TIFFTag.dngVersion) != nil { return .dng }
        if let ext = fileExtension(fileName), let raw = tiffRawExtensions[ext], raw != .dng { return raw }
        return .tiff
    }

    private static func detectISOBMFF(head: ByteView, size: Int64) -> MediaFormat? {
        guard let boxSize = head.u32(0) else { return nil }
        if head.matches("ftyp", at: 4) {
            guard boxSize >= 16, Int64(boxSize) <= size else { return nil }
            var brands: [UInt32] = []
            if let major = head.u32(8) { brands.append(major) }
            var at = 16
            while at + 4 <= min(Int(boxSize), head.count) {
                if let brand = head.u32(at) { brands.append(brand) }
                at += 4
            }
            return formatForBrands(brands)
        }
        // Classic QuickTime files have no ftyp: they start with a movie atom, media data, or the `wide`
        // placeholder atom (optionally behind `free`/`skip`/`pnot` atoms) with a sane size.
        var offset = 0
        for _ in 0..<4 {
            guard let atomSize = head.u32(offset), let type = head.u32(offset + 4) else { return nil }
            let known: Set<UInt32> = [fourCC("moov"), fourCC("mdat"), fourCC("wide")]
            let filler: Set<UInt32> = [fourCC("free"), fourCC("skip"), fourCC("pnot")]
            let sane = atomSize == 1 || (atomSize >= 8 && Int64(offset) + Int64(atomSize) <= size)
                || (atomSize == 0 && type == fourCC("mdat"))
            guard sane else { return nil }
            if known.contains(type) { return .mov }
            guard filler.contains(type), atomSize >= 8 else { return nil }
            offset += Int(atomSize)
        }
        return nil
    }

    /// The format for an `ftyp` box: the major brand decides when it is known, else the first known
    /// compatible brand.
    static func formatForBrands(_ brands: [UInt32]) -> MediaFormat? {
        // An audio major brand (iTunes M4A/M4B/M4P, Flash F4A/F4B) is audio whatever else it lists.
        let audio: Set<String> = ["M4A ", "M4B ", "M4P ", "F4A ", "F4B "]
        if let major = brands.first, audio.contains(fourCCString(major)) { return nil }
        for brand in brands {
            if let format = formatForBrand(brand) { return format }
        }
        if brands.contains(fourCC("mif1")) || brands.contains(fourCC("msf1")) || brands.contains(fourCC("miaf")) {
            return .heif
        }
        return nil
    }

    private static func formatForBrand(_ brand: UInt32) -> MediaFormat? {
        let text = fourCCString(brand)
        switch text {
        case "heic", "heix", "heim", "heis": return .heic
        case "hevc", "hevx", "hevm", "hevs": return .heics
        case "avif", "avis", "avio": return .avif
        case "crx ": return .cr3
        case "qt  ": return .mov
        case "M4V ", "M4VH", "M4VP": return .m4v
        case "isom", "iso2", "iso3", "iso4", "iso5", "iso6", "iso7", "iso8", "iso9", "mp41", "mp42", "mp71",
            "avc1", "dash", "msdh", "msix", "MSNV", "XAVC", "mmp4", "f4v ", "NDAS", "ndas", "CAEP":
            return .mp4
        case "M4A ", "M4B ", "M4P ", "F4A ", "F4B ": return nil  // audio only
        default:
            if text.hasPrefix("3gp") || text.hasPrefix("3ge") || text.hasPrefix("3gg") { return .threeGPP }
            if text.hasPrefix("3g2") { return .threeGPP2 }
            return nil
        }
    }
}

/// The lowercase extension of a file name or path, without the dot (nil for none, or a name starting with
/// its only dot).
func fileExtension(_ fileName: String?) -> String? {
    guard var fileName else { return nil }
    return fileName.withUTF8 { path -> String? in
        let nameStart = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
        guard let dot = path[nameStart...].lastIndex(of: UInt8(ascii: ".")), dot != nameStart, dot + 1 < path.count
        else { return nil }
        let lowered = path[(dot + 1)...].map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return String(decoding: lowered, as: UTF8.self)
    }
}
