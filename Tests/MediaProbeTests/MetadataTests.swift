import Foundation
import Testing

@testable import MediaProbe

@Suite("Metadata from real files")
struct FixtureMetadataTests {
    @Test("displayed sizes", arguments: [
        ("camera.jpg", 64, 48), ("portrait.jpg", 48, 64), ("panorama-hdr.jpg", 200, 50), ("plain.png", 40, 30),
        ("screenshot.png", 60, 120), ("anim.gif", 20, 10), ("lossy.webp", 33, 17), ("lossless.webp", 35, 19),
        ("extended.webp", 37, 21), ("image.tiff", 16, 24), ("tiny.dng", 24, 16), ("image.heic", 16, 16),
        ("image.avif", 16, 16), ("clip.mp4", 16, 16), ("clip.mov", 16, 32), ("clip.m4v", 16, 16),
        ("jpeg-named.txt", 8, 8),
    ])
    func sizes(name: String, width: Int, height: Int) throws {
        let metadata = try Fixture.probe(name).metadata
        #expect(metadata.pixelWidth == width)
        #expect(metadata.pixelHeight == height)
        #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    }

    @Test("orientation 6 and 8 swap the stored size")
    func orientation() throws {
        let portrait = try Fixture.probe("portrait.jpg").metadata
        #expect(portrait.orientation == .right)
        #expect(portrait.orientation?.swapsDimensions == true)
        let tiff = try Fixture.probe("image.tiff").metadata
        #expect(tiff.orientation == .left)
        let camera = try Fixture.probe("camera.jpg").metadata
        #expect(camera.orientation == .up)
    }

    @Test("date with OffsetTimeOriginal and sub-seconds")
    func dateWithOffset() throws {
        // 2023:07:14 18:30:05.25 +02:00, whatever zone the caller gives.
        for zone in ["UTC", "America/New_York", "Asia/Tokyo"] {
            let metadata = try Fixture.probe("camera.jpg", timeZone: TimeZone(identifier: zone)!).metadata
            #expect(metadata.creationDate == Fixture.date(2023, 7, 14, 18, 30, 5.25, offset: 7200))
            #expect(metadata.creationDateOffset == 7200)
            #expect(metadata.creationDateSource == .exifDateTimeOriginal)
        }
        let negative = try Fixture.probe("panorama-hdr.jpg").metadata
        #expect(negative.creationDate == Fixture.date(2021, 3, 3, 3, 3, 3, offset: -5 * 3600))
        #expect(negative.creationDateOffset == -18000)
    }

    @Test("date without offset is read in the caller's zone")
    func dateWithoutOffset() throws {
        // 2022:12:24 09:15:00, no offset tag.
        let berlin = try Fixture.probe("portrait.jpg", timeZone: TimeZone(identifier: "Europe/Berlin")!).metadata
        #expect(berlin.creationDate == Fixture.date(2022, 12, 24, 9, 15, 0, offset: 3600))
        #expect(berlin.creationDateOffset == nil)
        let saoPaulo = try Fixture.probe("portrait.jpg", timeZone: TimeZone(identifier: "America/Sao_Paulo")!)
            .metadata
        #expect(saoPaulo.creationDate == Fixture.date(2022, 12, 24, 9, 15, 0, offset: -3 * 3600))
        let utc = try Fixture.probe("portrait.jpg").metadata
        #expect(utc.creationDate == Fixture.date(2022, 12, 24, 9, 15, 0))
    }

    @Test("GPS with N/E and S/W references and altitude references")
    func gps() throws {
        let camera = try #require(try Fixture.probe("camera.jpg").metadata.location)
        #expect(abs(camera.latitude - 48.8584) < 1e-6)
        #expect(abs(camera.longitude - 2.2945) < 1e-6)
        #expect(camera.altitude == 35.5)
        let portrait = try #require(try Fixture.probe("portrait.jpg").metadata.location)
        #expect(abs(portrait.latitude + 22.9519) < 1e-6)
        #expect(abs(portrait.longitude + 43.2105) < 1e-6)
        #expect(portrait.altitude == -12)
        let heic = try #require(try Fixture.probe("image.heic").metadata.location)
        #expect(abs(heic.latitude - 35.6586) < 1e-6 && abs(heic.longitude - 139.7454) < 1e-6)
        #expect(heic.altitude == nil)
    }

    @Test("make and model")
    func camera() throws {
        let metadata = try Fixture.probe("camera.jpg").metadata
        #expect(metadata.make == "Canon")
        #expect(metadata.model == "Canon EOS R5")
        #expect(try Fixture.probe("tiny.dng").metadata.model == "Q2")
        #expect(try Fixture.probe("extended.webp").metadata.make == "Google")
        #expect(try Fixture.probe("plain.png").metadata.make == nil)
    }

    @Test("lying metadata is dropped with a problem: lat 123, year 2999")
    func lyingFuture() throws {
        let result = try Fixture.probe("lying-future.jpg")
        let metadata = result.metadata
        #expect(result.format == .jpeg)
        #expect(metadata.location == nil)
        #expect(metadata.creationDate == nil)
        #expect(metadata.hasProblem(.implausibleLocation))
        #expect(metadata.hasProblem(.implausibleDate))
        // What is believable stays.
        #expect(metadata.make == "Lie Camera")
        #expect(metadata.pixelWidth == 32)
    }

    @Test("lying metadata is dropped with a problem: lon 200, year 1700, orientation 9")
    func lyingPast() throws {
        let metadata = try Fixture.probe("lying-past.jpg").metadata
        #expect(metadata.location == nil && metadata.hasProblem(.implausibleLocation))
        #expect(metadata.creationDate == nil && metadata.hasProblem(.implausibleDate))
        #expect(metadata.orientation == nil && metadata.hasProblem(.invalidOrientation))
        #expect(metadata.pixelWidth == 32 && metadata.pixelHeight == 32)
    }

    @Test("'now' decides what the future is")
    func futureRelativeToNow() throws {
        let path = try Fixture.path("camera.jpg")  // 2023-07-14
        let before = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.date(2023, 7, 13, 0, 0, 0))
        #expect(before.metadata.creationDate == nil && before.metadata.hasProblem(.implausibleDate))
        let sameDay = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.date(2023, 7, 14, 0, 0, 0))
        #expect(sameDay.metadata.creationDate != nil)
    }

    @Test("subtypes: screenshot, HDR; a 4:1 camera photo without panorama evidence is no panorama")
    func subtypes() throws {
        let screenshot = try Fixture.probe("screenshot.png").metadata
        #expect(screenshot.mediaSubtypes == .photoScreenshot)
        // 200x50 from an iPhone, CustomRendered 3 (HDR): wide, but nothing in it says panorama.
        let wide = try Fixture.probe("panorama-hdr.jpg").metadata
        #expect(wide.mediaSubtypes == .photoHDR)
        #expect(try Fixture.probe("camera.jpg").metadata.mediaSubtypes.isEmpty)
        #expect(try Fixture.probe("plain.png").metadata.mediaSubtypes.isEmpty)
    }

    @Test("screenshot tool names make screenshots only without camera EXIF")
    func screenshotNames() throws {
        let png = try Fixture.bytes("plain.png")
        let named = MediaProbe.probe(contents: png, fileName: "Pictures/Screenshot 2024-01-01 at 10.00.00.png")
        #expect(named.metadata.mediaSubtypes == .photoScreenshot)
        let german = MediaProbe.probe(contents: png, fileName: "Bildschirmfoto 2024-01-01 um 10.00.00.png")
        #expect(german.metadata.mediaSubtypes == .photoScreenshot)
        let camera = MediaProbe.probe(contents: try Fixture.bytes("camera.jpg"), fileName: "Screenshot_1.jpg")
        #expect(camera.metadata.mediaSubtypeHints.isEmpty && camera.metadata.mediaSubtypes.isEmpty)
        #expect(MediaProbe.probe(contents: png, fileName: "holiday.png").metadata.mediaSubtypeHints.isEmpty)
    }

    @Test("burst identifiers from camera file names")
    func burstNames() {
        #expect(MetadataBuilder.burstIdentifier(fileName: "00001IMG_00001_BURST20180101123456789.jpg")
            == "BURST20180101123456789")
        #expect(MetadataBuilder.burstIdentifier(fileName: "00000IMG_00000_BURST20180101123456789_COVER.jpg")
            == "BURST20180101123456789")
        #expect(MetadataBuilder.burstIdentifier(fileName: "IMG_20180101_101010_BURST003.jpg")
            == "IMG_20180101_101010_BURST")
        #expect(MetadataBuilder.burstIdentifier(fileName: "IMG_1234.jpg") == nil)
        #expect(MetadataBuilder.burstIdentifier(fileName: "BURSTY.jpg") == nil)
        #expect(MetadataBuilder.burstIdentifier(fileName: "dir_BURST1/IMG_1.jpg") == nil)
        #expect(MetadataBuilder.burstIdentifier(fileName: "a/img_burst20180101123456789.jpg") == "BURST20180101123456789")
    }

    @Test("WebP, TIFF and HEIC EXIF reach libexif")
    func exifInOtherContainers() throws {
        let webp = try Fixture.probe("extended.webp").metadata
        #expect(webp.creationDate == Fixture.date(2020, 2, 29, 23, 59, 59, offset: 9 * 3600))
        let tiff = try Fixture.probe("image.tiff").metadata
        #expect(tiff.creationDate == Fixture.date(2019, 1, 1, 0, 0, 1))
        #expect(tiff.make == "Nikon")
        let heic = try Fixture.probe("image.heic").metadata
        #expect(heic.creationDate == Fixture.date(2024, 1, 2, 3, 4, 5, offset: 3600))
        #expect(heic.model == "iPhone 15")
        #expect(heic.orientation == nil)  // no irot/imir
    }

    @Test("MP4: duration, mvhd date (UTC), 3GPP location")
    func mp4() throws {
        let metadata = try Fixture.probe("clip.mp4").metadata
        #expect(metadata.duration == 1)
        #expect(metadata.creationDate == Fixture.date(2020, 6, 1, 12, 0, 0))
        #expect(metadata.creationDateSource == .movieHeader)
        #expect(metadata.creationDateOffset == nil)
        let location = try #require(metadata.location)
        #expect(abs(location.latitude - 40.6892) < 1e-3 && abs(location.longitude + 74.0445) < 1e-3)
        #expect(metadata.orientation == nil)
    }

    @Test("MOV: rotation matrix, moov at the end, Apple metadata keys")
    func mov() throws {
        let metadata = try Fixture.probe("clip.mov").metadata
        #expect(metadata.pixelWidth == 16 && metadata.pixelHeight == 32)
        #expect(metadata.duration == 1)
        #expect(metadata.creationDate == Fixture.date(2021, 5, 1, 10, 20, 30, offset: 7200))
        #expect(metadata.creationDateOffset == 7200)
        #expect(metadata.creationDateSource == .quickTimeCreationDate)
        #expect(metadata.make == "Apple" && metadata.model == "iPhone 12")
        #expect(metadata.contentIdentifier == "4F1E2D3C-0000-4000-8000-00000000BEEF")
        let location = try #require(metadata.location)
        #expect(location.latitude == 51.5007 && location.longitude == -0.1246 && location.altitude == 20)
    }

    @Test("M4V without creation time has no date and no problem")
    func m4v() throws {
        let metadata = try Fixture.probe("clip.m4v").metadata
        #expect(metadata.creationDate == nil)
        #expect(metadata.duration == 1)
        #expect(metadata.problems.isEmpty)
    }

    @Test("probe reports the file's status and can hash through the same descriptor")
    func fileStatusAndHash() throws {
        let path = try Fixture.path("camera.jpg")
        let result = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.now, options: .contentHash)
        let expected = try ContentHashing.hash(path)
        #expect(result.contentHash?.description == expected)
        #expect(result.file?.size == Int64(try Fixture.bytes("camera.jpg").count))
        #expect(result.file?.inode != 0)
        #expect(!result.changedWhileReading)
        #expect(try Fixture.probe("camera.jpg").contentHash == nil)
    }
}

/// The test target depends on MediaProbe only; ContentHash comes along through its public API.
enum ContentHashing {
    static func hash(_ path: String) throws -> String {
        try MediaProbe.probe(fileAt: path, options: .contentHash).contentHash!.description
    }
}
