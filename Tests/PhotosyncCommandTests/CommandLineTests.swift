import Foundation
import Testing

@Suite struct CommandLineTests {
    @Test(arguments: LibraryEngine.allCases)
    func importListsAssetsInTheJSONContract(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        let imported = try cli.run("import", Photosync.samples.path, "--json")
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try imported.json()["imported"] as? Int == 6)
        let assets = try cli.run("assets", "--json", "--sort=-creationDate")
        #expect(assets.status == 0)
        let objects = try assets.jsonLines()
        #expect(objects.count == 6)
        let keys: Set<String> = [
            "localIdentifier", "path", "originalFilename", "mediaType", "mediaSubtypes", "pixelWidth", "pixelHeight",
            "creationDate", "modificationDate", "addedDate", "duration", "latitude", "longitude", "altitude", "isFavorite",
            "isHidden", "burstIdentifier", "representsBurst", "hasAdjustments", "uniformTypeIdentifier", "contentHash", "fileSize",
        ]
        for object in objects { #expect(Set(object.keys) == keys) }
        let first = try #require(objects.first)
        #expect(first["originalFilename"] as? String == "IMG_0102.jpg")
        #expect(first["creationDate"] as? String == "2024-07-14T18:02:10+02:00")
        #expect(first["mediaType"] as? String == "image")
        #expect((first["contentHash"] as? String)?.count == 32)
        #expect(abs((first["latitude"] as? Double ?? 0) - 43.696) < 0.001)
        // Filtering with a predicate; a bad predicate is exit 1 with a JSON error on stderr and nothing on stdout.
        #expect(try cli.run("assets", "--json", "--where", "creationDate < \"2024-01-01\"").lines.count == 2)
        let bad = try cli.run("assets", "--json", "--where", "colour == red")
        #expect(bad.status == 1)
        #expect(bad.stdout.isEmpty)
        let error = try bad.errorReport()
        #expect(error["error"] != nil && (error["message"] as? String)?.contains("colour") == true)
        // Show and duplicates.
        let id = try #require(first["localIdentifier"] as? String)
        #expect(try cli.run("show", id, "--json").json()["localIdentifier"] as? String == id)
        #expect(try cli.run("duplicates", "--json").stdout.isEmpty)
        // Albums: the smart album of the whole library holds the six.
        let albums = try cli.run("albums", "--json")
        #expect(albums.status == 0, "\(albums.stderr)")
        let library = try albums.jsonLines().first { $0["assetCollectionSubtype"] as? String == "smartAlbumUserLibrary" }
        #expect(library?["estimatedAssetCount"] as? Int == 6, "\(albums.stdout)")
    }

    @Test(arguments: LibraryEngine.allCases)
    func tokensAndChangesFollowTheContract(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        try cli.run("init")
        let start = try #require(try cli.run("token", "--json").json()["token"] as? String)
        try cli.run("import", Photosync.samples.path)
        let changes = try cli.run("changes", "--since", start, "--json")
        #expect(changes.status == 0)
        let object = try changes.json()
        #expect(object["hasMore"] as? Bool == false)
        let list = try #require(object["changes"] as? [[String: Any]])
        #expect(list.count == 1)
        let assets = try #require(list[0]["asset"] as? [String: Any])
        #expect((assets["inserted"] as? [String])?.count == 6)
        #expect(list[0]["author"] as? String == "photosync-import")
        #expect(list[0]["assetCollection"] != nil && list[0]["collectionList"] != nil)
        #expect(object["token"] as? String == (try cli.token()))
        #expect(try cli.run("changes", "--since", start, "--coalesce", "--json").json()["changes"].map { ($0 as? [Any])?.count } == 1)
        #expect(try cli.run("changes", "--since", start, "--exclude-author", "photosync-import", "--json").json()["changes"].map { ($0 as? [Any])?.count } == 0)
    }

    @Test(arguments: LibraryEngine.allCases)
    func exitCodesAreDocumented(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        try cli.run("init")
        let start = try cli.token()
        // 4: not a token, or another library's.
        let garbage = try cli.run("changes", "--since", "garbage", "--json")
        #expect(garbage.status == 4)
        #expect(garbage.stdout.isEmpty)
        #expect(try garbage.errorReport()["error"] as? String == "tokenInvalid")
        let other = try Photosync(engine)
        defer { other.cleanUp() }
        try other.run("init")
        #expect(try cli.run("changes", "--since", try other.token()).status == 4)
        // 3: expired.
        try cli.run("import", Photosync.samples.path)
        let middle = try cli.token()
        try cli.run("import", Photosync.samples.path)  // nothing new: no transaction
        #expect(try cli.run("history", "--expire-before", middle).status == 0)
        let expired = try cli.run("changes", "--since", start, "--json")
        #expect(expired.status == 3)
        let report = try expired.errorReport()
        #expect(report["error"] as? String == "tokenExpired")
        #expect(report["oldestValidToken"] as? String == middle)
        // 2: usage.
        #expect(try cli.run("changes").status == 2)
        #expect(try cli.run("no-such-command").status == 2)
        // 0.
        #expect(try cli.run("status", "--json").status == 0)
    }

    /// The waiter says (at debug level) when it starts waiting; the commit comes after that, so the wake-up
    /// is what the test sees. Its re-poll is off (`PHOTOSYNC_COMMIT_POLL_INTERVAL=off`): only the commit
    /// notification can wake it before its 60 s wait ends.
    @Test(arguments: LibraryEngine.allCases)
    func changesWaitIsWokenByACommitFromAnotherProcess(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        try cli.run("init")
        let token = try cli.token()
        let (waiter, out, err) = try cli.start(
            ["changes", "--since", token, "--wait", "60", "--json", "--verbose"],
            environment: ["PHOTOSYNC_COMMIT_POLL_INTERVAL": "off"])
        let log = Photosync.Collector(err)
        let result = Photosync.Collector(out)
        #expect(Photosync.waitUntil(seconds: 30) { log.text.contains("waiting up to") }, "\(log.text)")
        try cli.run("import", Photosync.samples.path)
        let committed = Date()
        #expect(Photosync.waitUntil(seconds: 30) { !result.text.isEmpty })
        let latency = Date().timeIntervalSince(committed)
        let output = Data(result.finish().utf8)
        waiter.waitUntilExit()
        #expect(waiter.terminationStatus == 0)
        #expect(latency < 1, "answered \(latency) s after the committing process ended")
        let object = try #require(try JSONSerialization.jsonObject(with: output) as? [String: Any])
        #expect((object["changes"] as? [Any])?.count == 1)
    }

    @Test func aCommitPollIntervalThatIsNoDurationIsAUsageError() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        try cli.run("init")
        for value in ["abc", "0", "-1", "inf", "nan", "1e300"] {
            let result = try cli.run(["token"], environment: ["PHOTOSYNC_COMMIT_POLL_INTERVAL": value])
            #expect(result.status == 2, "\(value): \(result.stderr)")
            #expect(result.stderr.contains("PHOTOSYNC_COMMIT_POLL_INTERVAL"), "\(result.stderr)")
        }
        #expect(try cli.run(["token"], environment: ["PHOTOSYNC_COMMIT_POLL_INTERVAL": "0.25"]).status == 0)
        #expect(try cli.run(["token"], environment: ["PHOTOSYNC_COMMIT_POLL_INTERVAL": "off"]).status == 0)
    }

    @Test func everyCommandHasHelpWithAnExample() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        for command in HelpGoldenTests.commands where !command.isEmpty {
            let help = try cli.run(command, "--help")
            #expect(help.status == 0)
            #expect(help.stdout.contains("Example:"), "\(command) --help has no example")
            #expect(help.stdout.contains("USAGE: photosync \(command)"))
        }
    }
}
