import Foundation
import LibraryTestSupport
import Testing
@testable import PhotoLibrary

/// The observation center tracks every fetch result the library makes, weakly: it follows the ones the
/// application holds, and forgets the ones it releases.
@Suite struct ObservationTrackingTests {
    /// A result the application releases is freed (the center doesn't keep it alive), and the next round drops
    /// its entry; the result still held is followed round after round, and matches a fresh fetch.
    @Test func releasedResultsAreFreedAndDroppedWhileTheHeldOneIsFollowed() throws {
        let test = try TestLibrary(paths: .fast)
        let library = test.library
        let assets = try ObservationWriterRoundTests.makeAssets(test, 20)
        var held = try library.fetchAssets(options: ObservationHandOffTests.byDate)
        weak var released: FetchResult<Asset>?
        for round in 0..<40 {
            do {
                let transient = try library.fetchAssets(options: ObservationHandOffTests.byDate)
                released = transient
            }
            #expect(released == nil)
            let start = try library.currentChangeToken.sequence
            try library.performChangesAndWait { AssetChangeRequest(for: assets[round % 20]).creationDate = .utc(1990 + round, 1, 1) }
            let details = try #require(try library.observation.readChanges(after: start).last?.changeDetails(for: held))
            held = details.fetchResultAfterChanges
            #expect(held.keys == (try library.fetchAssets(options: ObservationHandOffTests.byDate)).keys)
            // Live now: the result held, the one before it (the details hold it) and the fresh fetch just made,
            // released but not swept yet. Every other entry was dropped by the round.
            #expect(library.observation.trackedCount <= 3)
        }
    }
}
