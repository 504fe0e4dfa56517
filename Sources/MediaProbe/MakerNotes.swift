/// What photosync reads from camera maker notes (EXIF tag 0x927C).
struct MakerNoteFacts: Equatable {
    /// Apple: HDRImageType 3.
    var isHDR = false
    /// Apple: BurstUUID.
    var burstIdentifier: String?
    /// Apple: the Live Photo pairing identifier (ContentIdentifier).
    var contentIdentifier: String?
    /// The camera says it stitched a panorama: Fujifilm CompositeImageMode "Panorama" (or a PanoramaAngle),
    /// Sony SceneMode "Sweep Panorama" / "3D Sweep Panorama".
    var isPanorama = false
}

/// Readers of the maker notes whose layout is known and which carry something photosync uses. Each note is
/// an IFD behind a vendor header; only inline values (no offsets) are read, so the note alone suffices.
enum MakerNotes {
    /// Reads a maker note; unknown vendors give no facts.
    ///
    /// - Parameters:
    ///   - note: the MakerNote entry's bytes.
    ///   - bigEndian: the byte order of the EXIF block around it (Sony notes use it).
    static func read(_ note: [UInt8], bigEndian: Bool) -> MakerNoteFacts {
        if note.starts(with: appleHeader) { return apple(note) }
        if note.starts(with: fujifilmHeader) { return fujifilm(note) }
        if sonyHeaders.contains(where: { note.starts(with: $0) }) { return sony(note, bigEndian: bigEndian) }
        return MakerNoteFacts()
    }

    private static let appleHeader = Array("Apple iOS".utf8) + [0]
    private static let fujifilmHeader = Array("FUJIFILM".utf8)
    private static let sonyHeaders = [Array("SONY DSC ".utf8) + [0, 0, 0], Array("SONY CAM ".utf8) + [0, 0, 0]]

    /// A structure reader over the note alone, with a small budget.
    private static func structure(_ note: [UInt8], bigEndian: Bool) -> TIFFStructure {
        TIFFStructure(
            reader: BoundedReader(MemorySource(bytes: note), byteBudget: 1 << 16, readBudget: 256), bigEndian: bigEndian)
    }

    /// Apple (`Apple iOS\0`, version, `MM`, then an IFD at 14 whose offsets are relative to the note):
    /// tag 0x0A HDRImageType (3: HDR), 0x0B BurstUUID, 0x11 ContentIdentifier.
    private static func apple(_ note: [UInt8]) -> MakerNoteFacts {
        var facts = MakerNoteFacts()
        guard note.count > 16 else { return facts }
        let structure = structure(note, bigEndian: note[12] == UInt8(ascii: "M"))
        guard let ifd = structure.directory(at: 14) else { return facts }
        if let entry = ifd.entry(0x000A), structure.integers(entry).first == 3 { facts.isHDR = true }
        facts.burstIdentifier = ifd.entry(0x000B).flatMap { structure.text($0) }
        facts.contentIdentifier = ifd.entry(0x0011).flatMap { structure.text($0) }
        return facts
    }

    /// Fujifilm (`FUJIFILM`, then the little-endian offset of an IFD relative to the note, little-endian
    /// throughout): 0x1150 CompositeImageMode (32: Panorama), 0x1153 PanoramaAngle.
    private static func fujifilm(_ note: [UInt8]) -> MakerNoteFacts {
        var facts = MakerNoteFacts()
        guard let offset = ByteView(note).u32(8, bigEndian: false) else { return facts }
        let structure = structure(note, bigEndian: false)
        guard let ifd = structure.directory(at: Int64(offset)) else { return facts }
        let mode = ifd.entry(0x1150).flatMap { structure.integers($0).first }
        let angle = ifd.entry(0x1153).flatMap { structure.integers($0).first }
        facts.isPanorama = mode == 32 || angle.map { $0 > 0 } == true
        return facts
    }

    /// Sony (`SONY DSC ` or `SONY CAM ` and three NULs, then an IFD in the EXIF's byte order): 0xB023
    /// SceneMode (18: Sweep Panorama, 23: 3D Sweep Panorama).
    private static func sony(_ note: [UInt8], bigEndian: Bool) -> MakerNoteFacts {
        var facts = MakerNoteFacts()
        let structure = structure(note, bigEndian: bigEndian)
        guard let ifd = structure.directory(at: 12) else { return facts }
        let scene = ifd.entry(0xB023).flatMap { structure.integers($0).first }
        facts.isPanorama = scene == 18 || scene == 23
        return facts
    }
}
