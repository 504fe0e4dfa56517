import Foundation
import Testing

/// `--open-file-settle` (scan and watch): how long a file some process holds open for writing must have been
/// quiet before it is read anyway.
@Suite struct OpenFileSettleTests {
    @Test(
        "a file held open for writing, quiet for 10 s: skipped by default (30 s), read with --open-file-settle 5",
        arguments: LibraryEngine.allCases)
    func openFileSettle(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = FileManager.default.temporaryDirectory.appending(path: "photosync-open-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let file = folder.appending(path: "open.jpg")
        try FileManager.default.copyItem(at: Photosync.samples.appending(path: "Family/IMG_2001.jpg"), to: file)
        let writer = try FileHandle(forWritingTo: file)
        defer { try? writer.close() }
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -10)], ofItemAtPath: file.path)

        let skipped = try cli.run("scan", folder.path)
        #expect(skipped.status == 5, "a partial pass: \(skipped.stdout) \(skipped.stderr)")
        #expect(skipped.stdout.contains("still being written") || skipped.stderr.contains("still being written"), "\(skipped.stdout) \(skipped.stderr)")
        #expect(try cli.run("status").stdout.contains("0 assets"))

        let read = try cli.run("scan", folder.path, "--open-file-settle", "5")
        #expect(read.status == 0, "\(read.stdout) \(read.stderr)")
        #expect(try cli.run("status").stdout.contains("1 asset,"))
    }

    @Test("--open-file-settle refuses a negative value or one past a day, as a usage error")
    func badValues() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        for value in ["-1", "86401", "soon"] {
            let refused = try cli.run("scan", "/tmp", "--open-file-settle", value)
            #expect(refused.status == 2, "\(value): \(refused.stderr)")
            #expect(refused.stderr.contains("--open-file-settle") || refused.stderr.contains("open-file-settle"), "\(refused.stderr)")
        }
    }
}
