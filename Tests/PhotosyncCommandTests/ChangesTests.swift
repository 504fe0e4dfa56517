import Foundation
import Testing

/// `photosync changes` says where changed objects are and which properties changed.
@Suite struct ChangesTests {
    @Test(arguments: LibraryEngine.allCases)
    func changesShowPathsAndChangedProperties(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        #expect(try cli.run("scan", folder.path).status == 0)
        let ids = Dictionary(uniqueKeysWithValues: try cli.run("assets", "--json").jsonLines().compactMap { object in
            (object["path"] as? String).flatMap { path in (object["localIdentifier"] as? String).map { (path, $0) } }
        })
        let token = try cli.token()
        // A move to another directory, and an edit of the content in place.
        try FileManager.default.moveItem(at: folder.appending(path: "Family/IMG_2002.jpg"), to: folder.appending(path: "Holidays/Christmas.jpg"))
        let edited = folder.appending(path: "Holidays/IMG_0090.jpg")
        try (try Data(contentsOf: edited) + Data("edited".utf8)).write(to: edited)
        #expect(try cli.run("scan", folder.path).status == 0)

        let page = try cli.run("changes", "--since", token, "--coalesce", "--json").json()
        let change = try #require((page["changes"] as? [[String: Any]])?.first)
        let assets = try #require(change["asset"] as? [String: Any])
        let renamed = try #require(ids["Family/IMG_2002.jpg"]), rewritten = try #require(ids["Holidays/IMG_0090.jpg"])
        #expect(Set(assets["updated"] as? [String] ?? []) == [renamed, rewritten])
        let properties = try #require(assets["changedProperties"] as? [String: [String]])
        #expect(properties[renamed]?.contains("resource") == true, "\(properties)")
        #expect(properties[rewritten]?.contains("content") == true, "\(properties)")
        #expect(properties[renamed]?.contains("content") == false)
        let paths = try #require(assets["paths"] as? [String: String])
        #expect(paths[renamed] == "Holidays/Christmas.jpg")
        #expect(paths[rewritten] == "Holidays/IMG_0090.jpg")
        // The two albums whose members changed say so, with their directories.
        let albums = try #require(change["assetCollection"] as? [String: Any])
        let albumProperties = try #require(albums["changedProperties"] as? [String: [String]])
        let albumPaths = try #require(albums["paths"] as? [String: String])
        let membership = Set(albumProperties.filter { $0.value.contains("membership") }.keys.compactMap { albumPaths[$0] })
        #expect(membership == ["Family", "Holidays"], "\(albumProperties) \(albumPaths)")

        // The text says the same, one line per object.
        let text = try cli.run("changes", "--since", token, "--coalesce").stdout
        #expect(text.contains("Holidays/Christmas.jpg"), "\(text)")
        let line = try #require(text.split(separator: "\n").first { $0.contains(renamed) })
        #expect(line.contains("updated") && line.contains("asset") && line.contains("(resource"), "\(line)")
        #expect(text.contains("2 assets updated"), "\(text)")
    }

    /// `watch --verbose` logs each committed change with its path.
    @Test(arguments: LibraryEngine.allCases)
    func theDaemonLogsChangesWithPathsWhenVerbose(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let daemon = try DaemonTests.Daemon(cli, folder: folder, extra: ["--verbose"])
        _ = try DaemonTests.waitUntilWatching(cli)
        #expect(try cli.run("changes", "--since", try cli.token(), "--sync", folder.path).status == 0)
        try FileManager.default.copyItem(at: folder.appending(path: "Family/IMG_2001.jpg"), to: folder.appending(path: "Family/copy.jpg"))
        #expect(Photosync.waitUntil(seconds: 60) { daemon.logText.contains("Family/copy.jpg") }, "\(daemon.logText)")
        #expect(daemon.stop() == 0)
        let line = try #require(daemon.logText.split(separator: "\n").first { $0.contains("Family/copy.jpg") })
        #expect(line.contains("inserted") && line.contains("asset"), "\(line)")
    }
}
