import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The schema-embedding build tool leaves an up-to-date output untouched, so that a build after `Schema/`
/// was touched (a checkout, a branch switch) but not changed recompiles nothing of PhotoLibrary.
@Suite struct SchemaEmbedderTests {
    static var embedder: URL { Photosync.binary.deletingLastPathComponent().appending(path: "SchemaEmbedder") }

    static func embed(into output: URL) throws -> Int32 {
        let schema = Photosync.repository.appending(path: "Schema")
        let files = try FileManager.default.contentsOfDirectory(atPath: schema.path).filter { $0.hasSuffix(".sql") }.sorted()
        return try Photosync.runTool(embedder, [output.path] + files.map { schema.appending(path: $0).path }).status
    }

    static func modification(_ url: URL) throws -> timespec {
        var info = stat()
        #expect(stat(url.path, &info) == 0)
        return info.st_mtim
    }

    @Test func anUnchangedSchemaLeavesTheGeneratedFileUntouched() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-embed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let output = directory.appending(path: "EmbeddedSchema.swift")
        #expect(try Self.embed(into: output) == 0)
        let first = try Data(contentsOf: output)
        // An old time, so that a rewrite would show whatever the file system's timestamp granularity.
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: 1_000_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, output.path, &times, 0) == 0)
        #expect(try Self.embed(into: output) == 0)
        #expect(try Self.modification(output).tv_sec == 1_000_000_000, "the embedder rewrote an identical file")
        #expect(try Data(contentsOf: output) == first)
        // A different content is written.
        try Data("stale".utf8).write(to: output)
        #expect(try Self.embed(into: output) == 0)
        #expect(try Data(contentsOf: output) == first)
    }
}
