import Foundation
import LibraryTestSupport
import Synchronization
import Testing
@testable import PhotoLibrary

/// Applies details UIKit-style to an array: remove removed and moved-from (descending), then insert
/// inserted and moved-to (ascending).
func apply<T>(_ details: ArrayChangeDetails<T>) -> [T] {
    var moves: [(from: Int, to: Int)] = []
    details.enumerateMoves { moves.append(($0, $1)) }
    var result = details.before
    for index in (Array(details.removedIndexes) + moves.map(\.from)).sorted(by: >) { result.remove(at: index) }
    var insertions = Array(details.insertedIndexes).map { ($0, details.after[$0]) }
    insertions += moves.map { ($0.to, details.before[$0.from]) }
    for (index, element) in insertions.sorted(by: { $0.0 < $1.0 }) { result.insert(element, at: index) }
    return result
}

func apply<Object>(_ details: FetchResultChangeDetails<Object>) -> [Int64] {
    var moves: [(from: Int, to: Int)] = []
    details.enumerateMoves { moves.append(($0, $1)) }
    var result = details.fetchResultBeforeChanges.keys
    for index in (Array(details.removedIndexes) + moves.map(\.from)).sorted(by: >) { result.remove(at: index) }
    var insertions = Array(details.insertedIndexes).map { ($0, details.fetchResultAfterChanges.keys[$0]) }
    insertions += moves.map { ($0.to, details.fetchResultBeforeChanges.keys[$0.from]) }
    for (index, key) in insertions.sorted(by: { $0.0 < $1.0 }) { result.insert(key, at: index) }
    return result
}

/// Collects changes delivered to an observer.
final class RecordingObserver: PhotoLibraryChangeObserver {
    let changes = Mutex<[Change]>([])
    func photoLibraryDidChange(_ change: Change) { changes.withLock { $0.append(change) } }
}

/// An actor observer that suspends inside each call: it would see calls overlap if deliveries did.
actor SlowActorObserver: PhotoLibraryChangeObserver {
    private(set) var sequences: [Int64] = []
    private(set) var overlaps = 0
    private var inProgress = false

    func photoLibraryDidChange(_ change: Change) async {
        if inProgress { overlaps += 1 }
        inProgress = true
        // Suspension points: other calls could interleave here. (Each yield waits its turn on the shared pool;
        // on a loaded 2-core machine twenty per call took the 30 deliveries past a 30 s wait.)
        for _ in 0..<5 { await Task.yield() }
        sequences.append(change.changeToken.sequence)
        inProgress = false
    }
}

@Suite struct ObservationTests {
    /// Waits for the stream to deliver the change carrying `token`.
    static func next(_ iterator: inout AsyncStream<Change>.Iterator, through token: ChangeToken) async -> [Change] {
        var received: [Change] = []
        while let change = await iterator.next() {
            received.append(change)
            if change.changeToken.sequence >= token.sequence { break }
        }
        return received
    }

    @Test func pureDetailsFollowTheUIKitContract() throws {
        let details = try ArrayChangeDetails(from: ["a", "b", "c", "d", "e"], to: ["e", "a", "x", "c", "d"], changedObjects: ["c", "x"])
        #expect(Array(details.removedIndexes) == [1])
        #expect(Array(details.insertedIndexes) == [2])
        #expect(Array(details.changedIndexes) == [3])
        var moves: [[Int]] = []
        details.enumerateMoves { moves.append([$0, $1]) }
        #expect(moves == [[4, 0]])
        #expect(apply(details) == details.after)
        #expect(throws: PhotoLibraryError.duplicateIdentifier(index: 2, inBefore: true)) {
            try ArrayChangeDetails(from: ["a", "b", "a"], to: ["a"])
        }
        #expect(try ArrayChangeDetails(from: [Int](), to: Array(0..<10)).insertedIndexes.count == 10)
        let reversed = try ArrayChangeDetails(from: Array(0..<100), to: Array((0..<100).reversed()))
        var count = 0
        reversed.enumerateMoves { _, _ in count += 1 }
        #expect(count == 99)
        #expect(!reversed.hasIncrementalChanges)
    }

    @Test(arguments: StoragePaths.allCases) func anObserverGetsDetailsForItsFetchResult(paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(5) { index, request in request.creationDate = .utc(2024, 1, 1 + index) }
        let before = try test.library.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")]))
        var iterator = try test.library.changes().makeAsyncIterator()
        let observer = RecordingObserver()
        try test.library.register(observer)
        try await test.library.performChanges {
            AssetChangeRequest(for: assets[0]).creationDate = .utc(2024, 2, 1)   // moves to the end
            AssetChangeRequest(for: assets[2]).isFavorite = true                 // changed in place
            AssetChangeRequest.deleteAssets([assets[3]])                         // removed
        }
        let token = try test.library.currentChangeToken
        let received = await Self.next(&iterator, through: token)
        let change = try #require(received.last)
        let details = try #require(change.changeDetails(for: before))
        #expect(Array(details.removedIndexes) == [3])
        var moves: [[Int]] = []
        details.enumerateMoves { moves.append([$0, $1]) }
        #expect(moves == [[0, 3]])
        #expect(details.changedObjects.map(\.localIdentifier).contains(assets[2].localIdentifier))
        #expect(details.changedObjects.map(\.localIdentifier).contains(assets[0].localIdentifier))
        #expect(details.insertedIndexes.isEmpty)
        #expect(apply(details) == details.fetchResultAfterChanges.keys)
        #expect(details.fetchResultAfterChanges.keys == (try test.library.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")]))).keys)
        let favourite = try #require(change.changeDetails(for: assets[2]))
        #expect(favourite.objectAfterChanges?.isFavorite == true)
        #expect(!favourite.objectWasDeleted)
        #expect(change.changeDetails(for: assets[3])?.objectWasDeleted == true)
        #expect(change.changeDetails(for: assets[4]) == nil)
        // The observer saw the same transaction.
        #expect(await waitUntil { observer.changes.withLock { $0.map(\.changeToken) }.contains(token) })
    }

    @Test("An actor observer gets every transaction once, in commit order, one call at a time — from two handles", arguments: StoragePaths.allCases)
    func actorObserver(paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        let other = try test.openAnother()
        let observer = SlowActorObserver()
        try test.library.register(observer)
        let start = try test.library.currentChangeToken
        let library = test.library
        // Commits from this handle and, concurrently, from another (the path another process takes).
        async let mine: Void = {
            for index in 0..<15 {
                try await library.performChanges { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "mine \(index)") }
            }
        }()
        async let theirs: Void = {
            for index in 0..<15 {
                try await other.performChanges { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "theirs \(index)") }
            }
        }()
        _ = try await (mine, theirs)
        let committed = Array(try test.library.fetchPersistentChanges(since: start)).map(\.changeToken.sequence)
        #expect(committed.count == 30)
        // Not a timing test: what counts is every transaction once, in order, one call at a time.
        #expect(await waitUntil(timeout: .seconds(120)) { await observer.sequences.count >= 30 })
        #expect(await observer.sequences == committed)
        #expect(await observer.overlaps == 0)
        // Unregistered, it gets nothing more (the later observer proves that deliveries went on).
        test.library.unregister(observer)
        try await test.library.performChanges { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "after") }
        let log = RecordingObserver()
        try test.library.register(log)
        try await test.library.performChanges { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "seen") }
        let seen = try test.library.currentChangeToken
        #expect(await waitUntil { log.changes.withLock { $0.contains { $0.changeToken == seen } } })
        #expect(await observer.sequences == committed)
    }

    @Test(arguments: StoragePaths.allCases) func unrelatedChangesGiveNoDetails(paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(3) { _, request in request.mediaType = .video }
        let images = try test.library.fetchAssets(with: .image)
        var iterator = try test.library.changes().makeAsyncIterator()
        try await test.library.performChanges { AssetChangeRequest(for: assets[0]).isFavorite = true }
        let change = try #require(await Self.next(&iterator, through: try test.library.currentChangeToken).last)
        #expect(change.changeDetails(for: images) == nil)
    }

    @Test(arguments: [21, 22] as [UInt64], StoragePaths.allCases)
    func detailsOfRandomTransactionsApplyToTheBeforeResult(seed: UInt64, paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        var changes = RandomChanges(seed: seed)
        for _ in 0..<5 { try? changes.performBlock(on: test.library) }
        let options = FetchOptions(predicate: "NOT isFavorite OR creationDate > \"2021-06-01T00:00:00Z\"", sortDescriptors: [FetchSort(key: "creationDate", ascending: false)])
        var current = try test.library.fetchAssets(options: options)
        var albums = try test.library.fetchAssetCollections(with: .album)
        var iterator = try test.library.changes().makeAsyncIterator()
        for _ in 0..<25 {
            do { try changes.performBlock(on: test.library) } catch is PhotoLibraryError { continue }
            let token = try test.library.currentChangeToken
            guard token.sequence > current.sequence else { continue }
            for change in await Self.next(&iterator, through: token) {
                if let details = change.changeDetails(for: current) {
                    #expect(apply(details) == details.fetchResultAfterChanges.keys, "seed \(seed)")
                    #expect(details.insertedIndexes.intersection(details.changedIndexes).isEmpty)
                    #expect(details.fetchResultBeforeChanges.count - details.removedIndexes.count + details.insertedIndexes.count
                        == details.fetchResultAfterChanges.count)
                    current = details.fetchResultAfterChanges
                }
                if let details = change.changeDetails(for: albums) {
                    #expect(apply(details) == details.fetchResultAfterChanges.keys)
                    albums = details.fetchResultAfterChanges
                }
            }
            #expect(current.keys == (try test.library.fetchAssets(options: options)).keys, "seed \(seed)")
            #expect(albums.keys == (try test.library.fetchAssetCollections(with: .album)).keys)
        }
    }

    @Test(arguments: StoragePaths.allCases) func anObserverReceivesCommitsFromAnotherProcess(paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        let albums = try test.library.fetchAssetCollections(with: .album)
        var iterator = try test.library.changes().makeAsyncIterator()
        let pipe = Pipe()
        // On PostgreSQL the writer opens the library's database (it once opened the directory as a SQLite
        // library, failed, and left this test waiting forever for changes that never came).
        let writer = try CrossProcessTests.startWriter([test.library.url.path, "commit", "3"], output: pipe, postgres: test.postgres)
        #expect(await writer.exitStatus() == 0)
        let token = try test.library.currentChangeToken
        try #require(token.sequence > albums.sequence, "the writer committed nothing")
        let received = await Self.next(&iterator, through: token)
        #expect(received.map(\.author).allSatisfy { $0 == "writer" })
        #expect(received.map(\.changeToken.sequence) == received.map(\.changeToken.sequence).sorted())
        var result = albums
        for change in received {
            if let details = change.changeDetails(for: result) { result = details.fetchResultAfterChanges }
        }
        #expect(result.count == 3)
    }
}
