import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `photosync scan` and `photosync watch` (the daemon), run as subprocesses of the built binary on temporary
/// folders and libraries.
@Suite struct DaemonTests {
    /// A running `photosync watch`, its stderr in a file.
    struct Daemon {
        let process: Process
        let log: URL

        init(_ cli: Photosync, folder: URL, extra: [String] = []) throws {
            log = cli.library.deletingLastPathComponent().appending(path: "daemon-\(UUID().uuidString).log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            process = Process()
            process.executableURL = Photosync.binary
            process.arguments = Photosync.placingLibrary(cli.libraryArgument, in: ["watch", folder.path] + extra)
            process.environment = cli.environment([:])
            process.standardOutput = FileHandle.nullDevice
            process.standardError = try FileHandle(forWritingTo: log)
            try process.run()
        }

        var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

        /// Sends `signal` and waits for the exit; the exit status.
        func stop(_ signal: Int32 = SIGTERM) -> Int32 {
            kill(process.processIdentifier, signal)
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Polls `status --json` until the daemon holds the library (at most 60 s).
    static func waitUntilWatching(_ cli: Photosync) throws -> [String: Any] {
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            let status = try cli.run("status", "--json")
            if status.status == 0, let object = try? status.json(), let watcher = object["watcher"] as? [String: Any] {
                return watcher
            }
            usleep(50_000)
        }
        Issue.record("the daemon did not start within 60 s")
        return [:]
    }

    @Test(arguments: LibraryEngine.allCases)
    func scanMirrorsAFolderAndASecondScanReadsNothing(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let first = try cli.run("scan", folder.path, "--json")
        #expect(first.status == 0, "\(first.stderr)")
        let summary = try first.json()
        #expect(summary["inserted"] as? Int == 6)
        #expect(summary["filesHashed"] as? Int == 6)
        let second = try cli.run("scan", folder.path, "--json").json()
        #expect(second["inserted"] as? Int == 0)
        #expect(second["unchanged"] as? Int == 6)
        #expect(second["filesHashed"] as? Int == 0)
        // Paths relative to the folder, in the JSON contract; albums in the tree's shape.
        let paths = Set(try cli.run("assets", "--json", "--include-hidden").jsonLines().compactMap { $0["path"] as? String })
        #expect(paths == ["Holidays/Beach/IMG_0101.jpg", "Holidays/Beach/IMG_0102.jpg", "Holidays/IMG_0090.jpg",
                          "Family/IMG_2001.jpg", "Family/IMG_2002.jpg", "Screenshot_2024-01-05.png"])
        let albums = try cli.run("albums", "--json").jsonLines().filter { $0["assetCollectionType"] as? String == "album" }
        let albumPaths = Set(albums.compactMap { $0["path"] as? String })
        #expect(albumPaths == ["", "Family", "Holidays", "Holidays/Beach"])
        for album in albums {
            let keys: Set<String> = [
                "localIdentifier", "localizedTitle", "assetCollectionType", "assetCollectionSubtype", "estimatedAssetCount",
                "startDate", "endDate", "path", "parent",
            ]
            #expect(Set(album.keys) == keys)
        }
        // A plain summary for people.
        try FileManager.default.moveItem(at: folder.appending(path: "Family"), to: folder.appending(path: "Relatives"))
        let plain = try cli.run("scan", folder.path)
        #expect(plain.status == 0)
        #expect(plain.stdout.contains("2 moved"), "\(plain.stdout)")
    }

    @Test(arguments: LibraryEngine.allCases)
    func scanOfAMissingFolderFailsAndDeletesNothing(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        #expect(try cli.run("scan", folder.path).status == 0)
        try FileManager.default.removeItem(at: folder)
        let missing = try cli.run("scan", folder.path, "--json")
        #expect(missing.status == 1)
        #expect(missing.stdout.isEmpty)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(missing.stderr.utf8)) as? [String: Any])
        #expect(error["error"] as? String == "error")
        #expect((error["message"] as? String)?.contains("does not exist") == true)
        // An emptied folder (an unmounted disk's mount point) deletes nothing either.
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let empty = try cli.run("scan", folder.path)
        #expect(empty.status == 1)
        #expect(try cli.run("assets", "--json").lines.count == 6)
        #expect(try cli.run("scan", "--max-deletion-share", "2", folder.path).status == 2)
    }

    @Test(arguments: LibraryEngine.allCases)
    func theDaemonMirrorsChangesAndWakesAWaitingClient(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        try cli.run("init")
        let start = try cli.token()
        let daemon = try Daemon(cli, folder: folder)
        let watcher = try Self.waitUntilWatching(cli)
        #expect(watcher["pid"] as? Int == Int(daemon.process.processIdentifier))
        #expect(watcher["root"] as? String == folder.resolvingSymlinksInPath().path)
        // The barrier: after it, the initial scan is in the library.
        let initial = try cli.run("changes", "--since", start, "--sync", folder.path, "--json")
        #expect(initial.status == 0, "\(initial.stderr)\n\(daemon.logText)")
        let inserted = try (initial.json()["changes"] as? [[String: Any]] ?? []).flatMap {
            ($0["asset"] as? [String: Any])?["inserted"] as? [String] ?? []
        }
        #expect(inserted.count == 6)
        let afterScan = try #require(try initial.json()["token"] as? String)

        // A client long-polls; the daemon (another process) commits a new file and wakes it.
        // Its re-poll is off: only the daemon's commit notification can wake it before the 60 s end.
        let (waiter, out, _) = try cli.start(
            ["changes", "--since", afterScan, "--wait", "60", "--json"], environment: ["PHOTOSYNC_COMMIT_POLL_INTERVAL": "off"])
        let copied = Date()
        try FileManager.default.copyItem(at: folder.appending(path: "Family/IMG_2001.jpg"), to: folder.appending(path: "Family/copy.jpg"))
        let output = Data(Photosync.Collector(out).finish().utf8)
        waiter.waitUntilExit()
        #expect(waiter.terminationStatus == 0)
        // The daemon settles the new file (1 s) before it commits; the wait ends long before its 60 s.
        #expect(Date().timeIntervalSince(copied) < 20, "\(daemon.logText)")
        let woken = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        let change = try #require((woken["changes"] as? [[String: Any]])?.first)
        #expect(change["author"] as? String == "photosync")
        #expect(((change["asset"] as? [String: Any])?["inserted"] as? [String])?.count == 1)

        // A rename keeps the identity: one update, no insert or delete, after the barrier.
        let before = try cli.run("assets", "--json", "--where", "originalFilename == \"IMG_0090.jpg\"").jsonLines()
        let id = try #require(before.first?["localIdentifier"] as? String)
        let token = try cli.token()
        try FileManager.default.moveItem(
            at: folder.appending(path: "Holidays/IMG_0090.jpg"), to: folder.appending(path: "Family/renamed.jpg"))
        let moved = try cli.run("changes", "--since", token, "--sync", folder.path, "--coalesce", "--json")
        #expect(moved.status == 0, "\(moved.stderr)")
        let net = try #require((try moved.json()["changes"] as? [[String: Any]])?.first?["asset"] as? [String: Any])
        #expect(net["updated"] as? [String] == [id])
        #expect(net["inserted"] as? [String] == [] && net["deleted"] as? [String] == [])
        #expect(try cli.run("show", id, "--json").json()["path"] as? String == "Family/renamed.jpg")

        // One daemon per library: a second one refuses, naming the first one's pid.
        let second = try cli.run("watch", folder.path)
        #expect(second.status == 1)
        #expect(second.stderr.contains("pid \(daemon.process.processIdentifier)"))
        let scan = try cli.run("scan", folder.path)
        #expect(scan.status == 1)

        // SIGTERM: a clean exit 0; the library is released.
        #expect(daemon.stop(SIGTERM) == 0, "\(daemon.logText)")
        let status = try cli.run("status", "--json").json()
        #expect(status["watcher"] is NSNull)
        #expect(try cli.run("scan", folder.path).status == 0)
    }

    @Test(arguments: LibraryEngine.allCases)
    func syncWithoutADaemonRunsAScan(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        try cli.run("init")
        let start = try cli.token()
        let changes = try cli.run("changes", "--since", start, "--sync", folder.path, "--json")
        #expect(changes.status == 0, "\(changes.stderr)")
        let assets = try #require((try changes.json()["changes"] as? [[String: Any]])?.first?["asset"] as? [String: Any])
        #expect((assets["inserted"] as? [String])?.count == 6)
    }

    @Test(arguments: LibraryEngine.allCases)
    func sigintStopsTheDaemonCleanly(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let daemon = try Daemon(cli, folder: folder)
        _ = try Self.waitUntilWatching(cli)
        #expect(daemon.stop(SIGINT) == 0, "\(daemon.logText)")
        #expect(daemon.logText.contains("stopped"))
    }

    /// 3,000 small JPEGs in 10 folders, distinct by content: a scan commits them in several batches of 500.
    static func manyFiles() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "photosync-many-\(UUID().uuidString)")
        let jpeg = try Data(contentsOf: Photosync.samples.appending(path: "Family/IMG_2001.jpg"))
        for directory in 0..<10 {
            let sub = folder.appending(path: "d\(directory)")
            try FileManager.default.createDirectory(at: sub, withIntermediateDirectories: true)
            for index in 0..<300 {
                try (jpeg + Data("\(directory)-\(index)".utf8)).write(to: sub.appending(path: "\(index).jpg"))
            }
        }
        return folder
    }

    /// Polls the library until the running scan committed its first batch (or ended); the assets then.
    static func waitForAFirstBatch(_ cli: Photosync, _ scan: Process) throws -> Int {
        let deadline = Date().addingTimeInterval(120)
        while Date() < deadline && scan.isRunning {
            if let status = try? cli.run("status", "--json").json(), let counts = status["counts"] as? [String: Int],
                let count = counts["assets"], count > 0
            {
                return count
            }
            usleep(20_000)
        }
        return 0
    }

    @Test(arguments: LibraryEngine.allCases)
    func sigkillDuringAScanLeavesAConsistentLibraryAndTheNextScanConverges(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try Self.manyFiles()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        try cli.run("init")
        let (scan, _, _) = try cli.start(["scan", folder.path])
        _ = try Self.waitForAFirstBatch(cli, scan)
        kill(scan.processIdentifier, SIGKILL)
        scan.waitUntilExit()
        // Whatever the kill interrupted, the journal and the assets agree, and the next pass finishes the job.
        let kept = try cli.run("assets", "--json").lines.count
        let start = (try cli.run("history", "--json").json()["summary"] as? [String: Any])?["oldestValidToken"] as? String
        let journal = try cli.run("changes", "--since", try #require(start), "--coalesce", "--json").json()
        let inserted = ((journal["changes"] as? [[String: Any]])?.first?["asset"] as? [String: Any])?["inserted"] as? [String] ?? []
        #expect(inserted.count == kept)
        let next = try cli.run("scan", folder.path, "--json")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try next.json()["deleted"] as? Int == 0)
        #expect(try cli.run("assets", "--json").lines.count == 3000)
        #expect(try cli.run("duplicates", "--json").stdout.isEmpty)
    }

    @Test(arguments: LibraryEngine.allCases)
    func sigtermDuringAScanKeepsTheCommittedBatchesAndExitsZero(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try Self.manyFiles()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        try cli.run("init")
        let (scan, _, err) = try cli.start(["scan", folder.path])
        let count = try Self.waitForAFirstBatch(cli, scan)
        kill(scan.processIdentifier, SIGTERM)
        let stderr = Photosync.Collector(err).finish()
        scan.waitUntilExit()
        #expect(scan.terminationStatus == 0, "\(stderr)")
        let kept = try cli.run("assets", "--json").lines.count
        // An interrupted pass keeps what it committed; the signal may land after the last batch of files (then
        // every file is in and only the pass's end — deletions, the scan record — was cut short).
        if stderr.contains("interrupted") {
            #expect(kept <= 3000)
            #expect(kept >= count)
        }
        // The next pass converges: every file once, nothing deleted.
        let next = try cli.run("scan", folder.path, "--json")
        #expect(next.status == 0, "\(next.stderr)")
        #expect(try next.json()["deleted"] as? Int == 0)
        #expect(try next.json()["inserted"] as? Int == 3000 - kept)
        #expect(try cli.run("assets", "--json").lines.count == 3000)
    }

    @Test(arguments: LibraryEngine.allCases)
    func nestedFoldersBadValuesAndBadTokensChangeNothing(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        #expect(try cli.run("scan", folder.path).status == 0)
        let token = try cli.token()
        // A folder inside a mirrored one, or holding one, is refused: its files would be two assets each.
        let inner = try cli.run("scan", folder.appending(path: "Holidays").path, "--json")
        #expect(inner.status == 1)
        #expect(inner.stdout.isEmpty)
        #expect(inner.stderr.contains("nested"))
        #expect(try cli.run("scan", folder.deletingLastPathComponent().path).status == 1)
        #expect(try cli.run("changes", "--since", token, "--sync", folder.appending(path: "Family").path).status == 1)
        // Values that cannot be honoured are usage errors, not crashes.
        #expect(try cli.run("changes", "--since", token, "--wait", "inf").status == 2)
        #expect(try cli.run("watch", folder.path, "--rescan-interval", "inf").status == 2)
        #expect(try cli.run("watch", folder.path, "--rescan-interval", "0.001").status == 2)
        #expect(try cli.run("history", "--keep-days", "inf").status == 2)
        // An invalid token fails before the barrier runs a scan.
        try FileManager.default.copyItem(at: folder.appending(path: "Family/IMG_2001.jpg"), to: folder.appending(path: "new.jpg"))
        #expect(try cli.run("changes", "--since", "garbage", "--sync", folder.path).status == 4)
        #expect(try cli.token() == token)
        #expect(try cli.run("assets", "--json").lines.count == 6)
    }
}
