import ContentHash
import Foundation
import Testing

@testable import MediaProbe

/// Probes that hash: the head read once into the caller's buffer serves both the probe and the hash.
@Suite("Probe and hash through one buffer")
struct ProbeBufferTests {
    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "probe-buffer-\(UUID().uuidString).jpg").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test("The hash is the file's, for sizes around the buffer's; a JPEG is probed the same from the buffer as from the file", arguments: [
        0, 1, 4095, 4096, ProbeBuffer.size - 1, ProbeBuffer.size, ProbeBuffer.size + 1, 3 * ProbeBuffer.size + 17,
    ])
    func hashAcrossTheHead(padding: Int) throws {
        let camera = try Fixture.bytes("camera.jpg")
        let bytes = camera + (0..<padding).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        let path = try Self.temporaryFile(bytes)
        defer { unlink(path) }
        let buffer = ProbeBuffer()
        for options in [ProbeOptions.contentHash, .contentHashOfMedia] {
            let result = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.now, options: options, buffer: buffer)
            #expect(result.contentHash == ContentHash.of(bytes), "\(options) padding \(padding)")
            #expect(!result.changedWhileReading)
            let plain = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.now)
            #expect(result.format == plain.format && result.metadata == plain.metadata)
        }
    }

    @Test("One buffer serves file after file of every fixture: each probe and hash the same as alone")
    func reusedBuffer() throws {
        let buffer = ProbeBuffer()
        for name in Fixture.all + Fixture.all.reversed() {
            let path = try Fixture.path(name)
            let shared = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.now, options: .contentHash, buffer: buffer)
            let alone = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.now, options: .contentHash)
            #expect(shared == alone, "\(name)")
            #expect(shared.contentHash == ContentHash.of(try Fixture.bytes(name)), "\(name)")
            let plain = try MediaProbe.probe(fileAt: path, timeZone: Fixture.utc, now: Fixture.now)
            #expect(shared.format == plain.format && shared.metadata == plain.metadata, "\(name)")
        }
    }

    @Test("contentHashOfMedia hashes media only; contentHash hashes anything")
    func mediaOnly() throws {
        let path = try Self.temporaryFile(Array("just some text, not a photo".utf8) + [UInt8](repeating: 7, count: 2 * ProbeBuffer.size))
        defer { unlink(path) }
        #expect(try MediaProbe.probe(fileAt: path, options: .contentHashOfMedia).contentHash == nil)
        #expect(try MediaProbe.probe(fileAt: path, options: .contentHash).contentHash != nil)
        #expect(try MediaProbe.probe(fileAt: Fixture.path("clip.mov"), options: .contentHashOfMedia).contentHash != nil)
    }
}
