import Foundation
import Testing

@testable import MediaProbe

/// The smart-album rules users judge photosync by: what is a panorama, what is a screenshot.
@Suite("Panoramas: only the file's own evidence")
struct PanoramaRuleTests {
    /// Camera EXIF (make, model) with optional extra Exif IFD entries.
    static func camera(_ exif: [(UInt16, TIFFBuilder.Value)] = [], orientation: UInt16 = 1) -> [UInt8] {
        var tiff = TIFFBuilder()
        tiff.ifd0 = [(0x010F, .ascii("Canon")), (0x0110, .ascii("Canon EOS R5")), (0x0112, .short([orientation]))]
        tiff.exif = exif
        return tiff.build()
    }

    @Test("ordinary camera photos are never panoramas", arguments: [
        (6000, 4000), (4032, 3024), (1920, 1080), (3000, 3000),  // 3:2, 4:3, 16:9, 1:1
        (4000, 6000), (3024, 4032), (1080, 1920),  // the same, portrait
    ])
    func ordinaryAspects(width: Int, height: Int) {
        for orientation: UInt16 in [1, 6] {
            let metadata = Synthetic.probe(Synthetic.jpeg(
                tiff: Self.camera(orientation: orientation), width: width, height: height))
            #expect(!metadata.mediaSubtypes.contains(.photoPanorama), "\(width)x\(height) orientation \(orientation)")
        }
    }

    @Test("a wide camera photo without panorama evidence is not a panorama", arguments: [
        (4000, 2000), (8000, 2000), (2000, 8000), (12000, 1000),
    ])
    func wideWithoutEvidence(width: Int, height: Int) {
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: Self.camera(), width: width, height: height))
        #expect(!metadata.mediaSubtypes.contains(.photoPanorama))
    }

    @Test("GPano XMP makes a panorama, at any aspect", arguments: [
        #"GPano:ProjectionType="equirectangular""#, #"GPano:ProjectionType="cylindrical""#,
        #"GPano:UsePanoramaViewer="True""#,
    ])
    func gPano(attributes: String) {
        for (width, height) in [(8000, 4000), (4032, 3024)] {
            let packet = XMPSample.packet(attributes: attributes)
            let metadata = Synthetic.probe(Synthetic.jpeg(tiff: Self.camera(), width: width, height: height, xmp: packet))
            #expect(metadata.mediaSubtypes.contains(.photoPanorama), "\(attributes) \(width)x\(height)")
        }
    }

    @Test("GPano that says no, or names no panoramic projection, is not a panorama")
    func gPanoNegative() {
        for attributes in [
            #"GPano:ProjectionType="equirectangular" GPano:UsePanoramaViewer="False""#,
            #"GPano:ProjectionType="perspective""#, #"GPano:PoseHeadingDegrees="90""#,
        ] {
            let metadata = Synthetic.probe(Synthetic.jpeg(
                tiff: Self.camera(), width: 8000, height: 2000, xmp: XMPSample.packet(attributes: attributes)))
            #expect(!metadata.mediaSubtypes.contains(.photoPanorama), "\(attributes)")
        }
    }

    @Test("Apple's CustomRendered 6 makes a panorama")
    func appleCustomRendered() {
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: Self.camera([(0xA401, .short([6]))]), width: 4032, height: 3024))
        #expect(metadata.mediaSubtypes == .photoPanorama)
    }

    /// A Fujifilm maker note: `FUJIFILM`, the offset 12, then a little-endian IFD of SHORT entries.
    static func fujifilmNote(_ entries: [(tag: UInt16, value: UInt16)]) -> [UInt8] {
        func le16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
        var note = Array("FUJIFILM".utf8) + XMPSample.le32(12) + le16(UInt16(entries.count))
        for entry in entries.sorted(by: { $0.tag < $1.tag }) {
            note += le16(entry.tag) + le16(3) + XMPSample.le32(1) + le16(entry.value) + [0, 0]
        }
        return note + XMPSample.le32(0)
    }

    /// A Sony maker note: `SONY DSC ` and three NULs, then an IFD in the EXIF's (big-endian) byte order.
    static func sonyNote(sceneMode: UInt32) -> [UInt8] {
        Array("SONY DSC ".utf8) + [0, 0, 0] + TIFFBuilder.directory([(0xB023, .long([sceneMode]))], at: 12)
    }

    @Test("maker notes that say the camera stitched a panorama", arguments: [
        (fujifilmNote([(0x1150, 32)]), true),  // CompositeImageMode: Panorama
        (fujifilmNote([(0x1153, 180), (0x1154, 1)]), true),  // PanoramaAngle, PanoramaDirection
        (fujifilmNote([(0x1150, 128)]), false),  // HDR
        (sonyNote(sceneMode: 18), true),  // Sweep Panorama
        (sonyNote(sceneMode: 23), true),  // 3D Sweep Panorama
        (sonyNote(sceneMode: 16), false),  // Auto
    ])
    func makerNotes(note: [UInt8], panorama: Bool) {
        let metadata = Synthetic.probe(Synthetic.jpeg(
            tiff: Self.camera([(0x927C, .undefined(note))]), width: 8192, height: 1856))
        #expect(metadata.mediaSubtypes.contains(.photoPanorama) == panorama)
    }
}

@Suite("Screenshots: the tools' file names, the files' own markers")
struct ScreenshotRuleTests {
    static func probe(_ bytes: [UInt8], name: String) -> MediaMetadata {
        MediaProbe.probe(contents: bytes, fileName: "Pictures/" + name, timeZone: Fixture.utc, now: Fixture.now).metadata
    }

    static let png = XMPSample.png(xmp: nil, width: 1920, height: 1080)

    @Test("names the screenshot tools write are screenshots", arguments: [
        "Screenshot_20240105-101010.png",  // Android (Pixel, AOSP)
        "Screenshot_20240105-101010_Chrome.png",  // Android 12+, with the app
        "Screenshot_20240105-101010-display-2.png",  // Android, a connected display
        "Screenshot_2014-01-05-10-10-10.png",  // Android 4.x
        "Screenshot_2024-01-05-10-10-10-123_com.android.chrome.jpg",  // Xiaomi MIUI
        "Screenshot_20240105_101010_Chrome.jpg",  // Samsung One UI (JPEG)
        "Screenshot 2024-01-05 at 10.10.10.png",  // macOS 13+
        "Screenshot 2024-01-05 at 10.10.10\u{202F}AM.png",  // macOS 13+, 12-hour clock
        "Screen Shot 2019-01-05 at 10.10.10 AM.png",  // macOS 10.14–12
        "Screen Shot 2019-01-05 at 10.10.10 AM (2).png",
        "Bildschirmfoto 2024-01-05 um 10.10.10.png",  // macOS, German
        "Capture d’écran 2024-01-05 à 10.10.10.png",  // macOS, French
        "Screenshot from 2024-01-05 10-10-10.png",  // gnome-screenshot
        "Screenshot From 2024-01-05 10-10-10.png",  // GNOME Shell 42+
        "Bildschirmfoto vom 2024-01-05 10-10-10.png",  // GNOME, German
        "Captura de pantalla de 2024-01-05 10-10-10.png",  // GNOME, Spanish
        "Screenshot_20240105_101010.png",  // KDE Spectacle
        "Screenshot_2024-01-05_10-10-10.png",  // Xfce
        "Screenshot 2024-01-05 101010.png",  // Windows 11 Snipping Tool
        "Screenshot (12).png", "Screenshot.png",  // Windows Win+PrtScn
        "Screenshot 2024-01-05 10.10.10 AM.png",  // ChromeOS
        "Screenshot_2024-01-05.png",  // the README's sample
        "screenshot_20240105-101010.PNG",  // any ASCII case
    ])
    func toolNames(name: String) {
        let metadata = Self.probe(Self.png, name: name)
        #expect(metadata.mediaSubtypes == .photoScreenshot, "\(name)")
    }

    @Test("near misses are not screenshots", arguments: [
        "Screenshots 2024-01-05.png", "MyScreenshot_2024-01-05.png", "Screenshot ideas.png", "Screenshot_1.png",
        "Screenshot_2024-13-05.png", "Screenshot_2024-02-32.png", "Screenshot_1850-01-01.png", "Screenshot2024-01-05.png",
        "screenshot-tool-logo.png", "Screenshot (abc).png", "Screenshot ().png", "IMG_20240105_101010.png",
        "Screenshot_20240105x.png", "Screen Shots 2024-01-05.png", "Screenshot of my desktop.png",
        "Screenshot_2024-01.png", "2024-01-05 Screenshot.png", "Screenshot from the beach.png",
    ])
    func nearMisses(name: String) {
        #expect(!Self.probe(Self.png, name: name).mediaSubtypes.contains(.photoScreenshot), "\(name)")
    }

    @Test("a name mentioning a screenshot, without camera EXIF, is only a hint")
    func hints() {
        for name in ["Screenshot of my desktop.png", "old screenshot.png", "MyScreenshot_2024-01-05.png"] {
            let metadata = Self.probe(Self.png, name: name)
            #expect(metadata.mediaSubtypeHints == .photoScreenshot && metadata.mediaSubtypes.isEmpty, "\(name)")
        }
        #expect(Self.probe(Self.png, name: "holiday.png").mediaSubtypeHints.isEmpty)
    }

    @Test("a camera photo named like a screenshot is a photo")
    func cameraEvidenceWins() throws {
        let camera = try Fixture.bytes("camera.jpg")
        for name in ["Screenshot_20240105-101010.jpg", "Screenshot 2024-01-05 at 10.10.10.jpg"] {
            let metadata = Self.probe(camera, name: name)
            #expect(metadata.mediaSubtypes.isEmpty && metadata.mediaSubtypeHints.isEmpty, "\(name)")
        }
        // A camera that identifies itself in XMP only.
        let xmpCamera = XMPSample.png(xmp: XMPSample.packet(attributes: #"tiff:Model="Pixel 8""#))
        #expect(Self.probe(xmpCamera, name: "Screenshot_20240105-101010.png").mediaSubtypes.isEmpty)
        // A raw file is a camera's, whatever its name.
        let raw = DetectionTests.tiff()
        let metadata = Self.probe(raw, name: "Screenshot_20240105-101010.nef")
        #expect(metadata.mediaSubtypes.isEmpty)
    }

    @Test("the UserComment marker makes a screenshot whatever the name (iOS names them IMG_…)")
    func userComment() throws {
        #expect(Self.probe(try Fixture.bytes("screenshot.png"), name: "IMG_0001.PNG").mediaSubtypes == .photoScreenshot)
        let xmp = XMPSample.packet(body: "<exif:UserComment>Screenshot</exif:UserComment>")
        #expect(Self.probe(XMPSample.png(xmp: xmp), name: "IMG_0002.PNG").mediaSubtypes == .photoScreenshot)
    }

    @Test("what the rule says of every file in Samples/")
    func samples() throws {
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Samples")
            .standardized
        let expected: [String: MediaSubtypes] = [
            "Screenshot_2024-01-05.png": .photoScreenshot,
            "Holidays/IMG_0090.jpg": [], "Holidays/Beach/IMG_0101.jpg": [], "Holidays/Beach/IMG_0102.jpg": [],
            "Family/IMG_2001.jpg": [], "Family/IMG_2002.jpg": [],
        ]
        var found: Set<String> = []
        for case let name as String in FileManager.default.enumerator(atPath: samples.path) ?? NSEnumerator() {
            var isDirectory: ObjCBool = false
            _ = FileManager.default.fileExists(atPath: samples.path + "/" + name, isDirectory: &isDirectory)
            if !isDirectory.boolValue, !name.hasPrefix(".") { found.insert(name) }
        }
        #expect(found == Set(expected.keys), "Samples/ changed: update this test")
        for (name, subtypes) in expected {
            let result = try MediaProbe.probe(fileAt: samples.path + "/" + name, timeZone: Fixture.utc, now: Fixture.now)
            #expect(result.metadata.mediaSubtypes == subtypes, "\(name)")
            #expect(result.metadata.problems.isEmpty, "\(name): \(result.metadata.problems)")
        }
    }
}
