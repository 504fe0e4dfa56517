import Foundation
import Testing

/// A library whose mirror state was the core's, made by main's `photosync` before the mirror moved to
/// SyncWorker (Tests/SyncWorkerTests/Fixtures/upgrade): the first command run on it finds mirrored assets by
/// `path` and lists the mirrored folder — the sync worker's tables are attached when the command opens it.
/// SQLite only: the fixture is a SQLite library of an earlier build (no PostgreSQL library predates the mirror's move).
@Suite struct MirrorUpgradeCommandTests {
    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appending(path: "../SyncWorkerTests/Fixtures/upgrade").standardizedFileURL

    @Test func aLibraryOfAnEarlierBuildAnswersPathQueriesAtOnce() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        try FileManager.default.createDirectory(at: cli.library, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: Self.fixture.appending(path: "main-library.sqlite"), to: cli.library.appending(path: "Photos.sqlite"))
        // The folder it mirrored is where the fixture was made (gone): paths come from the records alone.
        let root = try String(contentsOf: Self.fixture.appending(path: "main-library.root"), encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let screens = try cli.run("assets", "--where", "path BEGINSWITH \"screens/\"", "--json")
        #expect(screens.status == 0, "\(screens.stderr)")
        #expect(try QueryTests.paths(screens) == ["screens/plain.png", "screens/screenshot.png"])
        let status = try cli.run("status", "--json")
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains(root))
    }
}
