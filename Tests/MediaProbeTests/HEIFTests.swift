import Foundation
import Testing

@testable import MediaProbe

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite("HEIF through libheif")
struct HEIFTests {
    /// A `clap` property: a centred clean aperture of `width`×`height`.
    static func clap(_ width: UInt32, _ height: UInt32) -> [UInt8] {
        BMFF.box("clap", [width, 1, height, 1, 0, 1, 0, 1].flatMap(be32))
    }

    @Test("the fixture's displayed size includes its clap crop, then its rotation")
    func croppedAndRotatedFixture() throws {
        // Coded 64x48; clap to 60x40, then irot 90° anticlockwise: 40x60, orientation 8.
        let result = try Fixture.probe("rotated-crop.heic")
        #expect(result.format == .heic)
        let metadata = result.metadata
        #expect(metadata.pixelWidth == 40 && metadata.pixelHeight == 60)
        #expect(metadata.orientation == .left)
        #expect(metadata.make == "Apple" && metadata.model == "iPhone 13")
        #expect(metadata.creationDate == Fixture.date(2022, 8, 9, 10, 11, 12, offset: 3 * 3600))
        #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    }

    @Test("clap crops before irot rotates", arguments: [
        ([] as [[UInt8]], 300, 200, ImageOrientation?.none),
        ([ContainerTests.irot(1)], 200, 300, .left),
        ([ContainerTests.irot(2), ContainerTests.imir(0)], 300, 200, .downMirrored),
    ])
    func clapThenTransforms(transforms: [[UInt8]], width: Int, height: Int, orientation: ImageOrientation?) {
        let bytes = ContainerTests.heif(width: 400, height: 320, transforms: [Self.clap(300, 200)] + transforms)
        let metadata = Synthetic.probe(bytes, name: "a.heic")
        #expect(metadata.pixelWidth == width && metadata.pixelHeight == height)
        #expect(metadata.orientation == orientation)
        #expect(metadata.problems.isEmpty, "\(metadata.problems)")
    }

    @Test("corrupt HEIF files are typed problems", arguments: [
        ("no meta box", BMFF.ftyp("heic", ["mif1", "heic"]) + BMFF.box("mdat", [1, 2, 3, 4])),
        ("meta cut short", Array(ContainerTests.heif(width: 4, height: 3, transforms: []).prefix(120))),
        ("an item without a decoder configuration", ContainerTests.heif(width: 4, height: 3, transforms: [])
            .replacingBytes(Array("hvcC".utf8), with: Array("xxxx".utf8))),
        ("no primary item", ContainerTests.heif(width: 4, height: 3, transforms: [])
            .replacingBytes(Array("pitm".utf8), with: Array("free".utf8))),
    ] as [(String, [UInt8])])
    func corrupt(label: String, bytes: [UInt8]) {
        let result = MediaProbe.probe(contents: bytes, fileName: "a.heic", timeZone: Fixture.utc, now: Fixture.now)
        #expect(result.format == .heic, "\(label)")
        let problem = result.metadata.problems.first { $0.field == "HEIF" }
        #expect(problem != nil, "\(label): \(result.metadata.problems)")
        #expect([.malformed, .truncated].contains(problem?.kind), "\(label)")
        #expect(result.metadata.pixelWidth == nil, "\(label)")
    }

    @Test("the coded data is never read: a HEIF with a 3 GiB sparse mdat is probed by seeking")
    func sparseMediaData() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("heif-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("big.heic").path
        var bytes = ContainerTests.heif(width: 4000, height: 3000, transforms: [Self.clap(3000, 2000)])
        bytes.removeLast(12)  // the small mdat
        let mdatSize: UInt64 = 3 << 30
        bytes += be32(1) + Array("mdat".utf8) + be64(mdatSize)
        #expect(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        #expect(truncate(path, off_t(UInt64(bytes.count) + mdatSize - 16)) == 0)
        let result = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.now)
        #expect(result.metadata.pixelWidth == 3000 && result.metadata.pixelHeight == 2000)
        #expect(result.metadata.problems.isEmpty, "\(result.metadata.problems)")
    }
}

extension Array where Element == UInt8 {
    /// The bytes with the first occurrence of `pattern` replaced (same length).
    func replacingBytes(_ pattern: [UInt8], with replacement: [UInt8]) -> [UInt8] {
        guard let at = (0...(count - pattern.count)).first(where: { self[$0..<($0 + pattern.count)].elementsEqual(pattern) })
        else { return self }
        var copy = self
        copy.replaceSubrange(at..<(at + pattern.count), with: replacement)
        return copy
    }
}
