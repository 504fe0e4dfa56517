import Foundation
import LibraryTestSupport
import Synchronization
import Testing
@testable import PhotoLibrary

/// Which connection a delivery round reads on (``WriterRound``): the writer's, right after its commits, for a
/// small round of results followed incrementally; the round reader for everything else. Either way the
/// details are those of fetching again.
@Suite struct ObservationWriterRoundTests {
    static let byDate = FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")])

    static func makeAssets(_ test: TestLibrary, _ count: Int) throws -> [Asset] {
        try test.makeAssets(count) { index, request in request.creationDate = .utc(2020, 1, 1).addingTimeInterval(Double(index) * 3600) }
    }

    /// Reads the round after `start` and returns it with whether it was read on the writer.
    static func readRound(_ library: PhotoLibrary, after start: Int64) throws -> (change: Change?, onWriter: Bool) {
        let before = library.observation.roundsReadOnWriter.load(ordering: .relaxed)
        let change = try library.observation.readChanges(after: start).last
        return (change, library.observation.roundsReadOnWriter.load(ordering: .relaxed) == before + 1)
    }

    /// The details of `result` in `change` lead to what fetching again gives.
    static func expectCurrent(_ change: Change?, _ result: FetchResult<Asset>, _ library: PhotoLibrary, options: FetchOptions) throws {
        let details = try #require(change?.changeDetails(for: result))
        #expect(apply(details) == details.fetchResultAfterChanges.keys)
        #expect(details.fetchResultAfterChanges.keys == (try library.fetchAssets(options: options)).keys)
    }

    @Test(arguments: StoragePaths.sqlite) func aSmallRoundOfFollowedResultsReadsOnTheWriter(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try Self.makeAssets(test, 300)
        let result = try test.library.fetchAssets(options: Self.byDate)
        let start = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait {
            AssetChangeRequest(for: assets[0]).creationDate = .utc(2030, 1, 1)
            AssetChangeRequest(for: assets[150]).isFavorite = true
            AssetChangeRequest.deleteAssets([assets[7]])
        }
        let (change, onWriter) = try Self.readRound(test.library, after: start)
        #expect(onWriter)
        try Self.expectCurrent(change, result, test.library, options: Self.byDate)
    }

    /// A result that has to be fetched again would hold the writer for the whole fetch.
    @Test(arguments: StoragePaths.sqlite) func aRoundWithAResultFetchedAgainReadsOnTheRoundReader(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try Self.makeAssets(test, 100)
        let limited = FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")], fetchLimit: 7)
        var followed = try test.library.fetchAssets(options: Self.byDate)
        var fetchedAgain: FetchResult<Asset>? = try test.library.fetchAssets(options: limited)
        var start = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait { AssetChangeRequest(for: assets[0]).creationDate = .utc(2030, 1, 1) }
        var (change, onWriter) = try Self.readRound(test.library, after: start)
        #expect(!onWriter)
        try Self.expectCurrent(change, followed, test.library, options: Self.byDate)
        try Self.expectCurrent(change, fetchedAgain!, test.library, options: limited)

        // Without it, the next round reads on the writer.
        followed = try #require(change?.changeDetails(for: followed)).fetchResultAfterChanges
        fetchedAgain = nil
        start = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait { AssetChangeRequest(for: assets[1]).creationDate = .utc(2031, 1, 1) }
        (change, onWriter) = try Self.readRound(test.library, after: start)
        #expect(onWriter)
        try Self.expectCurrent(change, followed, test.library, options: Self.byDate)
    }

    /// Many records: albums, so that the assets touched stay few enough to follow incrementally.
    @Test(arguments: StoragePaths.sqlite) func aRoundOfManyRecordsReadsOnTheRoundReader(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try Self.makeAssets(test, 100)
        let result = try test.library.fetchAssets(options: Self.byDate)
        let start = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait {
            for index in 0..<WriterRound.recordLimit {
                _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "album \(index)")
            }
            AssetChangeRequest(for: assets[0]).creationDate = .utc(2030, 1, 1)
        }
        let (change, onWriter) = try Self.readRound(test.library, after: start)
        #expect(!onWriter)
        #expect(change?.context?.incremental.isEmpty == false)
        try Self.expectCurrent(change, result, test.library, options: Self.byDate)
    }

    /// A result more than ``WriterRound/lagLimit`` transactions behind: its records would be read again.
    @Test(arguments: StoragePaths.sqlite) func aRoundWithALaggingResultReadsOnTheRoundReader(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try Self.makeAssets(test, 100)
        let lagging = try test.library.fetchAssets(options: Self.byDate)
        // Transactions touching one asset: few enough to follow incrementally from that far back.
        for index in 0...WriterRound.lagLimit {
            try test.library.performChangesAndWait { AssetChangeRequest(for: assets[0]).isFavorite = index % 2 == 0 }
        }
        let current = try test.library.fetchAssets(options: Self.byDate)
        let start = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait { AssetChangeRequest(for: assets[99]).creationDate = .utc(2019, 1, 1) }
        let (change, onWriter) = try Self.readRound(test.library, after: start)
        #expect(!onWriter)
        #expect(change?.context?.incremental.count == 2)
        try Self.expectCurrent(change, lagging, test.library, options: Self.byDate)
        try Self.expectCurrent(change, current, test.library, options: Self.byDate)
    }

    /// A result that no transaction changes moves on with the rounds that find it unchanged
    /// (``UnchangedStates``): long after it was fetched, a round still follows it on the writer, from the last
    /// round's end, and describes the change that finally touches it exactly as fetching again does. (Followed
    /// from its own position, it would lag more than ``WriterRound/lagLimit`` transactions behind, and its
    /// records would touch more assets than the incremental path follows for a result of 5.)
    @Test(arguments: StoragePaths.sqlite) func aResultNoTransactionChangesIsFollowedFromTheLastRound(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let library = test.library
        let assets = try Self.makeAssets(test, 100)
        try library.performChangesAndWait { for asset in assets.prefix(5) { AssetChangeRequest(for: asset).isFavorite = true } }
        let options = FetchOptions(predicate: "isFavorite", sortDescriptors: [FetchSort(key: "creationDate")])
        let favourites = try library.fetchAssets(options: options)
        #expect(favourites.count == 5)
        let transactions = 2 * Int(WriterRound.lagLimit)
        #expect(transactions > IncrementalFetch.maximumTouched(count: favourites.count))
        for index in 0..<transactions {
            let start = try library.currentChangeToken.sequence
            try library.performChangesAndWait { AssetChangeRequest(for: assets[5 + index % 95]).creationDate = .utc(2031, 1, 1 + index % 28) }
            let (change, onWriter) = try Self.readRound(library, after: start)
            #expect(onWriter, "round \(index)")
            #expect(change != nil && change?.changeDetails(for: favourites) == nil, "round \(index)")
        }
        #expect(favourites.followedFrom == (try library.currentChangeToken.sequence))
        let start = try library.currentChangeToken.sequence
        try library.performChangesAndWait { AssetChangeRequest(for: assets[2]).creationDate = .utc(2040, 1, 1) }
        let (change, onWriter) = try Self.readRound(library, after: start)
        #expect(onWriter)
        try Self.expectCurrent(change, favourites, library, options: options)
        #expect(change?.changeDetails(for: favourites)?.fetchResultAfterChanges.lastObject?.localIdentifier == assets[2].localIdentifier)
    }

    /// A round admitted on the writer whose result turns out to need fetching again (more touched assets than
    /// the incremental path follows) is read again on the round reader.
    @Test(arguments: StoragePaths.sqlite) func aRoundThatCannotBeFollowedIsReadAgainOnTheRoundReader(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try Self.makeAssets(test, 40)
        let result = try test.library.fetchAssets(options: Self.byDate)
        #expect(assets.count > IncrementalFetch.maximumTouched(count: result.count))
        let start = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait {
            for (index, asset) in assets.enumerated() { AssetChangeRequest(for: asset).creationDate = .utc(2040 - index, 1, 1) }
        }
        let (change, onWriter) = try Self.readRound(test.library, after: start)
        #expect(!onWriter)
        #expect(change?.context?.incremental.isEmpty == true)
        try Self.expectCurrent(change, result, test.library, options: Self.byDate)
    }

    /// Observers get their deliveries from rounds read on the writer, in commit order, with the details.
    @Test(arguments: StoragePaths.sqlite) func observersAreDeliveredRoundsReadOnTheWriter(paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        let assets = try Self.makeAssets(test, 50)
        var result = try test.library.fetchAssets(options: Self.byDate)
        let stream = try test.library.changes()
        let before = test.library.observation.roundsReadOnWriter.load(ordering: .relaxed)
        for (index, asset) in assets.prefix(5).enumerated() {
            try test.library.performChangesAndWait { AssetChangeRequest(for: asset).creationDate = .utc(2030 + index, 1, 1) }
        }
        var delivered = 0
        for await change in stream {
            if let details = change.changeDetails(for: result) {
                #expect(apply(details) == details.fetchResultAfterChanges.keys)
                result = details.fetchResultAfterChanges
            }
            delivered += 1
            if delivered == 5 { break }
        }
        #expect(result.keys == (try test.library.fetchAssets(options: Self.byDate)).keys)
        #expect(test.library.observation.roundsReadOnWriter.load(ordering: .relaxed) > before)
    }
}
