import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// What the tool prints: quiet means quiet, per-file problems are capped, summaries read well.
@Suite struct OutputTests {
    /// `count` JPEGs whose EXIF date can't be parsed: each is mirrored with a metadata problem.
    static func folderWithBadDates(_ count: Int) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "photosync-bad-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let jpeg = try Data(contentsOf: Photosync.samples.appending(path: "Family/IMG_2001.jpg"))
        let bad = try #require(String(data: jpeg, encoding: .isoLatin1)?.replacingOccurrences(of: "2023:12:24", with: "2023:13:45"))
        for index in 0..<count {
            try (try #require(bad.data(using: .isoLatin1)) + Data("\(index)".utf8)).write(to: folder.appending(path: "bad\(index).jpg"))
        }
        return folder
    }

    @Test(arguments: LibraryEngine.allCases)
    func quietSilencesWarnings(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try Self.folderWithBadDates(3)
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let loud = try cli.run("scan", folder.path)
        #expect(loud.status == 0)
        #expect(loud.stderr.contains("warning"), "the fixture should cause warnings: \(loud.stderr)")
        let other = try Photosync(engine)
        defer { other.cleanUp() }
        let quiet = try other.run("scan", folder.path, "--quiet")
        #expect(quiet.status == 0)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
        #expect(quiet.stdout.isEmpty, "\(quiet.stdout)")
    }

    @Test(arguments: LibraryEngine.allCases)
    func perFileProblemsAreCappedInTheScanJSONAndTheLog(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try Self.folderWithBadDates(60)
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let scan = try cli.run("scan", folder.path, "--json")
        #expect(scan.status == 0, "\(scan.stderr)")
        let problems = try #require(try scan.json()["metadataProblems"] as? [String: Any])
        #expect(problems["count"] as? Int == 60)
        #expect((problems["first"] as? [Any])?.count == 10)
        #expect(problems["byKind"] as? [String: Int] == ["unparseableDate": 60])
        // The log: a burst of warnings, then a count of the rest.
        let warnings = scan.stderr.split(separator: "\n").filter { $0.contains(" warning ") }
        #expect(warnings.count <= 20, "\(warnings.count) warning lines")
        #expect(scan.stderr.contains("more warnings left out"), "\(scan.stderr)")
        // --verbose shows every one.
        let verbose = try Photosync(engine)
        defer { verbose.cleanUp() }
        let all = try verbose.run("scan", folder.path, "--verbose")
        #expect(all.stderr.split(separator: "\n").filter { $0.contains(" warning ") }.count == 60)
        #expect(all.stdout.split(separator: "\n").filter { $0.contains("metadata of") }.count == 60)
    }

    @Test(arguments: LibraryEngine.allCases)
    func aScanThatLeftOutUnreadableFilesExitsFive(engine: LibraryEngine) throws {
        let user = try Unprivileged(engine)
        defer { user.cleanUp() }
        let jpeg = try Data(contentsOf: Photosync.samples.appending(path: "Family/IMG_2001.jpg"))
        let folder = try user.folder("Photos", files: ["a.jpg": jpeg, "b.jpg": jpeg + Data("b".utf8), "sub/c.jpg": jpeg + Data("c".utf8)])
        try FileManager.default.setAttributes([.posixPermissions: 0o000], ofItemAtPath: folder.appending(path: "b.jpg").path)
        let scan = try user.run(["scan", folder.path, "--json"])
        #expect(scan.status == 5, "\(scan.stdout)\(scan.stderr)")
        let summary = try scan.json()
        #expect(summary["partial"] as? Bool == true)
        #expect(summary["inserted"] as? Int == 2)
        #expect(((summary["skipped"] as? [String: Any])?["byKind"] as? [String: Int])?["unreadable"] == 1)
        let text = try user.run(["scan", folder.path])
        #expect(text.status == 5)
        #expect(text.stdout.contains("exit code 5"), "\(text.stdout)")
        // Readable again: the next pass is whole.
        try FileManager.default.setAttributes([.posixPermissions: 0o666], ofItemAtPath: folder.appending(path: "b.jpg").path)
        #expect(try user.run(["scan", folder.path]).status == 0)
    }

    @Test(arguments: LibraryEngine.allCases)
    func importEndsWithASummary(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        let imported = try cli.run("import", Photosync.samples.path)
        #expect(imported.status == 0)
        #expect(imported.lines.count == 2, "\(imported.stdout)")
        #expect(imported.lines[0].contains("6 files imported, 0 skipped; the library now holds 6 assets in 5 moments"), "\(imported.stdout)")
        #expect(imported.lines[1].hasPrefix("change token: "))
        let again = try cli.run("import", Photosync.samples.path)
        #expect(again.lines[0].contains("0 files imported, 6 skipped"), "\(again.stdout)")
    }

    @Test(arguments: LibraryEngine.allCases)
    func showPrintsCleanText(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        try cli.run("import", Photosync.samples.path)
        let id = try #require(try cli.run("assets", "--json", "--where", "originalFilename == \"IMG_2001.jpg\"").jsonLines().first?["localIdentifier"] as? String)
        let shown = try cli.run("show", id)
        #expect(shown.status == 0)
        for line in shown.lines {
            #expect(line.firstMatch(of: /^[a-zA-Z]+ {2,}\S/) != nil, "not a 'field  value' line: \(line)")
            #expect(!line.contains("Optional(") && !line.contains("[\"") && !line.contains("<null>"), "\(line)")
        }
        #expect(shown.lines.contains { $0.hasPrefix("latitude") && $0.hasSuffix("40.713") }, "\(shown.stdout)")
        #expect(shown.lines.contains { $0.hasPrefix("albums") && $0.contains("Library (smartAlbum)") }, "\(shown.stdout)")
    }

    @Test(arguments: LibraryEngine.allCases)
    func countsHaveTheRightNumber(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = FileManager.default.temporaryDirectory.appending(path: "photosync-one-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        try FileManager.default.copyItem(at: Photosync.samples.appending(path: "Family/IMG_2001.jpg"), to: folder.appending(path: "one.jpg"))
        let scan = try cli.run("scan", folder.path)
        #expect(scan.stdout.contains("(1 file hashed"), "\(scan.stdout)")
        let status = try cli.run("status")
        #expect(status.stdout.contains("1 asset, 1 album, 1 moment"), "\(status.stdout)")
    }

    @Test(arguments: LibraryEngine.allCases)
    func aRefusedMassDeletionNamesTheOptionOnce(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try Self.folderWithBadDates(12)
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        #expect(try cli.run("scan", folder.path).status == 0)
        for index in 0..<10 { try FileManager.default.removeItem(at: folder.appending(path: "bad\(index).jpg")) }
        let refused = try cli.run("scan", folder.path)
        #expect(refused.status == 1)
        #expect(refused.stderr.components(separatedBy: "--allow-mass-deletion").count == 2, "\(refused.stderr)")
        #expect(!refused.stderr.contains("allowMassDeletion"), "\(refused.stderr)")
        #expect(try cli.run("scan", folder.path, "--allow-mass-deletion").status == 0)
    }

    /// A daemon whose folder disappears stops with exit code 1 and says why, once.
    @Test(arguments: LibraryEngine.allCases)
    func aDaemonWhoseFolderVanishesSaysSoOnce(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let daemon = try DaemonTests.Daemon(cli, folder: folder)
        _ = try DaemonTests.waitUntilWatching(cli)
        #expect(try cli.run("changes", "--since", try cli.token(), "--sync", folder.path).status == 0)
        try FileManager.default.removeItem(at: folder)
        #expect(Photosync.waitUntil(seconds: 60) { !daemon.process.isRunning }, "\(daemon.logText)")
        if daemon.process.isRunning { _ = daemon.stop(SIGKILL) }
        daemon.process.waitUntilExit()
        #expect(daemon.process.terminationStatus == 1)
        #expect(daemon.logText.components(separatedBy: "was deleted, moved or unmounted").count == 2, "\(daemon.logText)")
        #expect(try cli.run("assets").lines.count == 6)
    }

    /// `--verbose` is photosync's debug log: the lifecycle library's own debug lines stay out.
    @Test(arguments: LibraryEngine.allCases)
    func verboseShowsPhotosyncDebugNotLifecycleInternals(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let scan = try cli.run("scan", folder.path, "--verbose")
        #expect(scan.status == 0)
        #expect(!scan.stderr.contains("[ServiceLifecycle]"), "\(scan.stderr)")
        #expect(!scan.stderr.lowercased().contains("service group"), "\(scan.stderr)")
        let daemon = try DaemonTests.Daemon(cli, folder: folder, extra: ["--verbose"])
        _ = try DaemonTests.waitUntilWatching(cli)
        #expect(try cli.run("changes", "--since", try cli.token(), "--sync", folder.path).status == 0)
        #expect(daemon.stop() == 0)
        #expect(daemon.logText.contains("debug"), "no debug line at all: \(daemon.logText)")
        #expect(!daemon.logText.contains("[ServiceLifecycle]"), "\(daemon.logText)")
        // Nor PostgresNIO's (connections opened and closed), on a PostgreSQL library.
        #expect(!scan.stderr.contains("[PostgresNIO]") && !daemon.logText.contains("[PostgresNIO]"), "\(scan.stderr)\(daemon.logText)")
    }

    /// Without a terminal, no progress bar: plain log lines only.
    @Test(arguments: LibraryEngine.allCases)
    func noProgressBarInNonTerminalOutput(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try DaemonTests.manyFiles()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let scan = try cli.run("scan", folder.path)
        #expect(scan.status == 0)
        #expect(!scan.stderr.contains("\r") && !scan.stderr.contains("\u{1B}") && !scan.stderr.contains("[#"), "\(scan.stderr)")
        #expect(scan.stderr.split(separator: "\n").allSatisfy { $0.contains(" info ") || $0.contains(" notice ") || $0.contains(" warning ") }, "\(scan.stderr)")
    }
}
