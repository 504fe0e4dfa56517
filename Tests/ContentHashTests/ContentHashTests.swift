import CXXHash
import ContentHash
import Foundation
import SeededRandom
import Testing

@Suite struct ContentHashTests {
    @Test func emptyInputHasTheReferenceHash() {
        // `printf '' | xxhsum -H2`
        #expect(ContentHash.of([UInt8]()).description == "99aa06d3014798d86001c324468d497f")
    }

    @Test func canonicalFormRoundTrips() throws {
        let hash = ContentHash.of(Array("photosync".utf8))
        let parsed = try #require(ContentHash(hexString: hash.description))
        #expect(parsed == hash)
        #expect(ContentHash(hexString: hash.description.uppercased()) == hash)
        #expect(ContentHash(hexString: "xyz") == nil)
        #expect(ContentHash(hexString: String(repeating: "g", count: 32)) == nil)
    }

    @Test func streamingInPiecesEqualsHashingAtOnce() {
        let bytes = (0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
        var hasher = ContentHasher()
        var offset = 0
        var step = 1
        while offset < bytes.count {
            let end = min(bytes.count, offset + step)
            bytes[offset..<end].withUnsafeBytes { hasher.update($0) }
            offset = end
            step = step * 3 + 1
        }
        #expect(hasher.finalize() == ContentHash.of(bytes))
    }

    /// The hasher feeds libxxhash through its CPU dispatcher where the library has one (AVX2 or AVX-512
    /// instead of the baseline SSE2): whatever the lengths and the pieces, the hash is the one of the
    /// library's generic one-shot function.
    @Test(arguments: [1, 2, 3, 4, 5, 6, 7, 8] as [UInt64])
    func streamingEqualsTheGenericOneShotFunction(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        // Lengths around XXH3's internal boundaries (16, 128, 240 bytes, 1 KiB stripes, 256-byte state
        // buffer) and beyond a few blocks.
        let lengths = [0, 1, 16, 17, 128, 129, 240, 241, 255, 256, 257, 1023, 1024, 1025, 4096, 65_536 + 3]
            + (0..<6).map { _ in random.int(in: 0...300_000) }
        for length in lengths {
            var bytes = [UInt8](repeating: 0, count: length)
            bytes.withUnsafeMutableBytes { raw in
                for index in stride(from: 0, to: length, by: 8) {
                    withUnsafeBytes(of: random.next()) { word in
                        raw[index..<min(length, index + 8)].copyBytes(from: word.prefix(length - index))
                    }
                }
            }
            let expected = bytes.withUnsafeBytes { XXH3_128bits($0.baseAddress, $0.count) }
            var hasher = ContentHasher()
            var offset = 0
            while offset < length {
                let end = min(length, offset + random.int(in: 1...(random.chance(0.5) ? 300 : 70_000)))
                bytes[offset..<end].withUnsafeBytes { hasher.update($0) }
                offset = end
            }
            let hash = hasher.finalize()
            #expect(hash == ContentHash(high: expected.high64, low: expected.low64), "seed \(seed), length \(length)")
            #expect(ContentHash.of(bytes) == hash, "seed \(seed), length \(length)")
        }
    }

    @Test func fileHashMatchesXxhsum() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "ch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "data.bin")
        let bytes = (0..<(3 << 20) + 17).map { UInt8(truncatingIfNeeded: $0 &* 2654435761 >> 13) }
        try Data(bytes).write(to: file)
        let (hash, count) = try ContentHash.ofFile(atPath: file.path, bufferSize: 64 << 10)
        #expect(count == Int64(bytes.count))
        #expect(hash == ContentHash.of(bytes))
        let xxhsum = Process()
        xxhsum.executableURL = URL(fileURLWithPath: "/usr/bin/xxhsum")
        xxhsum.arguments = ["-H2", file.path]
        let pipe = Pipe()
        xxhsum.standardOutput = pipe
        try xxhsum.run()
        xxhsum.waitUntilExit()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(output.split(separator: " ").first.map(String.init) == hash.description)
    }

    @Test func missingFileIsATypedError() {
        #expect(throws: ContentHashError.self) {
            try ContentHash.ofFile(atPath: "/nonexistent/\(UUID().uuidString)")
        }
    }
}
