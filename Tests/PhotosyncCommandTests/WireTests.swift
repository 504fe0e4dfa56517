import Foundation
import PhotoLibrary
import PhotosyncWire
import SeededRandom
import SyncWorker
import Testing

/// The JSON shapes: golden files of every shape, decoding what is encoded, the aliases of earlier versions,
/// and the one date format.
@Suite struct WireTests {
    static var goldenFolder: URL { HelpGoldenTests.goldenFolder }

    static func timestamp(_ text: String) -> Wire.Timestamp { Wire.Timestamp(text)! }

    static let asset: Wire.Asset = {
        let json = """
            {"localIdentifier": "8A5D595F-EBBF-43EF-9BC0-E0196F23FCA8/L0/001", "path": "Holidays/Beach/IMG_0102.jpg",
             "originalFilename": "IMG_0102.jpg", "mediaType": "image", "mediaSubtypes": ["photoHDR"], "pixelWidth": 4032,
             "pixelHeight": 3024, "creationDate": "2024-07-14T18:02:10+02:00", "modificationDate": "2024-07-14T16:02:11.250Z",
             "addedDate": "2026-11-24T09:00:36.113Z", "duration": 0, "latitude": 43.696, "longitude": 7.271, "altitude": 12.5,
             "isFavorite": true, "isHidden": false, "burstIdentifier": null, "representsBurst": false, "hasAdjustments": false,
             "uniformTypeIdentifier": "public.jpeg", "contentHash": "23e9b321de181d9eb2797be3d2771125", "fileSize": 657}
            """
        return try! JSONDecoder().decode(Wire.Asset.self, from: Data(json.utf8))
    }()

    static let album = Wire.Album.sample

    static let changes = Wire.ChangesPage(
        token: "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAEABmEB8ZOwV-9td8U", hasMore: false,
        changes: [Wire.Change(
            token: "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAEABmEB8ZOwV-9td8U", author: "photosync",
            date: timestamp("2026-11-24T09:00:36.113+01:00"),
            asset: Wire.ObjectChanges(
                inserted: ["A/L0/001"], updated: ["B/L0/001"], deleted: ["C/L0/001"],
                changedProperties: ["B/L0/001": ["isFavorite", "resource"]], paths: ["A/L0/001": "2024/a.jpg", "B/L0/001": "2024/b.jpg"]),
            assetCollection: Wire.ObjectChanges(updated: ["D/L0/040"], changedProperties: ["D/L0/040": ["count", "membership"]]),
            collectionList: Wire.ObjectChanges())])

    static let scan: Wire.ScanSummary = {
        Wire.ScanSummary(SyncWorkerSummary.make(), root: "/home/me/Pictures", token: "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAEABmEB8ZOwV-9td8U")
    }()

    /// Every shape, by golden file name.
    static let shapes: [(String, any Codable & Sendable)] = [
        ("token", Wire.Token(token: "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAEABmEB8ZOwV-9td8U")),
        ("asset", asset), ("album", album), ("changes", changes), ("scan", scan),
        ("error", Wire.Error(error: "tokenExpired", message: "the change token has expired", exitCode: 3, oldestValidToken: "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAAAAAAAAAAAAGBXris")),
        ("status", Wire.Status(
            library: "/home/me/.local/share/photosync/Library.photosync", identity: "6CCD199B-D73B-4470-90EE-58272C726CCF",
            counts: Wire.Counts(assets: 6, albums: 4, moments: 5, topLevelCollections: 3), history: WireTests.historySummary,
            mirrors: [Wire.Mirror(path: "/home/me/Pictures", lastScanStart: timestamp("2026-11-24T09:00:36Z"), lastScanEnd: timestamp("2026-11-24T09:00:37.5Z"), lastScan: scan)],
            watcher: Wire.Watcher(pid: 4242, mode: "watch", root: "/home/me/Pictures", since: timestamp("2026-11-24T08:00:00+01:00")),
            prerender: prerender, engine: "sqlite", files: "/home/me/.local/share/photosync/Library.photosync")),
        ("prerender", prerender),
        ("thumbnail", Wire.Thumbnail(
            localIdentifier: "8A5D595F-EBBF-43EF-9BC0-E0196F23FCA8/L0/001", path: "Holidays/Beach/IMG_0102.jpg",
            output: "/home/me/thumb.webp", width: 256, height: 171, format: "webp", bytes: 9_214, source: "renditionCache",
            contentHash: "23e9b321de181d9eb2797be3d2771125")),
        ("history", Wire.History(
            summary: historySummary,
            transactions: [Wire.Transaction(
                seq: 1, token: "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAEABmEB8ZOwV-9td8U", date: timestamp("2026-11-24T09:00:36.113Z"),
                author: "photosync", asset: .init(inserted: 6, updated: 0, deleted: 0), assetCollection: .init(inserted: 9, updated: 2, deleted: 0),
                collectionList: .init(inserted: 3, updated: 0, deleted: 0))],
            hasMore: false, expired: 2)),
        ("import", Wire.ImportSummary(
            root: "/home/me/Camera", imported: 6, skipped: Wire.ProblemList([Wire.Problem(path: "notes.txt", kind: "notMedia", reason: "not a photo or video")]),
            metadataProblems: Wire.ProblemList(), assets: 6, moments: 5, token: "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAEABmEB8ZOwV-9td8U")),
        ("library", Wire.Library(library: "/home/me/.local/share/photosync/Library.photosync", identity: "6CCD199B-D73B-4470-90EE-58272C726CCF", created: true)),
        ("duplicates", Wire.DuplicateGroup(contentHash: "23e9b321de181d9eb2797be3d2771125", assets: ["A/L0/001", "B/L0/001"], paths: ["A/L0/001": "a.jpg"])),
    ]

    static let prerender = Wire.Prerender(
        state: "running", pid: 4243, scope: "library", sizes: ["256", "1440"], contentMode: "fit", format: "jpeg85", total: 5_000,
        completed: 1_204, rendered: 2_398, alreadyCached: 8, failed: 1,
        lastError: "damaged image /home/me/Pictures/broken.jpg: VipsJpeg: Premature end of JPEG file",
        started: timestamp("2026-11-24T08:00:02+01:00"), updated: timestamp("2026-11-24T08:03:10.250+01:00"), finished: nil)

    static var historySummary: Wire.HistorySummary {
        try! JSONDecoder().decode(Wire.HistorySummary.self, from: Data("""
            {"oldestValidToken": "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAAAAAAAAAAAAGBXris",
             "currentToken": "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAEABmEB8ZOwV-9td8U", "transactions": 1, "objectChanges": 20,
             "retentionDays": 30, "retentionTransactions": 1000000}
            """.utf8))
    }

    static func pretty(_ value: some Encodable) throws -> String {
        let encoder = Wire.makeEncoder()
        encoder.outputFormatting.insert(.prettyPrinted)
        return String(decoding: try encoder.encode(value), as: UTF8.self) + "\n"
    }

    /// After an intended change of a shape: `PHOTOSYNC_UPDATE_GOLDEN=1 swift test --filter WireTests`, and
    /// review the diff (and the README's "JSON shapes").
    @Test(arguments: shapes.map(\.0))
    func everyShapeMatchesItsGoldenFile(name: String) throws {
        let value = try #require(Self.shapes.first { $0.0 == name }?.1)
        let text = try Self.pretty(value)
        let golden = Self.goldenFolder.appending(path: "wire-\(name).json")
        if ProcessInfo.processInfo.environment["PHOTOSYNC_UPDATE_GOLDEN"] == "1" {
            try Data(text.utf8).write(to: golden)
            return
        }
        #expect(text == (try String(contentsOf: golden, encoding: .utf8)), "the \(name) shape differs from \(golden.lastPathComponent)")
    }

    @Test(arguments: shapes.map(\.0))
    func everyShapeDecodesWhatItEncodes(name: String) throws {
        let value = try #require(Self.shapes.first { $0.0 == name }?.1)
        func roundTrip<T: Codable & Equatable>(_ value: T) throws -> Bool {
            let decoded = try Wire.makeDecoder().decode(T.self, from: try Wire.makeEncoder().encode(value))
            return decoded == value
        }
        let same: Bool
        switch value {
        case let value as Wire.Token: same = try roundTrip(value)
        case let value as Wire.Asset: same = try roundTrip(value)
        case let value as Wire.Album: same = try roundTrip(value)
        case let value as Wire.ChangesPage: same = try roundTrip(value)
        case let value as Wire.ScanSummary: same = try roundTrip(value)
        case let value as Wire.Error: same = try roundTrip(value)
        case let value as Wire.Status: same = try roundTrip(value)
        case let value as Wire.History: same = try roundTrip(value)
        case let value as Wire.ImportSummary: same = try roundTrip(value)
        case let value as Wire.Library: same = try roundTrip(value)
        case let value as Wire.DuplicateGroup: same = try roundTrip(value)
        case let value as Wire.Prerender: same = try roundTrip(value)
        case let value as Wire.Thumbnail: same = try roundTrip(value)
        default: Issue.record("no round trip for \(name)"); same = false
        }
        #expect(same, "\(name) decodes to another value")
    }

    /// Missing values are written as null: every object of a shape has the same keys.
    @Test func missingValuesAreNullNotLeftOut() throws {
        var asset = Self.asset
        asset.path = nil
        asset.creationDate = nil
        asset.latitude = nil
        let object = try #require(try JSONSerialization.jsonObject(with: try Wire.makeEncoder().encode(asset)) as? [String: Any])
        let full = try #require(try JSONSerialization.jsonObject(with: try Wire.makeEncoder().encode(Self.asset)) as? [String: Any])
        #expect(Set(object.keys) == Set(full.keys))
        #expect(object["path"] is NSNull && object["creationDate"] is NSNull)
    }

    /// The names earlier versions wrote decode to the same values.
    @Test func theNamesOfEarlierVersionsAreAccepted() throws {
        let old = """
            {"id": "8A5D595F-EBBF-43EF-9BC0-E0196F23FCA8/L0/001", "path": "Holidays/Beach/IMG_0102.jpg",
             "filename": "IMG_0102.jpg", "mediaType": "image", "mediaSubtypes": ["photoHDR"], "pixelWidth": 4032,
             "pixelHeight": 3024, "creationDate": "2024-07-14T18:02:10+02:00", "modificationDate": "2024-07-14T16:02:11.250Z",
             "addedDate": "2026-11-24T09:00:36.113Z", "duration": 0,
             "location": {"latitude": 43.696, "longitude": 7.271, "altitude": 12.5}, "isFavorite": true, "isHidden": false,
             "burstIdentifier": null, "uniformTypeIdentifier": "public.jpeg", "contentHash": "23e9b321de181d9eb2797be3d2771125", "fileSize": 657}
            """
        #expect(try JSONDecoder().decode(Wire.Asset.self, from: Data(old.utf8)) == Self.asset)
        let oldAlbum = """
            {"id": "D2A35294-3BD2-4318-B2EA-F6BC802E5B9B/L0/040", "title": "Beach", "type": "album", "subtype": "albumRegular",
             "count": 2, "path": "Holidays/Beach", "parent": "F00/L0/020", "startDate": "2024-07-14T10:21:00+02:00",
             "endDate": "2024-07-14T18:02:10+02:00"}
            """
        #expect(try JSONDecoder().decode(Wire.Album.self, from: Data(oldAlbum.utf8)) == Self.album)
    }

    /// Timestamps: random instants and offsets written and read back, in the one format.
    @Test func timestampsRoundTripInTheOneFormat() throws {
        var random = SplitMix64(seed: 11)
        let iso = ISO8601DateFormatter()
        iso.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        for _ in 0..<2000 {
            let milliseconds = Int64.random(in: -2_000_000_000_000...5_000_000_000_000, using: &random)
            let offset = Int.random(in: -14 * 60...14 * 60, using: &random) * 60
            let stamp = Wire.Timestamp(Date(timeIntervalSince1970: Double(milliseconds) / 1000), utcOffset: offset)
            #expect(stamp.millisecondsSince1970 == milliseconds)
            let text = stamp.description
            #expect(text.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?(Z|[+-]\d\d:\d\d)/) != nil, "\(text)")
            #expect(Wire.Timestamp(text) == stamp, "\(text)")
            if milliseconds >= 0 {
                iso.timeZone = TimeZone(secondsFromGMT: offset)
                let reference = iso.date(from: text).map { Int64(($0.timeIntervalSince1970 * 1000).rounded()) }
                #expect(reference == milliseconds, "\(text)")
            }
        }
        #expect(Wire.Timestamp(Date(timeIntervalSince1970: 0), utcOffset: 0).description == "1970-01-01T00:00:00Z")
        #expect(Wire.Timestamp(Date(timeIntervalSince1970: 1_721_000_000.25), utcOffset: -5 * 3600).description == "2024-07-14T18:33:20.250-05:00")
        #expect(Wire.Timestamp("2024-13-01T00:00:00Z") == nil && Wire.Timestamp("2024-07-14 18:02:10") == nil)
    }
}

extension Wire.Album {
    static let sample = Wire.Album(
        localIdentifier: "D2A35294-3BD2-4318-B2EA-F6BC802E5B9B/L0/040", localizedTitle: "Beach", assetCollectionType: "album",
        assetCollectionSubtype: "albumRegular", estimatedAssetCount: 2, startDate: Wire.Timestamp("2024-07-14T10:21:00+02:00"),
        endDate: Wire.Timestamp("2024-07-14T18:02:10+02:00"), path: "Holidays/Beach", parent: "F00/L0/020")
}

/// A sync worker's summary with a little of everything.
enum SyncWorkerSummary {
    static func make() -> ScanSummary {
        var summary = ScanSummary()
        summary.inserted = 3
        summary.updated = 1
        summary.moved = 2
        summary.deleted = 1
        summary.unchanged = 20
        summary.filesHashed = 4
        summary.bytesHashed = 12_345_678
        summary.batches = 2
        summary.skipped = [
            SkippedFile(path: "b.jpg", reason: "unreadable: Permission denied"),
            SkippedFile(path: "link.jpg", reason: "symbolic link (not followed)"),
        ]
        summary.metadataProblems = ["c.jpg": ["unparseableDate DateTimeOriginal: 2023:13:45 19:30:00"]]
        summary.duration = 1.2345
        return summary
    }
}
