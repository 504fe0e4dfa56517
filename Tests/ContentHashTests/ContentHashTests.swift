import ContentHash
import Foundation
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
