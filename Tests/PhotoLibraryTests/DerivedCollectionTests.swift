import Foundation
import GRDB
import LibraryTestSupport
import Testing
@testable import PhotoLibrary

@Suite struct DerivedCollectionTests {
    @Test(arguments: StoragePaths.allCases) func smartAlbumsFollowEveryChange(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(4) { index, request in
            if index == 0 { request.isFavorite = true }
            if index == 1 { request.mediaType = .video }
            if index == 2 { request.mediaSubtypes = [.photoPanorama, .photoScreenshot] }
            if index == 3 { request.isHidden = true }
        }
        func count(_ subtype: AssetCollectionSubtype) throws -> (estimated: Int, fetched: Int) {
            let album = try #require(try test.library.fetchAssetCollections(with: .smartAlbum, subtype: subtype).firstObject)
            return (album.estimatedAssetCount, try test.library.fetchAssets(in: album).count)
        }
        #expect(try count(.smartAlbumUserLibrary) == (3, 3))
        #expect(try count(.smartAlbumFavorites) == (1, 1))
        #expect(try count(.smartAlbumVideos) == (1, 1))
        #expect(try count(.smartAlbumPanoramas) == (1, 1))
        #expect(try count(.smartAlbumScreenshots) == (1, 1))
        #expect(try count(.smartAlbumAllHidden) == (1, 1))
        #expect(try count(.smartAlbumRecentlyAdded) == (3, 3))
        try test.library.performChangesAndWait {
            AssetChangeRequest(for: assets[0]).isFavorite = false
            AssetChangeRequest(for: assets[3]).isHidden = false
            AssetChangeRequest(for: assets[3]).isFavorite = true
        }
        #expect(try count(.smartAlbumFavorites) == (1, 1))
        #expect(try count(.smartAlbumAllHidden) == (0, 0))
        #expect(try count(.smartAlbumUserLibrary) == (4, 4))
        let containing = try test.library.fetchAssetCollections(containing: assets[3]).map(\.assetCollectionSubtype)
        #expect(containing.contains(.smartAlbumFavorites))
        #expect(!containing.contains(.smartAlbumAllHidden))
    }

    @Test(arguments: StoragePaths.allCases) func momentsGroupByLocalDayAndYear(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(5) { index, request in
            switch index {
            case 0:  // 23:30 at UTC+2 on May 3 is 21:30 UTC May 3
                request.creationDate = .utc(2024, 5, 3, 21, 30)
                request.creationTimeZoneOffset = 7200
            case 1:  // 00:30 at UTC+2 on May 4 is 22:30 UTC May 3: another local day
                request.creationDate = .utc(2024, 5, 3, 22, 30)
                request.creationTimeZoneOffset = 7200
            case 2:
                request.creationDate = .utc(2024, 5, 3, 10, 0)
                request.creationTimeZoneOffset = 0
            case 3:
                request.creationDate = .utc(2023, 12, 31, 10, 0)
                request.creationTimeZoneOffset = 0
            default:
                break  // undated
            }
        }
        let moments = try test.library.fetchMoments()
        #expect(moments.map(\.localizedTitle) == ["2023-12-31", "2024-05-03", "2024-05-04", "Undated"])
        #expect(moments.map(\.estimatedAssetCount) == [1, 2, 1, 1])
        #expect(try test.library.fetchAssets(in: moments[1]).map(\.localIdentifier).sorted() == [assets[0], assets[2]].map(\.localIdentifier).sorted())
        let years = try test.library.fetchMomentLists()
        #expect(years.map(\.localizedTitle) == ["2023", "2024"])
        #expect(try test.library.fetchCollections(in: years[1]).map(\.localizedTitle) == ["2024-05-03", "2024-05-04"])
        #expect(try test.library.fetchCollectionLists(containing: moments[0]).firstObject?.localizedTitle == "2023")

        // Moving the only 2023 asset empties its moment and its year.
        try test.library.performChangesAndWait {
            AssetChangeRequest(for: assets[3]).creationDate = .utc(2024, 5, 4, 10)
        }
        #expect(try test.library.fetchMoments().map(\.localizedTitle) == ["2024-05-03", "2024-05-04", "Undated"])
        #expect(try test.library.fetchMomentLists().map(\.localizedTitle) == ["2024"])
        let may4 = try test.library.fetchMoments()[1]
        #expect(may4.estimatedAssetCount == 2)
        #expect(may4.startDate == .utc(2024, 5, 3, 22, 30))
        #expect(may4.endDate == .utc(2024, 5, 4, 10))
    }

    /// A new asset's row is written with its moment, which is created then if its day has none. When the
    /// asset is re-dated or deleted later in the block, the moment made for it ends up empty: it must go, and
    /// the journal must not mention it.
    @Test("A moment made for a new asset that is re-dated or deleted in the same block leaves no trace", arguments: StoragePaths.allCases)
    func momentMadeInTheBlockAndLeftEmpty(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let start = try test.library.currentChangeToken
        try test.library.performChangesAndWait {
            let album = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Forces the rows")
            let redated = AssetChangeRequest.creationRequestForAsset(
                fromFileAt: test.directory.file("a.jpg", seed: 1), options: .init(storage: .referenced))
            redated.creationDate = .utc(2021, 3, 1, 12)
            let dropped = AssetChangeRequest.creationRequestForAsset(
                fromFileAt: test.directory.file("b.jpg", seed: 2), options: .init(storage: .referenced))
            dropped.creationDate = .utc(2022, 7, 9, 12)
            // An album member must exist as a row: both rows are written now, with their moments.
            album.addAssets([redated.placeholderForCreatedAsset!, dropped.placeholderForCreatedAsset!])
            redated.creationDate = .utc(2021, 3, 2, 12)
            AssetChangeRequest.deleteAssets(withLocalIdentifiers: [dropped.placeholderForCreatedAsset!.localIdentifier])
        }
        let moments = try test.library.fetchMoments()
        #expect(moments.map(\.localizedTitle) == ["2021-03-02"])
        #expect(moments.map(\.estimatedAssetCount) == [1])
        #expect(try test.library.fetchMomentLists().map(\.localizedTitle) == ["2021"])
        let change = try #require(Array(try test.library.fetchPersistentChanges(since: start)).first)
        let collections = try change.changeDetails(for: .assetCollection)
        #expect(collections.insertedLocalIdentifiers.contains(moments[0].localIdentifier))
        #expect(collections.deletedLocalIdentifiers.isEmpty)
        let all = try test.library.fetchAssetCollections(with: .moment, subtype: .any)
        #expect(all.count == 1)
    }

    @Test(arguments: StoragePaths.allCases) func burstsShowOnlyTheirRepresentativeByDefault(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(4) { index, request in
            request.creationDate = .utc(2024, 1, 1, 10, index)
            if index < 3 { request.burstIdentifier = "B1" }
            if index == 1 { request.burstSelectionTypes = [.userPick] }
        }
        #expect(try test.library.fetchAssets().map(\.localIdentifier) == [assets[1], assets[3]].map(\.localIdentifier))
        #expect(try test.library.fetchAssets(options: FetchOptions(includeAllBurstAssets: true)).count == 4)
        #expect(try test.library.fetchAssets(withBurstIdentifier: "B1").count == 3)
        #expect(try test.library.fetchAssets(withBurstIdentifier: "B1").filter(\.representsBurst).map(\.localIdentifier) == [assets[1].localIdentifier])
        // Deleting the representative promotes another member.
        try test.library.performChangesAndWait { AssetChangeRequest.deleteAssets([assets[1]]) }
        let burst = try test.library.fetchAssets(withBurstIdentifier: "B1")
        #expect(burst.filter(\.representsBurst).count == 1)
        #expect(try test.library.fetchAssets().count == 2)
    }
}

@Suite struct DerivedAggregateTests {
    /// Moment and album aggregates are kept incrementally; they must equal a computation from scratch.
    @Test(arguments: [5, 6, 7] as [UInt64], StoragePaths.allCases)
    func incrementalAggregatesEqualRecomputation(seed: UInt64, paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        var changes = RandomChanges(seed: seed)
        for _ in 0..<40 { try? changes.performBlock(on: test.library) }
        let rows = try test.library.storage.read { db in
            try db.fetchRows(sql: """
                SELECT c.id, c.assetCount, c.startDate, c.endDate, c.latitude, c.longitude,
                       (SELECT count(*) FROM asset a WHERE a.momentId = c.id) AS n,
                       (SELECT min(creationDate) FROM asset a WHERE a.momentId = c.id) AS s,
                       (SELECT max(creationDate) FROM asset a WHERE a.momentId = c.id) AS e,
                       (SELECT avg(latitude) FROM asset a WHERE a.momentId = c.id) AS lat,
                       (SELECT avg(longitude) FROM asset a WHERE a.momentId = c.id) AS lon
                FROM asset_collection c WHERE c.type = 3
                """, arguments: [], cached: false)
        }
        #expect(!rows.isEmpty)
        for row in rows {
            #expect(row["n"] as Int > 0, "an empty moment")
            #expect(row["assetCount"] as Int == row["n"] as Int)
            #expect(row["startDate"] as Double? == row["s"] as Double?)
            #expect(row["endDate"] as Double? == row["e"] as Double?)
            let latitude: Double? = row["latitude"], expected: Double? = row["lat"]
            #expect((latitude == nil) == (expected == nil))
            if let latitude, let expected { #expect(abs(latitude - expected) < 1e-6) }
        }
        // Every asset is in the moment of its day.
        let orphans = try test.library.storage.read { db in
            try db.fetchValue(Int.self, sql: "SELECT count(*) FROM asset WHERE momentId IS NULL")
        }
        #expect(orphans == 0)
    }
}
