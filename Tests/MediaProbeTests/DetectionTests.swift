import Foundation
import Testing

@testable import MediaProbe

@Suite("Format detection by content")
struct DetectionTests {
    @Test(
        "fixtures are recognised by content",
        arguments: [
            ("camera.jpg", MediaFormat.jpeg, "public.jpeg"),
            ("plain.png", .png, "public.png"),
            ("screenshot.png", .png, "public.png"),
            ("anim.gif", .gif, "com.compuserve.gif"),
            ("lossy.webp", .webp, "org.webmproject.webp"),
            ("lossless.webp", .webp, "org.webmproject.webp"),
            ("extended.webp", .webp, "org.webmproject.webp"),
            ("image.tiff", .tiff, "public.tiff"),
            ("tiny.dng", .dng, "com.adobe.raw-image"),
            ("image.heic", .heic, "public.heic"),
            ("image.avif", .avif, "public.avif"),
            ("clip.mp4", .mp4, "public.mpeg-4"),
            ("clip.mov", .mov, "com.apple.quicktime-movie"),
            ("clip.m4v", .m4v, "com.apple.m4v-video"),
            ("jpeg-named.txt", .jpeg, "public.jpeg"),
        ])
    func fixture(name: String, format: MediaFormat, uti: String) throws {
        let detected = try MediaProbe.detectFormat(fileAt: Fixture.path(name))
        #expect(detected == format)
        #expect(detected?.typeIdentifier == uti)
        #expect(MediaFormat.detect(contents: try Fixture.bytes(name), fileName: name) == format)
    }

    @Test func kinds() {
        #expect(MediaFormat.jpeg.kind == .image)
        #expect(MediaFormat.cr3.kind == .image)
        #expect(MediaFormat.mov.kind == .video)
        #expect(MediaFormat.m4v.kind == .video)
        #expect(MediaFormat.dng.isRawImage && MediaFormat.nef.isRawImage && !MediaFormat.tiff.isRawImage)
        #expect(Set(MediaFormat.allCases.map(\.typeIdentifier)).count >= MediaFormat.allCases.count - 1)
    }

    @Test("text named .jpg is not media")
    func textNamedJPEG() throws {
        #expect(try MediaProbe.detectFormat(fileAt: Fixture.path("text.jpg")) == nil)
        let result = try Fixture.probe("text.jpg")
        #expect(!result.isMedia)
        #expect(result.metadata == MediaMetadata())
    }

    @Test("non-media and truncated signatures", arguments: [
        ("empty", [UInt8]()),
        ("zip", Array("PK\u{3}\u{4}\u{14}\0\0\0\u{8}\0".utf8) + [UInt8](repeating: 0, count: 30)),
        ("text", Array("Hello, world! This is plain text.".utf8)),
        ("JPEG SOI only", [0xFF, 0xD8, 0xFF]),
        ("PNG signature only", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
        ("GIF header only", Array("GIF89a".utf8) + [1, 0]),
        ("RIFF but WAVE", Array("RIFF".utf8) + [36, 0, 0, 0] + Array("WAVEfmt ".utf8) + [UInt8](repeating: 0, count: 20)),
        ("m4a audio", BMFF.ftyp("M4A ", ["M4A ", "mp42", "isom"]) + BMFF.box("free", [])),
        ("ftyp unknown brand", BMFF.ftyp("abcd", ["efgh"]) + BMFF.box("free", [])),
        ("ftyp longer than file", be32(4000) + Array("ftypisom".utf8) + be32(0) + Array("isom".utf8)),
        ("TIFF header, IFD past end", Array("II*\0".utf8) + [0xFF, 0xFF, 0, 0]),
        ("free atom only", BMFF.box("free", [1, 2, 3, 4])),
    ] as [(String, [UInt8])])
    func nonMedia(label: String, bytes: [UInt8]) {
        #expect(MediaFormat.detect(contents: bytes, fileName: "x.jpg") == nil, "\(label)")
    }

    /// A minimal valid little-endian TIFF with one IFD of the given extra entries.
    static func tiff(extra: [(UInt16, TIFFBuilder.Value)] = [], magic: [UInt8] = Array("MM\0*".utf8)) -> [UInt8] {
        var bytes = TIFFBuilder.standalone([(0x0100, .short([40])), (0x0101, .short([30]))] + extra)
        bytes.replaceSubrange(0..<4, with: magic)
        return bytes
    }

    @Test("TIFF-based raws: signature first, then DNGVersion, then the extension")
    func tiffRaws() {
        #expect(MediaFormat.detect(contents: Self.tiff(), fileName: "a.tif") == .tiff)
        #expect(MediaFormat.detect(contents: Self.tiff(), fileName: "a.NEF") == .nef)
        #expect(MediaFormat.detect(contents: Self.tiff(), fileName: "dir.arw/a.jpg") == .tiff)
        #expect(MediaFormat.detect(contents: Self.tiff(), fileName: "a.arw") == .arw)
        #expect(MediaFormat.detect(contents: Self.tiff(), fileName: "a.pef") == .pef)
        #expect(MediaFormat.detect(contents: Self.tiff(), fileName: nil) == .tiff)
        // DNGVersion wins over any name; a .dng without the tag is a TIFF.
        let dng = Self.tiff(extra: [(0xC612, .undefined([1, 4, 0, 0]))])
        #expect(MediaFormat.detect(contents: dng, fileName: "photo.nef") == .dng)
        #expect(MediaFormat.detect(contents: Self.tiff(), fileName: "fake.dng") == .tiff)
        // CR2: "CR" and version 2 after the header.
        var cr2 = Self.tiff()
        cr2.replaceSubrange(4..<8, with: be32(16))
        cr2.insert(contentsOf: [0x43, 0x52, 2, 0, 0, 0, 0, 0], at: 8)
        #expect(MediaFormat.detect(contents: cr2, fileName: "x.tif") == .cr2)
        // Olympus and Panasonic variants of the TIFF magic.
        #expect(MediaFormat.detect(contents: Self.tiff(magic: Array("MMOR".utf8))) == .orf)
        var rw2 = Array("IIU\0".utf8) + [8, 0, 0, 0] + [1, 0] + [UInt8](repeating: 0, count: 20)
        #expect(MediaFormat.detect(contents: rw2) == .rw2)
        rw2.replaceSubrange(4..<8, with: [0xFF, 0xFF, 0, 0])
        #expect(MediaFormat.detect(contents: rw2) == nil)
    }

    @Test("raws with their own signatures")
    func signedRaws() {
        let raf = Array("FUJIFILMCCD-RAW 0201FF383501".utf8) + [UInt8](repeating: 0, count: 100)
        #expect(MediaFormat.detect(contents: raf, fileName: "x.jpg") == .raf)
        #expect(MediaFormat.detect(contents: [0, 0x4D, 0x52, 0x4D] + [UInt8](repeating: 0, count: 40)) == .mrw)
        #expect(MediaFormat.detect(contents: Array("FOVb".utf8) + [UInt8](repeating: 0, count: 40)) == .x3f)
        let cr3 = BMFF.ftyp("crx ", ["crx ", "isom"]) + BMFF.box("moov", [])
        #expect(MediaFormat.detect(contents: cr3, fileName: "x.mp4") == .cr3)
        #expect(MediaFormat.cr3.typeIdentifier == "com.canon.cr3-raw-image")
    }

    @Test("ISO-BMFF brands", arguments: [
        ("heic", ["mif1", "heic"], MediaFormat.heic),
        ("mif1", ["mif1", "heic"], .heic),
        ("mif1", ["mif1", "miaf"], .heif),
        ("msf1", ["msf1", "hevc"], .heics),
        ("avif", ["avif", "mif1"], .avif),
        ("avis", ["avis", "msf1"], .avif),
        ("isom", ["isom", "iso2", "avc1", "mp41"], .mp4),
        ("mp42", ["mp42", "isom"], .mp4),
        ("qt  ", ["qt  "], .mov),
        ("M4V ", ["M4V ", "M4A ", "mp42", "isom"], .m4v),
        ("3gp4", ["3gp4", "isom"], .threeGPP),
        ("3g2a", ["3g2a"], .threeGPP2),
        ("abcd", ["abcd", "isom"], .mp4),
    ])
    func brands(major: String, compatible: [String], format: MediaFormat) {
        let bytes = BMFF.ftyp(major, compatible) + BMFF.box("free", [0, 0, 0, 0])
        #expect(MediaFormat.detect(contents: bytes) == format)
    }

    @Test("QuickTime without ftyp: leading moov, mdat, wide atoms")
    func classicQuickTime() {
        let moov = BMFF.box("moov", BMFF.mvhd(version: 0, creation: 0, timescale: 600, duration: 600))
        #expect(MediaFormat.detect(contents: moov) == .mov)
        #expect(MediaFormat.detect(contents: BMFF.box("wide", []) + BMFF.box("mdat", [1, 2, 3]) + moov) == .mov)
        #expect(MediaFormat.detect(contents: BMFF.box("mdat", [1, 2, 3, 4]) + moov) == .mov)
        #expect(MediaFormat.detect(contents: BMFF.box("free", [0]) + moov) == .mov)
        // A box size past the end is not a movie, nor is an unknown first atom.
        #expect(MediaFormat.detect(contents: be32(9999) + Array("moov".utf8) + [0, 0, 0, 0]) == nil)
        #expect(MediaFormat.detect(contents: BMFF.box("abcd", [0, 0, 0, 0]) + moov) == nil)
    }
}
