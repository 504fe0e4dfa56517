import Foundation
import Testing

/// Finding assets: `--album`, the `path` predicate key, `show` by identifier, prefix or path, one vocabulary
/// for JSON fields and predicate keys, one way of writing dates.
@Suite struct QueryTests {
    /// A library mirroring a copy of the samples.
    static func mirroredSamples(_ engine: LibraryEngine) throws -> (Photosync, URL) {
        let cli = try Photosync(engine)
        let folder = try sampleFolder()
        let scan = try cli.run("scan", folder.path)
        #expect(scan.status == 0, "\(scan.stderr)")
        return (cli, folder.resolvingSymlinksInPath())
    }

    static func paths(_ result: Photosync.Result) throws -> [String] {
        try result.jsonLines().compactMap { $0["path"] as? String }.sorted()
    }

    @Test(arguments: LibraryEngine.allCases)
    func assetsOfAnAlbumByIdentifierOrDirectory(engine: LibraryEngine) throws {
        let (cli, folder) = try Self.mirroredSamples(engine)
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let beach = ["Holidays/Beach/IMG_0101.jpg", "Holidays/Beach/IMG_0102.jpg"]
        #expect(try Self.paths(cli.run("assets", "--album", "Holidays/Beach", "--json")) == beach)
        #expect(try Self.paths(cli.run("assets", "--album", folder.appending(path: "Holidays/Beach").path, "--json")) == beach)
        #expect(try Self.paths(cli.run("assets", "--album", ".", "--json")) == ["Screenshot_2024-01-05.png"])
        let albums = try cli.run("albums", "--json").jsonLines()
        let id = try #require(albums.first { $0["path"] as? String == "Holidays/Beach" }?["localIdentifier"] as? String)
        #expect(try Self.paths(cli.run("assets", "--album", id, "--json")) == beach)
        // A part of the identifier: its last digits (the scan's albums share their start: time-ordered).
        #expect(try Self.paths(cli.run("assets", "--album", String(id.prefix(36).suffix(12)), "--json")) == beach)
        let identifiers = albums.compactMap { $0["localIdentifier"] as? String }
        let sharing = identifiers.filter { $0.hasPrefix(id.prefix(8)) }.count
        if sharing > 1 {
            let ambiguous = try cli.run("assets", "--album", String(id.prefix(8)), "--json")
            #expect((try ambiguous.errorReport()["message"] as? String)?.contains("is the start of \(sharing) album identifiers") == true)
        }
        // Smart albums and moments by identifier; options combine with the album.
        let library = try #require(albums.first { $0["assetCollectionSubtype"] as? String == "smartAlbumUserLibrary" }?["localIdentifier"] as? String)
        #expect(try cli.run("assets", "--album", library, "--json").lines.count == 6)
        #expect(try cli.run("assets", "--album", "Holidays/Beach", "--where", "originalFilename ENDSWITH \"101.jpg\"").lines.count == 1)
        let unknown = try cli.run("assets", "--album", "Nowhere", "--json")
        #expect(unknown.status == 1)
        #expect(try unknown.errorReport()["error"] as? String == "notFound")
    }

    @Test(arguments: LibraryEngine.allCases)
    func thePathKeySelectsAndSortsMirroredAssets(engine: LibraryEngine) throws {
        let (cli, folder) = try Self.mirroredSamples(engine)
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let holidays = try cli.run("assets", "--where", "path BEGINSWITH \"Holidays/\"", "--json")
        #expect(holidays.status == 0, "\(holidays.stderr)")
        #expect(try Self.paths(holidays) == ["Holidays/Beach/IMG_0101.jpg", "Holidays/Beach/IMG_0102.jpg", "Holidays/IMG_0090.jpg"])
        let sorted = try cli.run("assets", "--sort=-path", "--json").jsonLines().compactMap { $0["path"] as? String }
        #expect(sorted == sorted.sorted(by: >) && sorted.count == 6)
        #expect(try cli.run("assets", "--where", "path == \"Family/IMG_2001.jpg\"").lines.count == 1)
        // Imported (copied) originals have no path.
        try cli.run("import", Photosync.samples.appending(path: "Family").path)
        #expect(try cli.run("assets", "--where", "path == nil").lines.count == 0)  // same content: skipped
        let other = try Photosync(engine)
        defer { other.cleanUp() }
        try other.run("import", Photosync.samples.path)
        #expect(try other.run("assets", "--where", "path == nil").lines.count == 6)
        #expect(try other.run("assets", "--where", "path != nil").lines.count == 0)
    }

    @Test(arguments: LibraryEngine.allCases)
    func showFindsAnAssetByIdentifierPartOrPath(engine: LibraryEngine) throws {
        let (cli, folder) = try Self.mirroredSamples(engine)
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let asset = try #require(try cli.run("assets", "--where", "path == \"Family/IMG_2001.jpg\"", "--json").jsonLines().first)
        let id = try #require(asset["localIdentifier"] as? String)
        // Identifiers are time-ordered: the scan's assets share their start, their last digits tell them apart.
        let lastDigits = String(id.prefix(36).suffix(12))
        for name in [id, lastDigits, String(id.prefix(36)), "Family/IMG_2001.jpg", folder.appending(path: "Family/IMG_2001.jpg").path] {
            let shown = try cli.run("show", name, "--json")
            #expect(shown.status == 0, "show \(name): \(shown.stderr)")
            #expect(try shown.json()["localIdentifier"] as? String == id, "show \(name)")
        }
        let identifiers = try cli.run("assets", "--json").jsonLines().compactMap { $0["localIdentifier"] as? String }
        #expect(identifiers.count == 6)
        for shared in ["", String(id.prefix(8))] {
            let sharing = identifiers.filter { $0.hasPrefix(shared) }.count  // 6, unless a 65 s boundary fell in the scan
            guard sharing > 1 else { continue }
            let ambiguous = try cli.run("show", shared, "--json")
            #expect(ambiguous.status == 1)
            #expect((try ambiguous.errorReport()["message"] as? String)?.contains("is the start of \(sharing) asset identifiers") == true, "show \(shared)")
        }
        let anyPart = try cli.run("show", "/L0/001", "--json")
        #expect((try anyPart.errorReport()["message"] as? String)?.contains("is part of 6 asset identifiers") == true)
        #expect(try cli.run("show", "Family/nothing.jpg").status == 1)
    }

    /// Every field of the asset JSON is a predicate key of the same name; the names of earlier versions
    /// (`filename`, `id`) are accepted in predicates.
    @Test(arguments: LibraryEngine.allCases)
    func jsonFieldsAndPredicateKeysShareNames(engine: LibraryEngine) throws {
        let (cli, folder) = try Self.mirroredSamples(engine)
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let asset = try #require(try cli.run("assets", "--json", "--where", "path == \"Family/IMG_2001.jpg\"").jsonLines().first)
        for field in asset.keys.sorted() {
            let sorted = try cli.run("assets", "--sort", field)
            #expect(sorted.status == 0, "--sort \(field): \(sorted.stderr)")
            #expect(!sorted.stderr.contains("unknown key"), "\(field) is a JSON field but not a key: \(sorted.stderr)")
        }
        #expect(try cli.run("assets", "--where", "originalFilename == \"IMG_2001.jpg\"").lines.count == 1)
        #expect(try cli.run("assets", "--where", "filename == \"IMG_2001.jpg\"").lines.count == 1)
        let id = try #require(asset["localIdentifier"] as? String)
        #expect(try cli.run("assets", "--where", "id == \"\(id)\"").lines.count == 1)
        #expect(try cli.run("assets", "--where", "latitude > 40.7 AND longitude < -74").lines.count == 1)
    }

    /// The same date is written the same way by `assets`, `show` and `--json`: in the capture's own offset.
    @Test(arguments: LibraryEngine.allCases)
    func datesAreWrittenOneWayEverywhere(engine: LibraryEngine) throws {
        let (cli, folder) = try Self.mirroredSamples(engine)
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let json = try #require(try cli.run("assets", "--json", "--where", "path == \"Holidays/Beach/IMG_0102.jpg\"").jsonLines().first)
        let date = try #require(json["creationDate"] as? String)
        #expect(date == "2024-07-14T18:02:10+02:00")
        let listed = try cli.run("assets", "--where", "path == \"Holidays/Beach/IMG_0102.jpg\"").trimmed
        #expect(listed.split(separator: " ", omittingEmptySubsequences: true).contains(Substring(date)), "\(listed)")
        let shown = try cli.run("show", "Holidays/Beach/IMG_0102.jpg").lines
        #expect(shown.contains { $0.hasPrefix("creationDate") && $0.hasSuffix(date) }, "\(shown)")
        let showJSON = try cli.run("show", "Holidays/Beach/IMG_0102.jpg", "--json").json()
        #expect(showJSON["creationDate"] as? String == date)
    }
}
