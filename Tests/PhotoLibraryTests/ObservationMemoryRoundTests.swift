import Foundation
import GRDB
import LibraryStorage
import LibraryTestSupport
import SeededRandom
import Synchronization
import Testing
@testable import PhotoLibrary

/// Delivery rounds read from this handle's hand-off alone, without a read transaction
/// (``JournalHandOff/memoryRound(after:current:)``): taken only when the wal-index header shows that nothing
/// was committed since the handle's newest handed-off commit, and then exactly what reading the journal gives.
@Suite struct ObservationMemoryRoundTests {
    /// The round journal after `start` from memory, as a round on the writer would have it now (nil when it
    /// isn't admitted), and whether memory says that nothing was committed after `start`.
    static func memoryJournal(_ library: PhotoLibrary, after start: Int64) throws -> (journal: [String]?, empty: Bool) {
        try library.storage.writeWithoutTransaction { db in
            guard let connection = db.sqliteDatabase?.sqliteConnection, let header = WALIndexHeader.current(of: connection) else {
                return (nil, false)
            }
            let journal = RoundJournal(memoryAfter: start, handOff: library.observation.handOff, current: header)
            let isEmpty = journal?.transactions.isEmpty ?? false
            return (isEmpty ? nil : journal.map(ObservationHandOffTests.describe), isEmpty)
        }
    }

    static func roundsInMemory(_ library: PhotoLibrary) -> Int {
        library.observation.roundsReadInMemory.load(ordering: .relaxed)
    }

    @Test func aRoundAfterTheHandlesOwnCommitsIsReadFromMemoryAndIsTheJournals() throws {
        let test = try TestLibrary(paths: .fast)
        let library = test.library
        let assets = try ObservationWriterRoundTests.makeAssets(test, 30)
        let result = try library.fetchAssets(options: ObservationHandOffTests.byDate)
        let start = try library.currentChangeToken.sequence
        try library.performChangesAndWait { AssetChangeRequest(for: assets[3]).creationDate = .utc(2031, 1, 1) }
        try library.performChangesAndWait { AssetChangeRequest(for: assets[9]).isFavorite = true }
        try library.performChangesAndWait { AssetChangeRequest(for: assets[20]).creationDate = .utc(2001, 1, 1) }

        let memory = try Self.memoryJournal(library, after: start)
        let read = try library.storage.read { db in ObservationHandOffTests.describe(try RoundJournal(after: start, db)) }
        #expect(memory.journal == read)
        let before = Self.roundsInMemory(library)
        let changes = try library.observation.readChanges(after: start)
        #expect(Self.roundsInMemory(library) == before + 1)
        #expect(changes.map(\.changeToken.sequence) == [start + 1, start + 2, start + 3])
        let details = try #require(changes.last?.changeDetails(for: result))
        #expect(details.fetchResultAfterChanges.keys == (try library.fetchAssets(options: ObservationHandOffTests.byDate)).keys)
        #expect(apply(details) == details.fetchResultAfterChanges.keys)
        #expect(details.changedIndexes.count == 3)

        // Nothing since: an empty round, from memory too.
        #expect(try Self.memoryJournal(library, after: start + 3).empty)
        #expect(try library.observation.readChanges(after: start + 3).isEmpty)
    }

    /// A round of this handle's own commits needs neither a connection nor the writer: it is read while another
    /// write holds the writer, and what it reads is the journal's.
    @Test func aRoundFromMemoryDoesNotWaitForTheWriter() throws {
        let test = try TestLibrary(paths: .fast)
        let library = test.library
        let assets = try ObservationWriterRoundTests.makeAssets(test, 10)
        let result = try library.fetchAssets(options: ObservationHandOffTests.byDate)
        let start = try library.currentChangeToken.sequence
        try library.performChangesAndWait { AssetChangeRequest(for: assets[4]).creationDate = .utc(2031, 1, 1) }
        #expect(library.observation.handOff.currentWALHeader() == (try library.storage.writeWithoutTransaction { db in
            WALIndexHeader.current(of: try #require(db.sqliteDatabase?.sqliteConnection))
        }))

        // Another write holds the writer until the round is read, or for 10 s.
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread { _ = try? library.storage.writeWithoutTransaction { _ in holding.signal(); release.wait() } }.start()
        holding.wait()
        let round = RoundOnAnotherThread(library, after: start)
        let inTime = round.done.wait(timeout: .now() + 10) == .success
        release.signal()
        if !inTime { round.done.wait() }
        #expect(inTime, "the round waited for the writer")
        let details = try #require(round.changes?.last?.changeDetails(for: result))
        #expect(details.fetchResultAfterChanges.keys == (try library.fetchAssets(options: ObservationHandOffTests.byDate)).keys)
        #expect(apply(details) == details.fetchResultAfterChanges.keys)
    }

    /// A round read on another thread.
    final class RoundOnAnotherThread: Sendable {
        private let read = Mutex<[Change]?>(nil)
        let done = DispatchSemaphore(value: 0)
        var changes: [Change]? { read.withLock { $0 } }

        init(_ library: PhotoLibrary, after start: Int64) {
            Thread { [self] in
                let changes = try? library.observation.readChanges(after: start)
                read.withLock { $0 = changes }
                done.signal()
            }.start()
        }
    }

    /// Rounds read from memory while this handle commits on another thread, at random moments (a memory round
    /// doesn't hold the writer, so nothing orders the two): each round follows the last without a gap or a
    /// repeat, its details lead to the keys it says, and the last leads to what fetching again gives.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func roundsFromMemoryRacingTheHandlesCommits(seed: UInt64) throws {
        let test = try TestLibrary(paths: .fast)
        let library = test.library
        let assets = try ObservationWriterRoundTests.makeAssets(test, 40)
        var result = try library.fetchAssets(options: ObservationHandOffTests.byDate)
        var delivered = try library.currentChangeToken.sequence
        let inMemoryBefore = Self.roundsInMemory(library)
        let committed = DispatchSemaphore(value: 0)
        Thread {
            var g = RandomSource(seed: seed)
            for _ in 0..<60 {
                let asset = assets[g.int(in: 0...39)]
                let year = 2000 + g.int(in: 0...30)
                try? library.performChangesAndWait {
                    let request = AssetChangeRequest(for: asset)
                    request.creationDate = .utc(year, 1, 1)
                    request.isFavorite.toggle()
                }
                usleep(UInt32(g.int(in: 0...500)))
            }
            committed.signal()
        }.start()
        func readRound() throws {
            let changes = try library.observation.readChanges(after: delivered)
            guard let last = changes.last else { return }
            #expect(changes.map(\.changeToken.sequence) == Array((delivered + 1)...last.changeToken.sequence), "seed \(seed)")
            if let details = last.changeDetails(for: result) {
                #expect(apply(details) == details.fetchResultAfterChanges.keys, "seed \(seed)")
                result = details.fetchResultAfterChanges
            }
            delivered = last.changeToken.sequence
        }
        while committed.wait(timeout: .now()) == .timedOut { try readRound() }
        try readRound()
        #expect(delivered == (try library.currentChangeToken.sequence))
        #expect(result.keys == (try library.fetchAssets(options: ObservationHandOffTests.byDate)).keys, "seed \(seed)")
        #expect(Self.roundsInMemory(library) > inMemoryBefore, "seed \(seed): no round was read from memory")
    }

    /// Another process commits after this handle: the header the handle's commit left is gone, so the round
    /// reads the journal, and delivers the other process's transaction with its own.
    @Test func aCommitByAnotherProcessSinceTheHandlesCommitIsRead() async throws {
        let test = try TestLibrary(paths: .fast)
        let library = test.library
        let assets = try ObservationWriterRoundTests.makeAssets(test, 10)
        let start = try library.currentChangeToken.sequence
        try library.performChangesAndWait { AssetChangeRequest(for: assets[1]).isFavorite = true }
        #expect(try Self.memoryJournal(library, after: start).journal != nil)
        let writer = try CrossProcessTests.startWriter([library.url.path, "commit", "1"], output: Pipe())
        #expect(await writer.exitStatus() == 0)

        #expect(try Self.memoryJournal(library, after: start).journal == nil)
        let before = Self.roundsInMemory(library)
        let changes = try library.observation.readChanges(after: start)
        #expect(changes.map(\.changeToken.sequence) == [start + 1, start + 2])
        #expect(changes.map(\.author).last == "writer")
        #expect(Self.roundsInMemory(library) == before)
    }

    /// For random commits by this handle and another, client writes, retention inside commits and expiry
    /// between them: whenever memory admits a round, it is the journal's, byte for byte; memory says "nothing
    /// since" only when the journal has nothing after the start; and the delivered details are those of
    /// fetching again.
    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func aRoundFromMemoryIsAlwaysTheJournals(seed: UInt64) throws {
        let test = try TestLibrary(paths: .fast)
        let library = test.library
        let other = try test.openAnother()
        var g = RandomSource(seed: seed)
        _ = try test.makeAssets(30) { index, request in request.creationDate = .utc(2020, 1, 1).addingTimeInterval(Double(index % 7) * 86_400) }
        // Retention applied by the commits themselves: the floor rises inside handed-off commits.
        try library.setRetentionPolicy(RetentionPolicy(maximumAge: 365 * 86_400, maximumTransactions: 12))
        var starts = [try library.currentChangeToken.sequence]
        var result = try library.fetchAssets(options: ObservationHandOffTests.byDate)
        var admitted = 0
        for _ in 0..<40 {
            let start = try library.currentChangeToken.sequence
            switch g.int(in: 0...9) {
            case 0: try other.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "other") }
            case 1: try library.setRetentionPolicy(RetentionPolicy(maximumAge: 365 * 86_400, maximumTransactions: g.int(in: 4...12)))
            case 2: _ = try library.fetchPersistentChanges(since: library.historyStatus().oldestValidToken)  // A read: nothing changes.
            default:
                do { try ObservationHandOffTests.performBlock(on: library, &g) } catch is PhotoLibraryError { continue }
            }
            starts.append(start)
            for start in starts.suffix(8) {
                let memory = try Self.memoryJournal(library, after: start)
                let read = try library.storage.read { db in try RoundJournal(after: start, db) }
                if let journal = memory.journal {
                    admitted += 1
                    #expect(journal == ObservationHandOffTests.describe(read), "seed \(seed) after \(start)")
                }
                if memory.empty { #expect(read == nil, "seed \(seed) after \(start)") }
            }
            let change = try library.observation.readChanges(after: start).last
            if let details = change?.changeDetails(for: result) {
                #expect(details.fetchResultAfterChanges.keys == (try library.fetchAssets(options: ObservationHandOffTests.byDate)).keys)
                #expect(apply(details) == details.fetchResultAfterChanges.keys)
                result = details.fetchResultAfterChanges
            }
        }
        // The comparison compared something.
        #expect(admitted > 20, "seed \(seed): \(admitted) rounds admitted from memory")
    }
}
