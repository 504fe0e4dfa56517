import Foundation
import Testing

@testable import MediaProbe

/// Files built byte by byte, for metadata that tools refuse to write.
enum Synthetic {
    /// A baseline JPEG skeleton: SOI, APP1 Exif (and optionally APP1 XMP), SOF0 with the size, SOS, EOI.
    static func jpeg(tiff: [UInt8]?, width: Int = 64, height: Int = 48, xmp: String? = nil) -> [UInt8] {
        var out: [UInt8] = [0xFF, 0xD8]
        if let tiff {
            let payload = Array("Exif".utf8) + [0, 0] + tiff
            out += [0xFF, 0xE1] + be16(UInt16(payload.count + 2)) + payload
        }
        if let xmp {
            let payload = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0] + Array(xmp.utf8)
            out += [0xFF, 0xE1] + be16(UInt16(payload.count + 2)) + payload
        }
        let sof: [UInt8] = [8] + be16(UInt16(height)) + be16(UInt16(width)) + [1, 1, 0x11, 0]
        out += [0xFF, 0xC0] + be16(UInt16(sof.count + 2)) + sof
        out += [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 0x3F, 0, 0x12, 0x34, 0xFF, 0xD9]
        return out
    }

    static func probe(_ bytes: [UInt8], name: String = "x.jpg", zone: TimeZone = Fixture.utc) -> MediaMetadata {
        MediaProbe.probe(contents: bytes, fileName: name, timeZone: zone, now: Fixture.now).metadata
    }

    static func gps(lat: [(UInt32, UInt32)], latRef: String?, lon: [(UInt32, UInt32)], lonRef: String?)
        -> [(UInt16, TIFFBuilder.Value)]
    {
        var entries: [(UInt16, TIFFBuilder.Value)] = [(0x0002, .rational(lat)), (0x0004, .rational(lon))]
        if let latRef { entries.append((0x0001, .ascii(latRef))) }
        if let lonRef { entries.append((0x0003, .ascii(lonRef))) }
        return entries
    }
}

@Suite("Metadata validation on synthetic EXIF")
struct SyntheticExifTests {
    @Test func zeroDenominatorGPS() {
        var tiff = TIFFBuilder()
        tiff.ifd0 = [(0x010F, .ascii("Cam"))]
        tiff.gps = Synthetic.gps(lat: [(10, 1), (0, 0), (0, 1)], latRef: "N", lon: [(5, 1), (0, 1), (0, 1)], lonRef: "E")
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build()))
        #expect(metadata.location == nil)
        #expect(metadata.hasProblem(.malformedLocation))
        #expect(metadata.make == "Cam")
    }

    @Test func missingReferenceIsAssumedPositive() throws {
        var tiff = TIFFBuilder()
        tiff.gps = Synthetic.gps(lat: [(10, 1), (30, 1), (0, 1)], latRef: nil, lon: [(5, 1), (15, 1), (36, 1)], lonRef: "W")
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build()))
        let location = try #require(metadata.location)
        #expect(location.latitude == 10.5)
        #expect(abs(location.longitude + 5.26) < 1e-9)
        #expect(metadata.hasProblem(.malformedLocation))
    }

    @Test func unknownReferenceDropsTheLocation() {
        var tiff = TIFFBuilder()
        tiff.gps = Synthetic.gps(lat: [(10, 1)], latRef: "Q", lon: [(5, 1)], lonRef: "E")
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build()))
        #expect(metadata.location == nil && metadata.hasProblem(.malformedLocation))
    }

    @Test func nullIslandAndAbsurdAltitude() throws {
        var tiff = TIFFBuilder()
        tiff.gps = Synthetic.gps(lat: [(0, 1), (0, 1), (0, 1)], latRef: "N", lon: [(0, 1), (0, 1), (0, 1)], lonRef: "E")
        #expect(Synthetic.probe(Synthetic.jpeg(tiff: tiff.build())).hasProblem(.implausibleLocation))

        tiff.gps = Synthetic.gps(lat: [(45, 1)], latRef: "N", lon: [(7, 1)], lonRef: "E")
            + [(0x0006, .rational([(9_000_000, 1)])), (0x0005, .undefined([0]))]
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build()))
        let location = try #require(metadata.location)
        #expect(location.latitude == 45 && location.longitude == 7 && location.altitude == nil)
        #expect(metadata.hasProblem(.implausibleAltitude))
    }

    @Test func blankDateIsNoProblemButGarbageIs() {
        var tiff = TIFFBuilder()
        tiff.exif = [(0x9003, .ascii("    :  :     :  :  "))]
        let blank = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build()))
        #expect(blank.creationDate == nil && blank.problems.isEmpty)
        tiff.exif = [(0x9003, .ascii("yesterday at noon"))]
        let garbage = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build()))
        #expect(garbage.creationDate == nil && garbage.hasProblem(.unparseableDate))
        tiff.exif = [(0x9003, .ascii("2021:02:30 10:00:00"))]
        #expect(Synthetic.probe(Synthetic.jpeg(tiff: tiff.build())).hasProblem(.unparseableDate))
    }

    @Test func implausibleOriginalFallsBackToDigitized() {
        var tiff = TIFFBuilder()
        tiff.exif = [
            (0x9003, .ascii("1601:01:01 00:00:00")), (0x9004, .ascii("2015:05:05 05:05:05")),
            (0x9012, .ascii("-03:30")),
        ]
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build()))
        #expect(metadata.creationDateSource == .exifDateTimeDigitized)
        #expect(metadata.creationDate == Fixture.date(2015, 5, 5, 5, 5, 5, offset: -(3 * 3600 + 1800)))
        #expect(metadata.hasProblem(.implausibleDate))
    }

    @Test func invalidOffsetFallsBackToTheCallersZone() {
        var tiff = TIFFBuilder()
        tiff.exif = [(0x9003, .ascii("2020:07:01 12:00:00")), (0x9011, .ascii("+25:00"))]
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build()), zone: TimeZone(identifier: "Europe/Berlin")!)
        #expect(metadata.hasProblem(.invalidTimeZoneOffset))
        #expect(metadata.creationDateOffset == nil)
        // Summer time in Berlin: UTC+2.
        #expect(metadata.creationDate == Fixture.date(2020, 7, 1, 12, 0, 0, offset: 7200))
    }

    @Test func offsetTimeIsTheFallbackOffset() {
        var tiff = TIFFBuilder()
        tiff.exif = [(0x9003, .ascii("2020:01:01 00:00:00")), (0x9010, .ascii("+05:45"))]
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build()))
        #expect(metadata.creationDateOffset == 5 * 3600 + 45 * 60)
    }

    @Test func customRenderedAndAspect() {
        var tiff = TIFFBuilder()
        tiff.ifd0 = [(0x010F, .ascii("Apple"))]
        tiff.exif = [(0xA401, .short([6]))]
        #expect(Synthetic.probe(Synthetic.jpeg(tiff: tiff.build())).mediaSubtypes == .photoPanorama)
        tiff.exif = [(0xA401, .short([2]))]
        #expect(Synthetic.probe(Synthetic.jpeg(tiff: tiff.build())).mediaSubtypes == .photoHDR)
        tiff.exif = [(0xA401, .short([4]))]  // the original of an HDR pair: not HDR
        #expect(Synthetic.probe(Synthetic.jpeg(tiff: tiff.build())).mediaSubtypes.isEmpty)
        // Wide, from a camera or not: no panorama without evidence (see PanoramaRuleTests).
        #expect(Synthetic.probe(Synthetic.jpeg(tiff: tiff.build(), width: 100, height: 300)).mediaSubtypes.isEmpty)
        #expect(Synthetic.probe(Synthetic.jpeg(tiff: nil, width: 300, height: 100)).mediaSubtypes.isEmpty)
    }

    @Test func xmpSubtypes() {
        let pano = XMPSample.packet(attributes: #"GPano:ProjectionType="equirectangular""#)
        #expect(Synthetic.probe(Synthetic.jpeg(tiff: nil, xmp: pano)).mediaSubtypes == .photoPanorama)
        let shot = XMPSample.packet(body: """
            <exif:UserComment><rdf:Alt><rdf:li xml:lang="x-default">Screenshot</rdf:li></rdf:Alt></exif:UserComment>
            """)
        #expect(Synthetic.probe(Synthetic.jpeg(tiff: nil, xmp: shot)).mediaSubtypes == .photoScreenshot)
    }

    @Test func userCommentEncodings() {
        #expect(ExifReader.decodeUserComment(Array("ASCII\0\0\0Screenshot".utf8)) == "Screenshot")
        let ucs2 = Array("UNICODE\0".utf8) + Array("Hi".utf16).flatMap { be16($0) }
        #expect(ExifReader.decodeUserComment(ucs2) == "Hi")
        #expect(ExifReader.decodeUserComment([UInt8](repeating: 0, count: 8) + Array("x".utf8)) == "x")
        #expect(ExifReader.decodeUserComment(Array("Screenshot".utf8)) == "Screenshot")
    }

    @Test func appleMakerNote() throws {
        // "Apple iOS\0", version 1, "MM", then an IFD with offsets relative to the note.
        let entries: [(UInt16, TIFFBuilder.Value)] = [
            (0x0001, .slong([14])), (0x000A, .slong([3])),
            (0x000B, .ascii("BURST-UUID-1")), (0x0011, .ascii("LIVE-ID-42")),
        ]
        let note = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8) + TIFFBuilder.directory(entries, at: 14)
        var tiff = TIFFBuilder()
        tiff.ifd0 = [(0x010F, .ascii("Apple")), (0x0110, .ascii("iPhone 14"))]
        tiff.exif = [(0x927C, .undefined(note))]
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build()))
        #expect(metadata.mediaSubtypes.contains(.photoHDR))
        #expect(metadata.burstIdentifier == "BURST-UUID-1")
        #expect(metadata.contentIdentifier == "LIVE-ID-42")
        #expect(metadata.mediaSubtypeHints == .photoLive)
        #expect(!metadata.mediaSubtypes.contains(.photoLive))
    }

    @Test("EXIF sizes that an edit explains are normal: resized, rotated, cropped", arguments: [
        (4000, 3000), (32, 24), (4001, 3000), (48, 64), (3000, 4000), (1000, 1000), (64, 4000),
    ])
    func editedImageSizes(exifWidth: UInt32, exifHeight: UInt32) {
        var tiff = TIFFBuilder()
        tiff.exif = [(0xA002, .long([exifWidth])), (0xA003, .long([exifHeight]))]
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build(), width: 64, height: 48))
        #expect(metadata.pixelWidth == 64 && metadata.pixelHeight == 48)
        #expect(metadata.problems.isEmpty, "\(exifWidth)x\(exifHeight): \(metadata.problems)")
    }

    @Test("EXIF sizes of another image are an inconsistency; the container's size wins", arguments: [
        (40, 400), (60, 60), (20, 10), (400, 40),
    ])
    func foreignImageSizes(exifWidth: UInt32, exifHeight: UInt32) {
        var tiff = TIFFBuilder()
        tiff.exif = [(0xA002, .long([exifWidth])), (0xA003, .long([exifHeight]))]
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build(), width: 64, height: 48))
        #expect(metadata.pixelWidth == 64 && metadata.pixelHeight == 48)
        #expect(metadata.hasProblem(.inconsistent), "\(exifWidth)x\(exifHeight)")
    }

    @Test func zeroSizeIsImplausible() {
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: nil, width: 0, height: 48))
        #expect(metadata.pixelWidth == nil && metadata.hasProblem(.implausibleDimensions))
    }

    @Test func unreadableEXIFStillYieldsTheRest() {
        var bytes = Synthetic.jpeg(tiff: Array("XX garbage, not a TIFF header".utf8))
        let metadata = Synthetic.probe(bytes)
        #expect(metadata.hasProblem(.unreadableEXIF))
        #expect(metadata.pixelWidth == 64)
        // A segment longer than the file: truncated, no crash.
        bytes = Array(bytes.prefix(12))
        #expect(Synthetic.probe(bytes).hasProblem(.truncated))
    }
}

@Suite("Date parsing")
struct DateParsingTests {
    @Test func offsets() {
        #expect(DateRules.parseOffset("+02:00") == 7200)
        #expect(DateRules.parseOffset("-0330") == -12600)
        #expect(DateRules.parseOffset("+09") == 32400)
        #expect(DateRules.parseOffset("Z") == 0)
        #expect(DateRules.parseOffset("+19:00") == nil)
        #expect(DateRules.parseOffset("+02:75") == nil)
        #expect(DateRules.parseOffset("02:00") == nil)
        // Blanks around it are ignored, colons anywhere left out; three or five digits are refused.
        #expect(DateRules.parseOffset(" -05:3:0\t") == -19800)
        #expect(DateRules.parseOffset("+053") == nil)
        #expect(DateRules.parseOffset("+05300") == nil)
        #expect(DateRules.parseOffset("+0a:00") == nil)
        #expect(DateRules.parseOffset("") == nil)
    }

    /// The numbers of a date are kept without allocating, up to eight: a text with more is refused as one
    /// with eight would be.
    @Test func tooManyNumbersAreRefused() {
        #expect(DateRules.parseExifDateTime("2021:05:01 10:20:30:40") != nil)
        #expect(DateRules.parseExifDateTime("2021:05:01 10:20:30:40:50") == nil)
        #expect(DateRules.parseExifDateTime("2021:05:01 10:20:30:40:50:60:70:80:90") == nil)
        #expect(DateRules.parseISO8601("2021-05-01T10:20:30:40") == nil)
        #expect(DateRules.isPartialISO8601("2023-07"))
        #expect(!DateRules.isPartialISO8601("2023-07-01"))
    }

    @Test func iso8601() throws {
        let a = try #require(DateRules.parseISO8601("2021-05-01T10:20:30+0200"))
        #expect(a.offset == 7200 && a.time.hour == 10 && a.time.second == 30)
        let b = try #require(DateRules.parseISO8601("2020-06-01T12:00:00.250Z"))
        #expect(b.offset == 0 && b.time.fraction == 0.25)
        let c = try #require(DateRules.parseISO8601("2019-12-31 23:59:59-05:00"))
        #expect(c.offset == -18000 && c.time.day == 31)
        let d = try #require(DateRules.parseISO8601("2019-12-31"))
        #expect(d.offset == nil && d.time.hour == 0)
        #expect(DateRules.parseISO8601("not a date") == nil)
        #expect(DateRules.parseISO8601("2019-13-01T00:00:00Z") == nil)
    }

    @Test func exifVariants() throws {
        #expect(DateRules.parseExifDateTime("2020:02:29 23:59:59")?.day == 29)
        #expect(DateRules.parseExifDateTime("2021:02:29 23:59:59") == nil)
        #expect(DateRules.parseExifDateTime("2020-01-02T03:04") != nil)
        #expect(DateRules.parseExifDateTime("2020:01:02 03:04:05", subSeconds: "5")?.fraction == 0.5)
        #expect(DateRules.parseExifDateTime("20:01:02 03:04:05") == nil)
    }

    @Test("wall-clock times across a DST change use the zone's offset at that time")
    func daylightSaving() throws {
        let zone = TimeZone(identifier: "America/New_York")!
        let winter = try #require(DateRules.parseExifDateTime("2021:01:15 12:00:00"))
        let summer = try #require(DateRules.parseExifDateTime("2021:07:15 12:00:00"))
        #expect(DateRules.instant(of: winter, offset: nil, timeZone: zone) == Fixture.date(2021, 1, 15, 17, 0, 0))
        #expect(DateRules.instant(of: summer, offset: nil, timeZone: zone) == Fixture.date(2021, 7, 15, 16, 0, 0))
    }

    @Test func iso6709() throws {
        let a = try #require(MetadataBuilder.parseISO6709("+40.6892-074.0445/"))
        #expect(a.0 == 40.6892 && a.1 == -74.0445 && a.2 == nil)
        let b = try #require(MetadataBuilder.parseISO6709("+51.5007-000.1246+020.000/"))
        #expect(b.2 == 20)
        let c = try #require(MetadataBuilder.parseISO6709("+4041.35-07402.67/"))
        #expect(abs(c.0 - (40 + 41.35 / 60)) < 1e-9 && abs(c.1 + (74 + 2.67 / 60)) < 1e-9)
        #expect(MetadataBuilder.parseISO6709("garbage") == nil)
        #expect(MetadataBuilder.parseISO6709("+40.1/") == nil)
    }
}
