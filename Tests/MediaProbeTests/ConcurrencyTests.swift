import Foundation
import Testing

@testable import MediaProbe

/// The probe is called from several threads at once (the scan hashes and probes files in parallel): it must
/// share no mutable state, and each call must give what it gives alone.
@Suite("Probing from many threads at once")
struct ConcurrencyTests {
    /// In-memory files that exercise every library the probe calls: libexif, Expat, libheif.
    static let synthetic: [(name: String, bytes: [UInt8])] = {
        var tiff = TIFFBuilder()
        tiff.ifd0 = [(0x010F, .ascii("Apple")), (0x0112, .short([6]))]
        tiff.exif = [(0x9003, .ascii("2022:02:02 02:02:02")), (0x9011, .ascii("+00:00"))]
        return [
            ("a.jpg", Synthetic.jpeg(tiff: tiff.build(), xmp: XMPSample.everything)),
            ("a.heic", ContainerTests.heif(
                width: 400, height: 300, transforms: [HEIFTests.clap(300, 200), ContainerTests.irot(1)],
                exif: tiff.build(), xmp: Array(XMPSample.everything.utf8))),
            ("Screenshot_20240105-101010.png", XMPSample.png(xmp: XMPSample.everything)),
            ("broken.jpg", Synthetic.jpeg(tiff: nil, xmp: "<x:xmpmeta><rdf:RDF")),
        ]
    }()

    static func probeAll(_ paths: [String]) throws -> [ProbeResult] {
        var results = try paths.map { try MediaProbe.probe(fileAt: $0, timeZone: Fixture.utc, now: Fixture.now) }
        results += synthetic.map {
            MediaProbe.probe(contents: $0.bytes, fileName: $0.name, timeZone: Fixture.utc, now: Fixture.now)
        }
        return results
    }

    @Test("eight tasks probing every fixture agree with one")
    func parallelProbes() async throws {
        let paths = try Fixture.all.map(Fixture.path)
        let expected = try Self.probeAll(paths)
        #expect(expected.contains { $0.metadata.mediaSubtypes.contains(.photoPanorama) })
        try await withThrowingTaskGroup(of: [ProbeResult].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var last: [ProbeResult] = []
                    for _ in 0..<5 { last = try Self.probeAll(paths) }
                    return last
                }
            }
            for try await results in group {
                #expect(results == expected)
            }
        }
    }
}
