import SeededRandom
import Foundation
import LibraryTestSupport
import Testing
@testable import PhotoLibrary

@Suite struct ChangeHistoryTests {
    @Test(arguments: StoragePaths.allCases) func tokensRoundTripAndRejectGarbage(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.makeAssets(1)
        let token = try test.library.currentChangeToken
        #expect(try ChangeToken(string: token.stringValue) == token)
        #expect(try ChangeToken(data: token.data) == token)
        #expect(token.stringValue.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        let json = try JSONEncoder().encode([token])
        #expect(try JSONDecoder().decode([ChangeToken].self, from: json) == [token])
        var generator = SplitMix64(seed: 99)
        for length in [0, 1, 5, 40, 41, 42, 100, 10_000] {
            for _ in 0..<50 {
                let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                #expect(throws: PhotoLibraryError.self) { try ChangeToken(data: Data(bytes)) }
                let text = String(decoding: bytes, as: UTF8.self)
                #expect(throws: PhotoLibraryError.self) { try ChangeToken(string: text) }
            }
        }
        // A single flipped bit is caught by the checksum.
        var flipped = [UInt8](token.data)
        flipped[25] ^= 0x10
        #expect(throws: PhotoLibraryError.self) { try ChangeToken(data: Data(flipped)) }
    }

    @Test(arguments: StoragePaths.allCases) func eachTransactionIsOneChangeWithNetDetails(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let start = try test.library.currentChangeToken
        let assets = try test.makeAssets(3, author: "importer")
        try test.library.performChangesAndWait(author: "editor") {
            AssetChangeRequest(for: assets[0]).isFavorite = true
            AssetChangeRequest.deleteAssets([assets[1]])
            let created = AssetChangeRequest.creationRequestForAsset(fromFileAt: test.directory.file("n.jpg", seed: 77), options: .init(storage: .referenced))
            created.isFavorite = true  // insert + update = insert
        }
        let changes = Array(try test.library.fetchPersistentChanges(since: start))
        #expect(changes.map(\.author) == ["importer", "editor"])
        let first = try changes[0].changeDetails(for: .asset)
        #expect(first.insertedLocalIdentifiers == Set(assets.map(\.localIdentifier)))
        let second = try changes[1].changeDetails(for: .asset)
        #expect(second.updatedLocalIdentifiers == [assets[0].localIdentifier])
        #expect(second.deletedLocalIdentifiers == [assets[1].localIdentifier])
        #expect(second.insertedLocalIdentifiers.count == 1)
        // Derived collections: favorites and the user library changed membership.
        let favorites = try #require(try test.library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).firstObject)
        #expect(try changes[1].changeDetails(for: .assetCollection).updatedLocalIdentifiers.contains(favorites.localIdentifier))
        #expect(changes.last?.changeToken == (try test.library.currentChangeToken))
        // Resuming from the first change's token gives the second only.
        #expect(Array(try test.library.fetchPersistentChanges(since: changes[0].changeToken)).map(\.author) == ["editor"])
    }

    @Test(arguments: StoragePaths.allCases) func insertThenDeleteInOneBlockIsNothing(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let start = try test.library.currentChangeToken
        try test.library.performChangesAndWait {
            let request = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Gone")
            _ = request
        }
        let album = try #require(try test.library.fetchAssetCollections(with: .album).firstObject)
        let afterCreate = try test.library.currentChangeToken
        try test.library.performChangesAndWait { AssetCollectionChangeRequest.deleteAssetCollections([album]) }
        let coalesced = Array(try test.library.fetchPersistentChanges(since: start, options: .init(coalesced: true)))
        #expect(coalesced.isEmpty)
        let plain = Array(try test.library.fetchPersistentChanges(since: afterCreate))
        #expect(try plain.map { try $0.changeDetails(for: .assetCollection).deletedLocalIdentifiers } == [[album.localIdentifier]])
    }

    @Test(arguments: StoragePaths.allCases) func updatesThatChangeNothingAreNotJournaled(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let asset = try test.makeAssets(1) { _, request in request.isFavorite = true }[0]
        let token = try test.library.currentChangeToken
        try test.library.performChangesAndWait {
            AssetChangeRequest(for: asset).isFavorite = true
            AssetChangeRequest(for: asset).isHidden = true
            AssetChangeRequest(for: asset).isHidden = false
        }
        #expect(try test.library.currentChangeToken == token)
        #expect(Array(try test.library.fetchPersistentChanges(since: token)).isEmpty)
    }

    @Test(arguments: StoragePaths.allCases) func limitAuthorsAndEndToken(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let start = try test.library.currentChangeToken
        for index in 0..<5 {
            try test.library.performChangesAndWait(author: index.isMultiple(of: 2) ? "me" : "them") {
                _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "A\(index)")
            }
        }
        let limited = try test.library.fetchPersistentChanges(since: start, options: .init(limit: 2))
        #expect(Array(limited).count == 2)
        #expect(limited.hasMore)
        let rest = try test.library.fetchPersistentChanges(since: limited.endToken)
        #expect(Array(rest).count == 3)
        #expect(!rest.hasMore)
        #expect(rest.endToken == (try test.library.currentChangeToken))
        let others = try test.library.fetchPersistentChanges(since: start, options: .init(excludedAuthors: ["me"]))
        #expect(Array(others).map(\.author) == ["them", "them"])
        #expect(others.endToken == (try test.library.currentChangeToken))
    }

    @Test(arguments: StoragePaths.allCases) func tokenErrorsAreDistinct(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let other = try TestLibrary(paths: paths)
        try test.makeAssets(2)
        let foreign = try other.library.currentChangeToken
        #expect(throws: PhotoLibraryError.changeTokenFromAnotherLibrary(tokenLibrary: other.library.identity, library: test.library.identity)) {
            try test.library.fetchPersistentChanges(since: foreign)
        }
        let current = try test.library.currentChangeToken
        let ahead = ChangeToken(libraryIdentity: test.library.identity, sequence: current.sequence + 5, stamp: 0)
        #expect(throws: PhotoLibraryError.changeTokenAheadOfLibrary(tokenSequence: current.sequence + 5, currentSequence: current.sequence)) {
            try test.library.fetchPersistentChanges(since: ahead)
        }
        #expect(PhotoLibraryError.persistentChangeTokenExpired(oldestValidToken: current).code == 3105)
        #expect(PhotoLibraryError.persistentChangeDetailsUnavailable.code == 3210)
    }

    @Test("requiresResync is true exactly for the token errors (3105, 9101–9103), as real calls throw them", arguments: StoragePaths.allCases)
    func requiresResyncNamesTheTokenErrors(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let other = try TestLibrary(paths: paths)
        let start = try test.library.currentChangeToken
        try test.makeAssets(3)
        let current = try test.library.currentChangeToken
        var thrown: [PhotoLibraryError] = []
        func collect(_ body: () throws -> Void) {
            do { try body() } catch { thrown.append(error as? PhotoLibraryError ?? .database(code: 0, message: "\(error)")) }
        }
        collect { _ = try test.library.fetchPersistentChanges(since: try other.library.currentChangeToken) }  // 9101
        collect {
            _ = try test.library.fetchPersistentChanges(
                since: ChangeToken(libraryIdentity: test.library.identity, sequence: current.sequence + 1, stamp: 0))
        }  // 9102
        collect { _ = try ChangeToken(string: "not a token") }  // 9103
        try test.library.expireHistory(before: current)
        collect { _ = try test.library.fetchPersistentChanges(since: start) }  // 3105
        #expect(thrown.map(\.code) == [9101, 9102, 9103, 3105])
        #expect(thrown.map(\.requiresResync) == [true, true, true, true])

        // Every other error is not cured by a resync.
        let others: [PhotoLibraryError] = [
            .notALibrary(path: "p", reason: "r"), .corruptLibrary(path: "p", reason: "r"), .schemaTooNew(found: 9, supported: 3),
            .storageUnavailable(path: "p", reason: "r"), .objectNotFound(localIdentifier: "x"),
            .indexOutOfRange(index: 1, count: 0), .duplicateMembership(assetIdentifier: "a", collectionIdentifier: "c"),
            .cyclicCollectionList(localIdentifier: "a", parentIdentifier: "b"), .invalidRequest("r"),
            .invalidValue(property: "p", reason: "r"), .notInChangeBlock, .fileUnreadable(path: "p", reason: "r"),
            .notEnoughSpace, .duplicateIdentifier(index: 1, inBefore: true), .invalidPredicate(message: "m", position: nil),
            .persistentChangeDetailsUnavailable, .database(code: 1, message: "m"),
        ]
        for error in others { #expect(!error.requiresResync, "\(error)") }
        #expect(Set(others.map(\.code)).isDisjoint(with: [3105, 9101, 9102, 9103]))
    }

    // A backup copied as files: SQLite's.
    @Test(arguments: StoragePaths.sqlite) func aLibraryRestoredFromAnOlderBackupRefusesNewerTokens(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.makeAssets(1)
        let backup = test.directory.url.appending(path: "Backup.photosync")
        try FileManager.default.copyItem(at: test.library.url, to: backup)
        try test.makeAssets(1)
        let newer = try test.library.currentChangeToken
        let restored = try PhotoLibrary(url: backup, options: paths.options())
        #expect {
            try restored.fetchPersistentChanges(since: newer)
        } throws: { error in
            guard case PhotoLibraryError.changeTokenAheadOfLibrary = error else { return false }
            return true
        }
        // Even once the restored library has moved past that sequence number with other changes.
        try restored.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x") }
        try restored.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "y") }
        #expect {
            try restored.fetchPersistentChanges(since: newer)
        } throws: { error in
            guard case PhotoLibraryError.changeTokenAheadOfLibrary = error else { return false }
            return true
        }
    }

    @Test(arguments: StoragePaths.allCases) func explicitExpiryByTokenAndDate(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let start = try test.library.currentChangeToken
        try test.makeAssets(1)
        let middle = try test.library.currentChangeToken
        try test.makeAssets(1)
        try test.library.expireHistory(before: middle)
        #expect(throws: PhotoLibraryError.persistentChangeTokenExpired(oldestValidToken: middle)) {
            try test.library.fetchPersistentChanges(since: start)
        }
        #expect(Array(try test.library.fetchPersistentChanges(since: middle)).count == 1)
        try test.library.expireHistory(before: Date().addingTimeInterval(60))
        let status = try test.library.historyStatus()
        #expect(status.transactionCount == 0)
        #expect(status.oldestValidToken == status.currentToken)
        #expect(Array(try test.library.fetchPersistentChanges(since: status.currentToken)).isEmpty)
        // Sequence numbers are never reused after expiry.
        try test.makeAssets(1)
        #expect(try test.library.currentChangeToken.sequence == status.currentToken.sequence + 1)
    }

    @Test(arguments: StoragePaths.allCases) func retentionByCountIsAppliedAutomatically(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths, options: PhotoLibrary.Options(retention: RetentionPolicy(maximumAge: 86_400, maximumTransactions: 10)))
        let start = try test.library.currentChangeToken
        for index in 0..<130 {
            try test.library.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "\(index)") }
        }
        let status = try test.library.historyStatus()
        #expect(status.transactionCount <= 10 + 64)
        #expect(status.oldestValidToken.sequence > 0)
        #expect {
            try test.library.fetchPersistentChanges(since: start)
        } throws: { error in
            guard case PhotoLibraryError.persistentChangeTokenExpired(let oldest) = error else { return false }
            return oldest == status.oldestValidToken
        }
        let state = try test.library.fetchCurrentState()
        #expect(state.assetCollectionIdentifiers.count == 130 + 8)
        #expect(state.changeToken == status.currentToken)
    }

    @Test(arguments: StoragePaths.allCases) func retentionByAge(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let start = try test.library.currentChangeToken
        try test.makeAssets(1)
        try test.makeAssets(1)
        try test.library.setRetentionPolicy(RetentionPolicy(maximumAge: -1, maximumTransactions: 1_000))
        // Everything is older than "now + 1 s" but the newest transaction is always kept.
        #expect(try test.library.historyStatus().transactionCount == 1)
        #expect(throws: PhotoLibraryError.self) { try test.library.fetchPersistentChanges(since: start) }
    }

    @Test(arguments: StoragePaths.allCases) func aFetchResultIsNotCutShortByExpiry(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let start = try test.library.currentChangeToken
        for _ in 0..<600 {
            try test.library.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x") }
        }
        let result = try test.library.fetchPersistentChanges(since: start)
        var iterator = result.makeIterator()
        #expect(iterator.next() != nil)
        try test.library.expireHistory(before: try test.library.currentChangeToken)
        var count = 1
        while iterator.next() != nil { count += 1 }
        #expect(count == 600)
    }

    @Test("waitForChanges wakes within 500 ms of a commit, through this handle and through another one's notification", arguments: StoragePaths.allCases)
    func waitForChangesWakesOnACommit(paths: StoragePaths) async throws {
        // The test runs on queues of its own: its timing doesn't include waiting for the cooperative pool,
        // which other tests can keep busy for seconds.
        try await withTaskExecutorPreference(QueueExecutor()) {
            let test = try TestLibrary(paths: paths, options: .notificationsOnly)
            let token = try test.library.currentChangeToken
            #expect(try await test.library.waitForChanges(after: token, timeout: .milliseconds(50)) == false)
            // A second handle on the same library takes the path another process takes: the notification file.
            let other = try test.openAnother(options: paths.options(.notificationsOnly))
            for (waiting, committing) in [(test.library, test.library), (other, test.library), (test.library, other)] {
                let start = try waiting.currentChangeToken
                // The waiter on a queue of its own too: the body may block (waiting for the writer to exit).
                let waiter = Task(executorPreference: QueueExecutor()) { () throws -> (woke: Bool, at: ContinuousClock.Instant) in
                    let woke = try await waiting.waitForChanges(after: start, timeout: .seconds(10))
                    return (woke, ContinuousClock.now)
                }
                #expect(await waitUntil { waiting.notifier.waiterCount == 1 }, "the waiter never suspended")
                let committed = ContinuousClock.now
                try await committing.performChanges { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "w") }
                let (woke, at) = try await waiter.value
                #expect(woke)
                #expect(at - committed < .milliseconds(500), "woke \(at - committed) after the commit started")
            }
        }
    }

    @Test("A wait with a far deadline and no re-checks still wakes on a commit (no overflow)", arguments: StoragePaths.allCases)
    func waitWithAFarDeadline(paths: StoragePaths) async throws {
        // On queues of its own, like the test above: a loaded run's cooperative pool can keep a waiter from
        // starting for longer than the test waits for it.
        try await withTaskExecutorPreference(QueueExecutor()) {
            let test = try TestLibrary(paths: paths, options: .notificationsOnly)
            let library = test.library
            let token = try library.currentChangeToken
            let waiter = Task(executorPreference: QueueExecutor()) {
                try await library.waitForChanges(after: token, timeout: .seconds(1_000 * 365 * 86_400))
            }
            #expect(await waitUntil { library.notifier.waiterCount == 1 }, "the waiter never suspended")
            try await library.performChanges { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x") }
            #expect(try await waiter.value)
        }
    }
}
