import Foundation
import LibraryTestSupport
import SeededRandom
import Testing
@testable import PhotoLibrary

/// The journal a change block writes — transactions, records, previous values — read back from the database,
/// on both of SQLite's paths: the fast one binding through SQLite's C API and the generic one every engine
/// takes (`StoragePaths`).
@Suite struct JournalWriteTests {
    /// What a block changed, as the journal in the database has it: changed properties of updated assets and
    /// collections, deletions, and consecutive sequence numbers.
    @Test(arguments: StoragePaths.allCases)
    func theJournalReadBackIsWhatTheBlockChanged(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(3)
        try test.library.performChangesAndWait {
            _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Before")
        }
        let album = try #require(try test.library.fetchAssetCollections(with: .album).firstObject)
        let start = try test.library.currentChangeToken
        try test.library.performChangesAndWait(author: "editor") {
            let edit = AssetChangeRequest(for: assets[0])
            edit.isFavorite = true
            edit.creationDate = .utc(2031, 3, 4)
            AssetChangeRequest.deleteAssets([assets[1]])
            AssetCollectionChangeRequest(for: album).title = "After"
        }
        try test.library.performChangesAndWait(author: "second") { AssetChangeRequest(for: assets[2]).isHidden = true }
        let changes = Array(try test.library.fetchPersistentChanges(since: start))
        #expect(changes.map(\.author) == ["editor", "second"])
        #expect(changes.map(\.changeToken.sequence) == [start.sequence + 1, start.sequence + 2])
        let assetDetails = try changes[0].changeDetails(for: .asset)
        #expect(assetDetails.changedAssetProperties(for: assets[0].localIdentifier) == [.isFavorite, .creationDate])
        #expect(assetDetails.deletedLocalIdentifiers == [assets[1].localIdentifier])
        let collections = try changes[0].changeDetails(for: .assetCollection)
        #expect(collections.changedCollectionProperties(for: album.localIdentifier)?.contains(.title) == true)
        #expect(try changes[1].changeDetails(for: .asset).changedAssetProperties(for: assets[2].localIdentifier) == [.isHidden])
    }

    /// For random blocks, the records the journal holds in the database — previous values byte for byte —
    /// are those the block handed to the delivery rounds in memory.
    @Test(arguments: [1, 2] as [UInt64], StoragePaths.allCases)
    func theJournalInTheDatabaseIsTheHandedOne(seed: UInt64, paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let library = test.library
        var g = RandomSource(seed: seed)
        _ = try test.makeAssets(20) { index, request in request.creationDate = .utc(2020, 1, 1).addingTimeInterval(Double(index % 5) * 86_400) }
        var compared = 0
        for _ in 0..<16 {
            let start = try library.currentChangeToken.sequence
            do { try ObservationHandOffTests.performBlock(on: library, &g) } catch is PhotoLibraryError { continue }
            let (handed, read, held) = try ObservationHandOffTests.bothJournals(library, after: start)
            #expect(handed == read, "seed \(seed) after \(start)")
            if held && !read.isEmpty { compared += 1 }
        }
        #expect(compared > 0, "no block was handed off: nothing was compared")
    }
}
