import Foundation
import LibraryTestSupport
import SeededRandom
import Testing
@testable import PhotoLibrary

/// Keyset pages (`fetchAssets(options:after:limit:)`), against the whole fetch as the oracle; the state
/// reader; objects changed since a token.
@Suite struct FetchPagingTests {
    /// A library of `count` assets with random sort values: dates (some missing, many equal), sizes,
    /// favourites, locations (some missing), names; a few hidden.
    static func randomLibrary(_ count: Int, seed: UInt64, paths: StoragePaths) throws -> TestLibrary {
        let test = try TestLibrary(paths: paths)
        var g = SplitMix64(seed: seed)
        let plans = (0..<count).map { _ in
            (date: g.chance(0.1) ? nil : Date(timeIntervalSince1970: Double(1_600_000_000 + g.int(in: 0...30) * 86_400)),
             width: g.int(in: 0...3) * 1000, favorite: g.chance(0.3), hidden: g.chance(0.1),
             latitude: g.chance(0.3) ? nil : Double(g.int(in: -3...3)))
        }
        try test.makeAssets(count) { index, request in
            let plan = plans[index]
            request.creationDate = plan.date
            request.pixelWidth = plan.width
            request.isFavorite = plan.favorite
            request.isHidden = plan.hidden
            if let latitude = plan.latitude { request.location = Location(latitude: latitude, longitude: 0) }
        }
        return test
    }

    /// Every page after the other, with page sizes from `sizes`.
    static func pages(_ fetch: (FetchCursor?, Int) throws -> FetchPage<Asset>, sizes: inout SplitMix64) throws -> [String] {
        var identifiers: [String] = []
        var cursor: FetchCursor?
        repeat {
            let limit = sizes.int(in: 1...17)
            let page = try fetch(cursor, limit)
            #expect(page.objects.count <= limit)
            #expect(page.nextCursor == nil || page.objects.count == limit)
            identifiers += page.objects.map(\.localIdentifier)
            // Through its text form, as a client hands it back.
            cursor = try page.nextCursor.map { try FetchCursor(string: $0.stringValue) }
        } while cursor != nil
        return identifiers
    }

    @Test("Pages of random queries, in random sizes, are the whole fetch in its order", arguments: [1, 2, 3] as [UInt64], StoragePaths.allCases)
    func pagesAreTheWholeFetch(seed: UInt64, paths: StoragePaths) throws {
        let test = try Self.randomLibrary(120, seed: seed, paths: paths)
        let keys = ["creationDate", "pixelWidth", "isFavorite", "originalFilename", "addedDate", "latitude", "path"]
        let predicates: [FetchFilter?] = [nil, "isFavorite", "pixelWidth >= 1000 AND NOT isFavorite", "latitude == nil"]
        var g = SplitMix64(seed: seed &* 31)
        for round in 0..<40 {
            var sorts: [FetchSort] = []
            for _ in 0..<g.int(in: 0...3) { sorts.append(FetchSort(key: keys[g.int(in: 0...(keys.count - 1))], ascending: g.chance(0.5))) }
            let options = FetchOptions(
                predicate: predicates[g.int(in: 0...(predicates.count - 1))], sortDescriptors: sorts, includeHiddenAssets: g.chance(0.3))
            let whole = try test.library.fetchAssets(options: options)
            let expected = try whole.objects(in: 0..<whole.count).map(\.localIdentifier)
            let paged = try Self.pages({ try test.library.fetchAssets(options: options, after: $0, limit: $1) }, sizes: &g)
            #expect(paged == expected, "seed \(seed) round \(round): sort \(FetchSort.listDescription(sorts)), \(options.predicate?.description ?? "all")")
        }
    }

    @Test("An album's pages follow its own order, or the options' order; a smart album's and a moment's follow theirs", arguments: StoragePaths.allCases)
    func collectionPages(paths: StoragePaths) throws {
        let test = try Self.randomLibrary(60, seed: 9, paths: paths)
        var g = SplitMix64(seed: 99)
        let all = try test.library.fetchAssets(options: FetchOptions(includeHiddenAssets: true))
        var members = try all.objects(in: 0..<all.count)
        members.shuffle(using: &g)
        let chosen = Array(members.prefix(35))
        try test.library.performChangesAndWait {
            AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Mixed").addAssets(chosen)
        }
        let album = try test.library.fetchAssetCollections(with: .album).object(at: 0)
        let favorites = try test.library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).object(at: 0)
        let moment = try test.library.fetchMoments().object(at: 0)
        for collection in [album, favorites, moment] {
            for options in [FetchOptions(), FetchOptions(sortDescriptors: [FetchSort(key: "pixelWidth", ascending: false)])] {
                let whole = try test.library.fetchAssets(in: collection, options: options)
                let expected = try whole.objects(in: 0..<whole.count).map(\.localIdentifier)
                let paged = try Self.pages({ try test.library.fetchAssets(in: collection, options: options, after: $0, limit: $1) }, sizes: &g)
                #expect(paged == expected, "\(collection.localizedTitle ?? "?") sorted by \(options.sortDescriptors)")
            }
        }
    }

    @Test("Between pages of an album, removing assets before the cursor skips nothing after it", arguments: StoragePaths.allCases)
    func albumPagesAreAnchoredOnTheLastAsset(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(20)
        try test.library.performChangesAndWait {
            AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Ordered").addAssets(assets)
        }
        let album = try test.library.fetchAssetCollections(with: .album).object(at: 0)
        let first = try test.library.fetchAssets(in: album, after: nil, limit: 6)
        #expect(first.objects.map(\.localIdentifier) == assets.prefix(6).map(\.localIdentifier))
        // Dense positions: removing two members before the cursor shifts every later position down by two.
        try test.library.performChangesAndWait { AssetCollectionChangeRequest(for: album).removeAssets([assets[1], assets[2]]) }
        let second = try test.library.fetchAssets(in: album, after: first.nextCursor, limit: 6)
        #expect(second.objects.map(\.localIdentifier) == assets[6..<12].map(\.localIdentifier))
    }

    @Test("Paging while the library changes returns every untouched asset once, in order, and repeats only assets re-sorted meanwhile", arguments: StoragePaths.allCases)
    func pagingWhileChanging(paths: StoragePaths) throws {
        let test = try Self.randomLibrary(150, seed: 17, paths: paths)
        var changes = RandomChanges(seed: 23)
        var g = SplitMix64(seed: 5)
        let options = FetchOptions(sortDescriptors: [FetchSort(key: "creationDate", ascending: false)])
        let start = try test.library.currentChangeToken
        var seen: [String] = []
        var cursor: FetchCursor?
        repeat {
            let page = try test.library.fetchAssets(options: options, after: cursor, limit: g.int(in: 3...9))
            seen += page.objects.map(\.localIdentifier)
            cursor = page.nextCursor
            for _ in 0..<g.int(in: 0...2) { try? changes.performBlock(on: test.library) }
        } while cursor != nil
        let touched = Set(try test.library.fetchPersistentChanges(since: start).flatMap { change in
            let details = try change.changeDetails(for: .asset)
            return details.insertedLocalIdentifiers.union(details.updatedLocalIdentifiers).union(details.deletedLocalIdentifiers)
        })
        let whole = try test.library.fetchAssets(options: options)
        let final = try whole.objects(in: 0..<whole.count).map(\.localIdentifier)
        #expect(!touched.isEmpty)
        #expect(seen.filter { !touched.contains($0) } == final.filter { !touched.contains($0) })
        let counts = Dictionary(seen.map { ($0, 1) }, uniquingKeysWith: +)
        #expect(counts.allSatisfy { $0.value == 1 || touched.contains($0.key) })
    }

    @Test("A cursor is refused with another query, and a page of fewer than one object is refused", arguments: StoragePaths.allCases)
    func misuse(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.makeAssets(5)
        let page = try test.library.fetchAssets(after: nil, limit: 2)
        let cursor = try #require(page.nextCursor)
        #expect(page.changeToken == (try test.library.currentChangeToken))
        #expect(throws: PhotoLibraryError.invalidValue(property: "cursor", reason: "it was made for another query (filter, order or options)")) {
            try test.library.fetchAssets(options: FetchOptions(predicate: "isFavorite"), after: cursor, limit: 2)
        }
        #expect(throws: PhotoLibraryError.self) { try FetchCursor(string: "not a cursor") }
        #expect(throws: PhotoLibraryError.invalidValue(property: "limit", reason: "a page holds at least 1 object (it was 0)")) {
            try test.library.fetchAssets(after: nil, limit: 0)
        }
    }

    @Test("The state reader yields every identifier of its snapshot, in batches, whatever is committed meanwhile", arguments: StoragePaths.allCases)
    func stateReader(paths: StoragePaths) throws {
        let test = try Self.randomLibrary(45, seed: 4, paths: paths)
        try test.library.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "A") }
        let expected = try test.library.fetchCurrentState()
        let reader = try test.library.makeStateReader()
        #expect(reader.changeToken == expected.changeToken)
        var position = LibraryStateReader.Position()
        var read: [(ObjectType, String)] = []
        var changes = RandomChanges(seed: 8)
        while true {
            let batch = try reader.nextBatch(after: &position, limit: 7)
            if batch.isEmpty { break }
            read += batch
            try? changes.performBlock(on: test.library)
        }
        for type in ObjectType.allCases {
            let identifiers = read.filter { $0.0 == type }.map(\.1)
            #expect(Set(identifiers) == expected.identifiers(of: type))
            #expect(identifiers.count == reader.counts[type])
        }
    }

    @Test("Objects changed since a token: read outside a block, and inside one within its transaction", arguments: StoragePaths.allCases)
    func changedObjects(paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(3)
        let token = try test.library.currentChangeToken
        try test.library.performChangesAndWait { AssetChangeRequest(for: assets[0]).isFavorite = true }
        let ids = assets.map(\.localIdentifier)
        #expect(try test.library.localIdentifiersChanged(ids, since: token) == [ids[0]])
        let library = test.library
        let inside = try await library.performChanges { () -> Set<String> in
            AssetChangeRequest(for: assets[1]).isHidden = true
            return try library.localIdentifiersChanged(ids, since: token)
        }
        // The block's own change is not committed yet when it reads.
        #expect(inside == [ids[0]])
        try library.expireHistory(before: try library.currentChangeToken)
        #expect(throws: PhotoLibraryError.self) { try library.localIdentifiersChanged(ids, since: token) }
    }
}
