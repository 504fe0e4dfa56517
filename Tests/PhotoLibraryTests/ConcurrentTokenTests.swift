import Foundation
import SeededRandom
import Synchronization
import Testing
@testable import PhotoLibrary

/// Change tokens under concurrent writers, through the library: several handles on one library (separate
/// connections; on PostgreSQL, what separate machines open) commit with random delays while readers poll
/// ``PhotoLibrary/fetchPersistentChanges(since:options:)`` from their last token.
///
/// On PostgreSQL a journal number is drawn when the transaction row is inserted, not when it commits: without
/// the engine's writer lock a later number can commit first, a reader that reads it moves its token past the
/// earlier one, and never sees it. This test catches that (remove the advisory lock from `PostgresEngine.write`
/// and readers miss transactions).
@Suite("Change tokens under concurrent writers")
struct ConcurrentTokenTests {
    static let writers = 4
    static let commitsPerWriter = 30
    static let readers = 3

    /// What one reader saw: each change's sequence number and author, in the order read.
    typealias Seen = [(sequence: Int64, author: String)]

    /// What the test's threads share. Issues are collected here and recorded by the test itself: a thread
    /// of its own is outside the test's task.
    final class Shared: Sendable {
        let writersDone = Atomic<Bool>(false)
        let failures = Mutex<[String]>([])
        let seen = Mutex<[Int: Seen]>([:])

        func fail(_ message: String) { failures.withLock { $0.append(message) } }
    }

    @Test(
        "every reader sees every committed transaction exactly once, in commit order, and its token never goes back",
        arguments: [StoragePaths.fast, .postgres])
    func readersMissNothing(paths: StoragePaths) async throws {
        let seed: UInt64 = 15
        let test = try TestLibrary(paths: paths)
        // Each writer renames an album of its own: no row shared with another writer, so nothing but the
        // engine's writer lock orders their commits.
        try test.library.performChangesAndWait(author: "setup") {
            for writer in 0..<Self.writers {
                _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "w\(writer)")
            }
        }
        let albums = try test.library.fetchAssetCollections(with: .album).map { $0 }.sorted { ($0.localizedTitle ?? "") < ($1.localizedTitle ?? "") }
        let start = try test.library.currentChangeToken
        let writerHandles = try (0..<Self.writers).map { _ in try test.openAnother() }
        let readerHandles = try (0..<Self.readers).map { _ in try test.openAnother() }

        let shared = Shared()
        let writing = DispatchGroup()
        let reading = DispatchGroup()
        for (index, library) in writerHandles.enumerated() {
            let album = albums[index]
            Self.run(writing) {
                do {
                    try Self.write(library, album: album, writer: index, seed: seed)
                } catch {
                    shared.fail("writer \(index): \(error)")
                }
            }
        }
        for (index, library) in readerHandles.enumerated() {
            Self.run(reading) {
                do {
                    let seen = try Self.read(library, from: start, reader: index, seed: seed, shared: shared)
                    shared.seen.withLock { $0[index] = seen }
                } catch {
                    shared.fail("reader \(index): \(error)")
                }
            }
        }
        // The writers end first; the readers then catch up with the head. The readers learn it from the
        // writers' group, not from this task: in a loaded full run the cooperative pool can be held for minutes.
        writing.notify(queue: .global()) { shared.writersDone.store(true, ordering: .releasing) }
        await Self.wait(writing)
        await Self.wait(reading)
        for failure in shared.failures.withLock({ $0 }) { Issue.record("\(failure)") }

        // The oracle: the whole journal since the start, read once everyone is done.
        let journal = Array(try test.library.fetchPersistentChanges(since: start)).map {
            (sequence: $0.changeToken.sequence, author: $0.author)
        }
        #expect(journal.count == Self.writers * Self.commitsPerWriter, "seed \(seed)")
        for writer in 0..<Self.writers {
            let own = journal.map(\.author).filter { $0.hasPrefix("w\(writer)/") }
            #expect(own == (0..<Self.commitsPerWriter).map { "w\(writer)/\($0)" }, "writer \(writer)'s commits in its order")
        }
        let seen = shared.seen.withLock { $0 }
        #expect(seen.count == Self.readers)
        for (reader, changes) in seen.sorted(by: { $0.key < $1.key }) {
            let missed = Set(journal.map(\.sequence)).subtracting(changes.map(\.sequence)).sorted()
            #expect(
                changes.map(\.sequence) == journal.map(\.sequence) && changes.map(\.author) == journal.map(\.author),
                "reader \(reader) saw \(changes.count) of \(journal.count) transactions; missed \(missed) (seed \(seed), \(paths))")
        }
    }

    /// Runs `body` on a thread of its own (the library's calls block their thread: on the cooperative pool,
    /// two cores would run two of them at a time).
    private static func run(_ group: DispatchGroup, _ body: @escaping @Sendable () -> Void) {
        group.enter()
        Thread {
            body()
            group.leave()
        }.start()
    }

    /// Waits for `group` without blocking a thread of the cooperative pool (deliveries of other tests run there).
    private static func wait(_ group: DispatchGroup) async {
        await withCheckedContinuation { continuation in group.notify(queue: .global()) { continuation.resume() } }
    }

    /// One writer: renames its album `commitsPerWriter` times, one block each, with a random pause before
    /// each block and a random amount of work inside it.
    private static func write(_ library: PhotoLibrary, album: AssetCollection, writer: Int, seed: UInt64) throws {
        var random = SplitMix64(seed: seed &* 1_000 &+ UInt64(writer))
        for commit in 0..<commitsPerWriter {
            Thread.sleep(forTimeInterval: Double(random.int(in: 0...3_000)) / 1_000_000)
            try library.performChangesAndWait(author: "w\(writer)/\(commit)") {
                AssetCollectionChangeRequest(for: album).title = "w\(writer) \(commit)"
            }
        }
    }

    /// One reader: polls from its last token, a random small limit each time, until the writers are done and
    /// it has read up to the head (within a minute of their end). Checks as it goes that each change's token comes after the one before and
    /// that the token it stores never goes back.
    private static func read(
        _ library: PhotoLibrary, from start: ChangeToken, reader: Int, seed: UInt64, shared: Shared
    ) throws -> Seen {
        var random = SplitMix64(seed: seed &* 7_919 &+ UInt64(reader))
        var token = start
        var seen: Seen = []
        var deadline: ContinuousClock.Instant?
        while deadline.map({ ContinuousClock.now < $0 }) ?? true {
            let done = shared.writersDone.load(ordering: .acquiring)
            if done && deadline == nil { deadline = ContinuousClock.now.advanced(by: .seconds(60)) }
            let head = done ? try library.currentChangeToken : nil
            let result = try library.fetchPersistentChanges(
                since: token, options: PersistentChangeFetchOptions(limit: random.int(in: 1...8)))
            var changes = result.makeThrowingIterator()
            var read = 0
            while let change = try changes.next() {
                if let last = seen.last, change.changeToken.sequence <= last.sequence {
                    shared.fail("reader \(reader): \(change.changeToken.sequence) after \(last.sequence)")
                }
                seen.append((change.changeToken.sequence, change.author))
                read += 1
            }
            if result.endToken < token {
                shared.fail("reader \(reader): token went back from \(token.sequence) to \(result.endToken.sequence)")
            }
            token = result.endToken
            if let head, token >= head, !result.hasMore { return seen }
            if read == 0 { Thread.sleep(forTimeInterval: Double(random.int(in: 0...1_000)) / 1_000_000) }
        }
        shared.fail("reader \(reader) did not catch up within a minute of the writers' end")
        return seen
    }
}
