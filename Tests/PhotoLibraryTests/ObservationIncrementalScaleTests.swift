import Foundation
import GRDB
import LibraryTestSupport
import SeededRandom
import Synchronization
import Testing
@testable import PhotoLibrary

/// The incremental change details over results large enough for every path of the searches: sort values kept
/// for every key (numbers) or every 16th (text, three columns), windows between fences, fences the patches
/// removed, results without fences, and patches of hundreds of entries. The oracle is the same as
/// ``ObservationIncrementalTests``': fetching again and diffing. (Compaction, with the values it carries, is
/// tested on the key lists themselves.)
@Suite struct ObservationIncrementalScaleTests {
    static let assetCount = 3_000

    /// Dates over ten years (few ties), some missing.
    static func date(_ g: inout RandomSource) -> Date? {
        g.chance(0.05) ? nil : Date(timeIntervalSince1970: 1_300_000_000 + Double(g.int(in: 0...315_360_000)))
    }

    static func makeLibrary(seed: UInt64, paths: StoragePaths) throws -> TestLibrary {
        let test = try TestLibrary(paths: paths)
        var g = RandomSource(seed: seed)
        try test.library.performChangesAndWait {
            for index in 0..<assetCount {
                let hash = String(format: "%032llx", UInt64(index) &+ seed << 40)
                let request = AssetChangeRequest.creationRequestForAsset(
                    fromFileAt: URL(fileURLWithPath: "/virtual/\(hash).jpg"),
                    options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1))
                request.creationDate = date(&g)
                request.pixelWidth = g.pick([1000, 2000, 3000, 4000])
                request.isFavorite = g.chance(0.2)
                if g.chance(0.1) { request.burstIdentifier = g.pick(["B1", "B2", "B3"]) }
            }
        }
        return test
    }

    /// One block touching up to about 25 assets, burst representatives included (the most a round of a
    /// 3,000-asset result follows incrementally is 32): new dates, favourites, hidden, deletions, insertions.
    /// Returns the identifiers of the assets it deleted and created.
    static func performBlock(
        on library: PhotoLibrary, assets: [Asset], _ g: inout RandomSource
    ) throws -> (deleted: Set<String>, created: [String]) {
        var local = g
        var deleted: Set<String> = []
        var created: [String] = []
        try library.performChangesAndWait(author: "random") {
            var touched: Set<String> = []
            for _ in 0..<local.int(in: 1...22) {
                guard let asset = local.anyElement(assets), touched.insert(asset.localIdentifier).inserted else { continue }
                let request = AssetChangeRequest(for: asset)
                switch local.int(in: 0...5) {
                case 0, 1, 2: request.creationDate = Self.date(&local)
                case 3: request.isFavorite.toggle()
                case 4: request.pixelWidth = local.pick([1000, 2000, 3000, 4000])
                default: request.isHidden.toggle()
                }
            }
            if local.chance(0.3), let asset = local.anyElement(assets), !touched.contains(asset.localIdentifier) {
                AssetChangeRequest.deleteAssets([asset])
                deleted.insert(asset.localIdentifier)
            }
            for _ in 0..<local.int(in: 0...2) {
                let hash = String(format: "%016llx%016llx", local.next(), local.next())
                let request = AssetChangeRequest.creationRequestForAsset(
                    fromFileAt: URL(fileURLWithPath: "/virtual/\(hash).jpg"),
                    options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1))
                request.creationDate = Self.date(&local)
                created.append(request.placeholderForCreatedAsset!.localIdentifier)
            }
        }
        g = local
        return (deleted, created)
    }

    @Test(arguments: [11, 12] as [UInt64], StoragePaths.allCases)
    func largeResultsFollowedRoundAfterRoundEqualFetchingAgain(seed: UInt64, paths: StoragePaths) throws {
        let test = try Self.makeLibrary(seed: seed, paths: paths)
        let library = test.library
        let sorts: [(name: String, options: FetchOptions, dense: Bool)] = [
            ("by date", FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")]), true),
            ("by width, newest first", FetchOptions(
                predicate: "isFavorite OR pixelWidth > 2000",
                sortDescriptors: [FetchSort(key: "pixelWidth"), FetchSort(key: "creationDate", ascending: false)]), true),
            ("by burst", FetchOptions(
                sortDescriptors: [FetchSort(key: "burstIdentifier"), FetchSort(key: "creationDate")], includeAllBurstAssets: true), false),
            ("three columns", FetchOptions(
                sortDescriptors: [FetchSort(key: "isFavorite"), FetchSort(key: "pixelWidth"), FetchSort(key: "creationDate", ascending: false)]),
                false),
        ]
        var results = try sorts.map { try library.fetchAssets(options: $0.options) }
        for (result, sort) in zip(results, sorts) {
            #expect((result.keyList.denseBaseValues != nil) == sort.dense, "\(sort.name)")
        }
        var g = RandomSource(seed: seed)
        // Every asset, kept up to date from what each block deletes and creates (a request reads the asset's
        // state from the library, so the objects' own values may be old): loading 3,000 objects every round
        // took most of this test's time.
        var everything = Array(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)))
        for round in 0..<40 {
            let start = try library.currentChangeToken.sequence
            let block = try Self.performBlock(on: library, assets: everything, &g)
            everything.removeAll { block.deleted.contains($0.localIdentifier) }
            everything += try library.fetchAssets(withLocalIdentifiers: block.created)
            library.observation.maintainsIncrementally.store(true, ordering: .relaxed)
            let onWriter = library.observation.roundsReadOnWriter.load(ordering: .relaxed)
            let incremental = try #require(try library.observation.readChanges(after: start).last)
            // A small round of results all followed: read on the writer's connection (see ``WriterRound``; SQLite's).
            let expectedOnWriter = paths == .postgres ? onWriter : onWriter + 1
            #expect(library.observation.roundsReadOnWriter.load(ordering: .relaxed) == expectedOnWriter, "seed \(seed) round \(round)")
            library.observation.maintainsIncrementally.store(false, ordering: .relaxed)
            let full = try #require(try library.observation.readChanges(after: start).last)
            for (index, before) in results.enumerated() {
                let state = DeliveryContext.ResultState(chain: ObjectIdentifier(before.chain), sequence: before.sequence)
                #expect(incremental.context?.incremental[state] != nil, "seed \(seed) round \(round) \(sorts[index].name): followed")
                let fast = incremental.changeDetails(for: before)
                let oracle = full.changeDetails(for: before)
                #expect((fast == nil) == (oracle == nil), "seed \(seed) round \(round) \(sorts[index].name)")
                guard let fast, let oracle else { continue }
                #expect(fast.diff == oracle.diff, "seed \(seed) round \(round) \(sorts[index].name)")
                #expect(fast.fetchResultAfterChanges.keys == oracle.fetchResultAfterChanges.keys, "seed \(seed) round \(round) \(sorts[index].name)")
                var after = fast.fetchResultAfterChanges
                // Every 10th round, continue without fences: the searches then run in the database alone.
                if round % 10 == 9 && index % 2 == 0 {
                    after = library.observation.track(after.successor(keyList: FetchResultKeyList(after.keys), sequence: after.sequence))
                }
                results[index] = after
            }
        }
        for (index, result) in results.enumerated() {
            #expect(result.keys == (try library.fetchAssets(options: sorts[index].options)).keys, "\(sorts[index].name)")
        }
    }
}
