import Foundation
import SeededRandom
import Testing

@testable import MediaProbe

/// Random input must never crash, hang or read without bound: every probe returns, and the reader budget
/// caps what it reads.
@Suite("Fuzzing: no crash, no hang")
struct FuzzTests {
    static let signatures: [[UInt8]] = [
        [0xFF, 0xD8, 0xFF, 0xE1], [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0, 0, 0, 13] + Array("IHDR".utf8),
        Array("GIF89a".utf8), Array("RIFF\u{40}\0\0\0WEBPVP8X".utf8), Array("RIFF\u{40}\0\0\0WEBPVP8L".utf8),
        Array("II*\0\u{8}\0\0\0".utf8), Array("MM\0*\0\0\0\u{8}".utf8), Array("IIU\0\u{8}\0\0\0".utf8),
        [0, 0, 0, 24] + Array("ftypheic\0\0\0\0mif1heic".utf8), [0, 0, 0, 20] + Array("ftypisom\0\0\0\0isom".utf8),
        [0, 0, 0, 20] + Array("ftypcrx \0\0\0\0crx ".utf8), Array("FUJIFILMCCD-RAW 0201".utf8), [0, 0, 0, 8] + Array("wide".utf8),
    ]

    /// Probes bytes in memory; the result must be internally consistent.
    static func check(_ bytes: [UInt8], name: String) {
        let result = MediaProbe.probe(contents: bytes, fileName: name, timeZone: Fixture.utc, now: Fixture.now)
        let metadata = result.metadata
        if let w = metadata.pixelWidth { #expect(w > 0 && w <= MetadataBuilder.maximumSide) }
        if let location = metadata.location {
            #expect(abs(location.latitude) <= 90 && abs(location.longitude) <= 180)
        }
        if let date = metadata.creationDate { #expect(DateRules.isPlausible(date, now: Fixture.now)) }
        if let duration = metadata.duration { #expect(duration > 0 && duration <= MetadataBuilder.maximumDuration) }
        if result.format == nil { #expect(metadata == MediaMetadata()) }
    }

    @Test("random bytes behind every signature")
    func randomBytes() {
        var rng = SplitMix64(seed: 0x5EED)
        for round in 0..<4000 {
            let signature = Self.signatures[round % Self.signatures.count]
            let length = Int.random(in: 0...2048, using: &rng)
            var bytes = signature
            bytes += (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            Self.check(bytes, name: round % 3 == 0 ? "x.nef" : "x.bin")
        }
    }

    @Test("every truncation of every fixture", arguments: Fixture.all)
    func truncations(name: String) throws {
        let bytes = try Fixture.bytes(name)
        var lengths = Array(0..<min(bytes.count, 1200))
        lengths += stride(from: 1200, to: bytes.count, by: 7)
        for length in lengths {
            Self.check(Array(bytes.prefix(length)), name: name)
        }
    }

    @Test("random byte flips and size-field smashing of every fixture", arguments: Fixture.all)
    func mutations(name: String) throws {
        Self.mutate(try Fixture.bytes(name), name: name, rounds: 600)
    }

    /// Probes `rounds` mutations of `original`: bit flips, random bytes, or hostile 32-bit values (sizes,
    /// offsets, counts), 1 to 12 per round.
    static func mutate(_ original: [UInt8], name: String, rounds: Int) {
        guard original.count > 16 else { return }
        var rng = SplitMix64(seed: name.utf8.reduce(UInt64(original.count)) { $0 &* 31 &+ UInt64($1) })
        for round in 0..<rounds {
            var bytes = original
            let flips = Int.random(in: 1...12, using: &rng)
            for _ in 0..<flips {
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch round % 3 {
                case 0:
                    bytes[at] ^= UInt8(1 << Int.random(in: 0..<8, using: &rng))
                case 1:
                    bytes[at] = UInt8.random(in: 0...255, using: &rng)
                default:
                    let value: UInt32 = [0, 1, 7, 8, 0xFFFF_FFFF, 0x7FFF_FFFF, UInt32(original.count), 0x8000_0000]
                        .randomElement(using: &rng)!
                    for (index, byte) in be32(value).enumerated() where at + index < bytes.count {
                        bytes[at + index] = byte
                    }
                }
            }
            Self.check(bytes, name: name)
        }
    }

    @Test("HEIF structures with Exif and XMP items, mutated (libheif reads them)")
    func heifMutations() {
        var tiff = TIFFBuilder()
        tiff.ifd0 = [(0x010F, .ascii("Apple")), (0x0112, .short([6]))]
        let bytes = ContainerTests.heif(
            width: 400, height: 300, transforms: [HEIFTests.clap(300, 200), ContainerTests.irot(1)], exif: tiff.build(),
            xmp: Array(XMPSample.everything.utf8))
        Self.check(bytes, name: "a.heic")
        Self.mutate(bytes, name: "synthetic.heic", rounds: 1500)
        for length in 0..<bytes.count { Self.check(Array(bytes.prefix(length)), name: "a.heic") }
    }

    /// XMP-shaped damage: XML's special characters, cut and repeated ranges.
    static func damage(_ packet: [UInt8], using rng: inout SplitMix64) -> [UInt8] {
        var bytes = packet
        let specials = Array("<>&\"'/=:;#x![]?-".utf8) + [0, 0xFF, 0xFE, 0xC3, 0x80]
        for _ in 0..<Int.random(in: 1...6, using: &rng) {
            guard !bytes.isEmpty else { break }
            let at = Int.random(in: 0..<bytes.count, using: &rng)
            let end = min(bytes.count, at + Int.random(in: 1...40, using: &rng))
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: bytes[at] = specials.randomElement(using: &rng)!
            case 1: bytes.removeSubrange(at..<end)
            case 2: bytes.insert(contentsOf: bytes[at..<end], at: Int.random(in: 0...bytes.count, using: &rng))
            default: bytes.insert(specials.randomElement(using: &rng)!, at: at)
            }
        }
        return bytes
    }

    @Test("XMP packets damaged at random: a value or a typed failure, never a crash")
    func xmpDamage() {
        var rng = SplitMix64(seed: 0x0_0AD0BE)
        let packets = [
            XMPSample.everything, XMPSample.packet(attributes: #"GPano:UsePanoramaViewer="True" tiff:Make="X""#),
            XMPSample.packet(body: "<dc:subject><rdf:Bag><rdf:li>a</rdf:li><rdf:li>b</rdf:li></rdf:Bag></dc:subject>"),
        ].map { Array($0.utf8) }
        for round in 0..<3000 {
            let bytes = Self.damage(packets[round % packets.count], using: &rng)
            switch XMPParser.parse(bytes) {
            case .success(let values):
                #expect(values.userComment.map { $0.utf8.count <= XMPParseState.maximumValueLength } ?? true)
            case .failure(let failure):
                #expect(!failure.description.isEmpty)
            }
            // The same packet inside a JPEG and a PNG: the probe reports it as a problem at worst.
            if round % 10 == 0, bytes.count < 60_000 {
                let text = String(decoding: bytes, as: UTF8.self)
                Self.check(Synthetic.jpeg(tiff: nil, xmp: text), name: "x.jpg")
                Self.check(XMPSample.png(xmp: text), name: "x.png")
            }
        }
    }

    @Test("hostile sizes stay within the read budget")
    func budgets() {
        // A PNG whose chunks claim 2 GiB each, a JPEG with endless fill bytes, a TIFF IFD loop.
        let png = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + be32(13) + Array("IHDR".utf8)
            + be32(10) + be32(10) + [8, 2, 0, 0, 0] + be32(0) + be32(0x7FFF_FFFF) + Array("iTXt".utf8)
        Self.check(png, name: "a.png")
        let jpeg: [UInt8] = [0xFF, 0xD8] + [UInt8](repeating: 0xFF, count: 100_000)
        let start = Date()
        Self.check(jpeg, name: "a.jpg")
        // An IFD whose "next IFD" points at itself and whose SubIFDs point back at it.
        var loop = TIFFBuilder.standalone([(0x0100, .short([10])), (0x0101, .short([10])), (0x014A, .long([8, 8, 8]))])
        loop.replaceSubrange((8 + 2 + 3 * 12)..<(8 + 2 + 3 * 12 + 4), with: be32(8))
        Self.check(loop, name: "a.tif")
        #expect(MediaProbe.probe(contents: loop).metadata.pixelWidth == 10)
        #expect(Date().timeIntervalSince(start) < 5)
        // The reader never hands out more than its budget.
        let reader = BoundedReader(MemorySource(bytes: [UInt8](repeating: 1, count: 1000)), byteBudget: 100, readBudget: 3)
        #expect(reader.read(at: 0, count: 1000).count == 100)
        #expect(reader.read(at: 0, count: 10).isEmpty)
        #expect(reader.exhausted)
    }

    @Test("truncated fixtures on disk go through the file reader")
    func truncatedFiles() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("mediaprobe-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        for name in Fixture.all {
            let bytes = try Fixture.bytes(name)
            for length in [0, 1, 8, 16, 64, bytes.count / 2, bytes.count - 1] where length >= 0 && length <= bytes.count {
                let path = directory.appendingPathComponent("\(length)-\(name)").path
                try Data(bytes.prefix(length)).write(to: URL(fileURLWithPath: path))
                let result = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.now)
                if length < 4 { #expect(result.format == nil) }
            }
        }
    }
}
