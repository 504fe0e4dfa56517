import Foundation
import Testing

@testable import MediaProbe

/// Synthetic ISO-BMFF files: HEIF transforms, Canon CR3 metadata, movie header versions, hostile sizes.
@Suite("ISO base media structure")
struct ContainerTests {
    /// A HEIF with one `hvc1` primary item of `width`×`height` (its `ispe` and a minimal `hvcC`), the given
    /// transform properties after them, and optional Exif and XMP (`mime`) items stored in `idat`, linked to
    /// the image by `cdsc` references (as libheif requires).
    static func heif(
        width: UInt32, height: UInt32, transforms: [[UInt8]], exif: [UInt8]? = nil, xmp: [UInt8]? = nil
    ) -> [UInt8] {
        let hdlr = BMFF.fullBox("hdlr", be32(0) + Array("pict".utf8) + [UInt8](repeating: 0, count: 13))
        let pitm = BMFF.fullBox("pitm", be16(1))
        var payloads: [(id: UInt16, type: String, contentType: String?, bytes: [UInt8])] = []
        if let exif { payloads.append((2, "Exif", nil, be32(6) + Array("Exif".utf8) + [0, 0] + exif)) }
        if let xmp { payloads.append((3, "mime", "application/rdf+xml", xmp)) }
        var infes = BMFF.fullBox("infe", version: 2, be16(1) + be16(0) + Array("hvc1".utf8) + [0])
        for item in payloads {
            let contentType: [UInt8] = item.contentType.map { Array($0.utf8) + [0] } ?? []
            let header: [UInt8] = be16(item.id) + be16(0) + Array(item.type.utf8) + [0]
            infes += BMFF.fullBox("infe", version: 2, header + contentType)
        }
        let iinf = BMFF.fullBox("iinf", be16(UInt16(1 + payloads.count)) + infes)
        let ispe = BMFF.fullBox("ispe", be32(width) + be32(height))
        let ipco = BMFF.box("ipco", ispe + BMFF.hvcC + transforms.joined())
        let indexes = (1...(2 + transforms.count)).map { UInt8($0) }
        let ipma = BMFF.fullBox("ipma", be32(1) + be16(1) + [UInt8(indexes.count)] + indexes)
        let iprp = BMFF.box("iprp", ipco + ipma)
        // iloc v1: offset 4, length 4, base 0, index 0; the metadata items in idat (construction method 1).
        var ilocItems: [UInt8] = be16(1) + be16(0) + be16(0) + be16(1) + be32(0) + be32(0)
        var idatBytes: [UInt8] = []
        for item in payloads {
            let location: [UInt8] = be16(item.id) + be16(1) + be16(0) + be16(1)
            ilocItems += location + be32(UInt32(idatBytes.count)) + be32(UInt32(item.bytes.count))
            idatBytes += item.bytes
        }
        let iloc = BMFF.fullBox("iloc", version: 1, [0x44, 0x00] + be16(UInt16(1 + payloads.count)) + ilocItems)
        let iref = payloads.isEmpty
            ? [] : BMFF.fullBox("iref", payloads.flatMap { BMFF.box("cdsc", be16($0.id) + be16(1) + be16(1)) })
        let idat = BMFF.box("idat", idatBytes)
        let meta = BMFF.fullBox("meta", hdlr + pitm + iinf + iloc + iprp + iref + idat)
        return BMFF.ftyp("heic", ["mif1", "heic"]) + meta + BMFF.box("mdat", [0, 0, 0, 0])
    }

    static func irot(_ angle: UInt8) -> [UInt8] { BMFF.box("irot", [angle]) }
    static func imir(_ axis: UInt8) -> [UInt8] { BMFF.box("imir", [axis]) }

    @Test("HEIF irot/imir: size as displayed, equivalent EXIF orientation", arguments: [
        ([UInt8](), ImageOrientation?.none, false),
        ([1], .left, true),  // 90° anticlockwise
        ([2], .down, false),
        ([3], .right, true),
    ] as [([UInt8], ImageOrientation?, Bool)])
    func heifRotation(angles: [UInt8], orientation: ImageOrientation?, swapped: Bool) {
        let bytes = Self.heif(width: 400, height: 300, transforms: angles.map(Self.irot))
        let result = MediaProbe.probe(contents: bytes, timeZone: Fixture.utc, now: Fixture.now)
        #expect(result.format == .heic)
        #expect(result.metadata.orientation == orientation)
        #expect(result.metadata.pixelWidth == (swapped ? 300 : 400))
        #expect(result.metadata.pixelHeight == (swapped ? 400 : 300))
        #expect(result.metadata.problems.isEmpty, "\(result.metadata.problems)")
    }

    @Test func heifMirrorComposition() {
        // Rotate 90° anticlockwise, then mirror left-right: the top-right corner stays put, a flip about the
        // anti-diagonal (EXIF 7, transverse). Mirrored top-bottom instead: a transpose (EXIF 5).
        let a = MediaProbe.probe(contents: Self.heif(width: 4, height: 3, transforms: [Self.irot(1), Self.imir(0)]))
        #expect(a.metadata.orientation == .rightMirrored)
        #expect(a.metadata.pixelWidth == 3)
        let b = MediaProbe.probe(contents: Self.heif(width: 4, height: 3, transforms: [Self.irot(1), Self.imir(1)]))
        #expect(b.metadata.orientation == .leftMirrored)
        let c = MediaProbe.probe(contents: Self.heif(width: 4, height: 3, transforms: [Self.imir(0)]))
        #expect(c.metadata.orientation == .upMirrored)
        #expect(c.metadata.pixelWidth == 4)
    }

    @Test("HEIF Exif item in idat goes to libexif")
    func heifExif() throws {
        var tiff = TIFFBuilder()
        tiff.ifd0 = [(0x010F, .ascii("Apple")), (0x0112, .short([6]))]
        tiff.exif = [(0x9003, .ascii("2022:02:02 02:02:02")), (0x9011, .ascii("+00:00"))]
        let result = MediaProbe.probe(
            contents: Self.heif(width: 40, height: 30, transforms: [Self.irot(3)], exif: tiff.build()),
            timeZone: Fixture.utc, now: Fixture.now)
        #expect(result.metadata.make == "Apple")
        #expect(result.metadata.creationDate == Fixture.date(2022, 2, 2, 2, 2, 2))
        // irot decides the display, not the EXIF orientation (which here agrees).
        #expect(result.metadata.orientation == .right)
        #expect(result.metadata.pixelWidth == 30)
    }

    @Test("Canon CR3: EXIF from the CMT boxes")
    func cr3() throws {
        let cmt1 = TIFFBuilder.standalone([(0x010F, .ascii("Canon")), (0x0110, .ascii("Canon EOS R6")), (0x0112, .short([1]))])
        let cmt2 = TIFFBuilder.standalone([
            (0x9003, .ascii("2023:03:03 13:13:13")), (0x9011, .ascii("+01:00")),
            (0xA002, .long([6000])), (0xA003, .long([4000])),
        ])
        let cmt4 = TIFFBuilder.standalone([
            (0x0001, .ascii("N")), (0x0002, .rational([(47, 1), (30, 1), (0, 1)])),
            (0x0003, .ascii("E")), (0x0004, .rational([(8, 1), (15, 1), (0, 1)])),
        ])
        let canon = [0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48]
            as [UInt8]
        let uuid = BMFF.box("uuid", canon + BMFF.box("CMT1", cmt1) + BMFF.box("CMT2", cmt2) + BMFF.box("CMT4", cmt4))
        let bytes = BMFF.ftyp("crx ", ["crx ", "isom"]) + BMFF.box("moov", uuid) + BMFF.box("mdat", [0])
        let result = MediaProbe.probe(contents: bytes, fileName: "IMG_0001.CR3", timeZone: Fixture.utc, now: Fixture.now)
        #expect(result.format == .cr3)
        let metadata = result.metadata
        #expect(metadata.make == "Canon" && metadata.model == "Canon EOS R6")
        #expect(metadata.creationDate == Fixture.date(2023, 3, 3, 13, 13, 13, offset: 3600))
        #expect(metadata.pixelWidth == 6000 && metadata.pixelHeight == 4000)
        #expect(metadata.location?.latitude == 47.5 && metadata.location?.longitude == 8.25)
    }

    static func movie(mvhdVersion: UInt8 = 0, tkhdVersion: UInt8 = 0, timescale: UInt32 = 600, duration: UInt64 = 1800,
                      creation: UInt64 = 1_704_067_200 + 2_082_844_800, tracks: [[UInt8]]? = nil) -> [UInt8]
    {
        let mvhd = BMFF.mvhd(version: mvhdVersion, creation: creation, timescale: timescale, duration: duration)
        let trak = tracks ?? [BMFF.videoTrack(version: tkhdVersion, width: 1920, height: 1080)]
        return BMFF.box("moov", mvhd + trak.joined())
    }

    @Test("mvhd/tkhd versions 0 and 1", arguments: [(0, 0), (1, 1), (0, 1), (1, 0)] as [(UInt8, UInt8)])
    func headerVersions(mvhd: UInt8, tkhd: UInt8) {
        let bytes = BMFF.ftyp("isom", ["isom"]) + Self.movie(mvhdVersion: mvhd, tkhdVersion: tkhd)
        let metadata = MediaProbe.probe(contents: bytes, timeZone: Fixture.utc, now: Fixture.now).metadata
        #expect(metadata.pixelWidth == 1920 && metadata.pixelHeight == 1080)
        #expect(metadata.duration == 3)
        // 2024-01-01T00:00:00Z in seconds since 1904
        #expect(metadata.creationDate == Fixture.date(2024, 1, 1, 0, 0, 0))
        #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    }

    @Test func rotatedTrack() {
        let rotated = BMFF.videoTrack(version: 0, width: 1920, height: 1080, matrix: BMFF.matrix(a: 0, b: 0x10000, c: -0x10000, d: 0))
        let bytes = BMFF.ftyp("qt  ", ["qt  "]) + Self.movie(tracks: [rotated])
        let metadata = MediaProbe.probe(contents: bytes).metadata
        #expect(metadata.pixelWidth == 1080 && metadata.pixelHeight == 1920)
    }

    @Test func hostileHeaders() {
        // Zero timescale, audio only, absurd durations and dates.
        let zero = MediaProbe.probe(contents: BMFF.ftyp("isom", []) + Self.movie(timescale: 0)).metadata
        #expect(zero.duration == nil && zero.hasProblem(.implausibleDuration))
        let sound = BMFF.box("trak", BMFF.box("mdia", BMFF.fullBox("hdlr", be32(0) + Array("soun".utf8) + [0])))
        let audio = MediaProbe.probe(contents: BMFF.ftyp("mp42", []) + Self.movie(tracks: [sound])).metadata
        #expect(audio.hasProblem(.noVideoTrack) && audio.pixelWidth == nil && audio.duration == 3)
        let long = MediaProbe.probe(contents: BMFF.ftyp("isom", []) + Self.movie(timescale: 1, duration: 10_000_000)).metadata
        #expect(long.duration == nil && long.hasProblem(.implausibleDuration))
        let future = MediaProbe.probe(
            contents: BMFF.ftyp("isom", []) + Self.movie(mvhdVersion: 1, creation: 4_000_000_000 + 2_082_844_800),
            now: Fixture.now).metadata
        #expect(future.creationDate == nil && future.hasProblem(.implausibleDate))
        let epoch1904 = MediaProbe.probe(contents: BMFF.ftyp("isom", []) + Self.movie(creation: 86_400)).metadata
        #expect(epoch1904.creationDate == nil && epoch1904.hasProblem(.implausibleDate))
    }

    @Test("a box claiming more than the file has, a box smaller than its header")
    func brokenBoxes() {
        var truncated = BMFF.ftyp("isom", []) + Self.movie()
        truncated.removeLast(40)  // the track header is cut off, moov claims 40 bytes too many
        let a = MediaProbe.probe(contents: truncated).metadata
        #expect(a.hasProblem(.truncated))
        #expect(a.duration == 3)  // mvhd came before the cut

        let tiny = BMFF.ftyp("isom", []) + be32(4) + Array("moov".utf8) + [0, 0, 0, 0]
        let b = MediaProbe.probe(contents: tiny)
        #expect(b.format == .mp4 && b.metadata.hasProblem(.malformed))

        let noMoov = MediaProbe.probe(contents: BMFF.ftyp("isom", []) + BMFF.box("mdat", [1, 2, 3]))
        #expect(noMoov.metadata.hasProblem(.truncated))
    }

    @Test("nested size-0 and 64-bit boxes terminate")
    func specialSizes() {
        // mdat with size 0 (to the end of the file) before moov: moov is unreachable but nothing breaks.
        let zero = BMFF.ftyp("isom", []) + be32(0) + Array("mdat".utf8) + [1, 2, 3] + Self.movie()
        #expect(MediaProbe.probe(contents: zero).format == .mp4)
        // A 64-bit size of 16 (just the header), then moov.
        let large = BMFF.ftyp("isom", []) + be32(1) + Array("free".utf8) + be64(16) + Self.movie()
        #expect(MediaProbe.probe(contents: large).metadata.duration == 3)
        // A 64-bit size beyond Int64.
        let huge = BMFF.ftyp("isom", []) + be32(1) + Array("mdat".utf8) + be64(UInt64.max) + Self.movie()
        let result = MediaProbe.probe(contents: huge)
        #expect(result.metadata.hasProblem(.truncated))
    }

    @Test("an iloc of empty extents does not loop for long")
    func emptyExtents() {
        // iloc v1 with all field sizes 0: every extent takes no bytes. 4096 items of 65,535 extents each.
        var items: [UInt8] = []
        for id in 1...4096 { items += be16(UInt16(id)) + be16(0) + be16(0) + be16(0xFFFF) }
        let iloc = BMFF.fullBox("iloc", version: 1, [0x00, 0x00] + be16(4096) + items)
        let bytes = BMFF.ftyp("heic", ["mif1"]) + BMFF.fullBox("meta", iloc)
        let start = Date()
        let result = MediaProbe.probe(contents: bytes)
        #expect(result.format == .heic)
        #expect(Date().timeIntervalSince(start) < 2)
    }

    @Test("a multi-GB sparse file with a 64-bit mdat and moov at the end is read by seeking")
    func sparseMultiGigabyteMovie() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mediaprobe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("big.mp4").path
        let mdatSize: UInt64 = 5 << 30  // 5 GiB, never written: a hole
        let head = BMFF.ftyp("isom", ["isom", "mp42"]) + be32(1) + Array("mdat".utf8) + be64(mdatSize)
        let moov = Self.movie(mvhdVersion: 1, tkhdVersion: 1, timescale: 1000, duration: 3_600_000)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(head)))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seek(toOffset: UInt64(BMFF.ftyp("isom", ["isom", "mp42"]).count) + mdatSize)
        handle.write(Data(moov))
        try handle.close()

        let start = Date()
        let result = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.now)
        #expect(Date().timeIntervalSince(start) < 2)
        #expect(result.format == .mp4)
        #expect(result.file?.size == Int64(UInt64(BMFF.ftyp("isom", ["isom", "mp42"]).count) + mdatSize) + Int64(moov.count))
        #expect(result.metadata.duration == 3600)
        #expect(result.metadata.pixelWidth == 1920)
        #expect(result.metadata.problems.isEmpty, "\(result.metadata.problems)")
    }
}
