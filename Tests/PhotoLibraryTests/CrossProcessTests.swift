import SeededRandom
import Foundation
import GRDB
import LibraryTestSupport
import Testing
@testable import PhotoLibrary

/// Tests with a second process: the `LibraryWriter` test executable, built next to the test bundle.
@Suite struct CrossProcessTests {
    static var writerURL: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appending(path: "LibraryWriter")
    }

    /// Starts the writer on the library whose directory is `arguments[0]`; kept in the PostgreSQL database
    /// `postgres` when it isn't nil.
    static func startWriter(_ arguments: [String], output: Pipe, postgres: URL? = nil) throws -> Process {
        let process = Process()
        process.executableURL = writerURL
        process.arguments = arguments
        if let postgres {
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["LIBRARY_WRITER_POSTGRES": postgres.absoluteString]) { $1 }
        }
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return process
    }

    @Test("A waiter in one process wakes within 500 ms of a commit in another, through the notification alone")
    func aWaiterInOneProcessWakesOnACommitInAnother() async throws {
        // The test runs on queues of its own: its timing doesn't include waiting for the cooperative pool,
        // which other tests can keep busy for seconds.
        try await withTaskExecutorPreference(QueueExecutor()) {
            let test = try TestLibrary()
            // The waiting handle never re-checks by itself: only the notification can wake it.
            let library = try PhotoLibrary(url: test.library.url, options: .notificationsOnly)
            let token = try library.currentChangeToken
            // The waiter on a queue of its own too: the body may block (waiting for the writer to exit).
            let waiter = Task(executorPreference: QueueExecutor()) { () throws -> (woke: Bool, at: Date) in
                let woke = try await library.waitForChanges(after: token, timeout: .seconds(10))
                return (woke, Date())
            }
            #expect(await waitUntil { library.notifier.waiterCount == 1 }, "the waiter never suspended")
            let pipe = Pipe()
            let writer = try Self.startWriter([library.url.path, "commit", "1"], output: pipe)
            let (woke, wokeAt) = try await waiter.value
            #expect(woke)
            #expect(await writer.exitStatus() == 0)
            // From the commit (its transaction's date is taken when its block starts) to the wake-up.
            let change = try #require(Array(try library.fetchPersistentChanges(since: token)).first)
            #expect(wokeAt.timeIntervalSince(change.date) < 0.5, "woke \(wokeAt.timeIntervalSince(change.date)) s after the commit")
            #expect(try library.fetchAssetCollections(with: .album).count == 1)
        }
    }

    @Test("On PostgreSQL, a waiter wakes on a commit by another process that shares only the database")
    func aWaiterWakesOnACommitInAnotherProcessThroughPostgres() async throws {
        try await withTaskExecutorPreference(QueueExecutor()) {
            let test = try TestLibrary(paths: .postgres, options: .notificationsOnly)
            let database = try #require(test.postgres)
            let library = test.library
            let token = try library.currentChangeToken
            let waiter = Task(executorPreference: QueueExecutor()) { () throws -> Bool in
                try await PostgresCommitWakeTests.wakes(library, after: token)
            }
            #expect(await waitUntil { library.notifier.waiterCount == 1 }, "the waiter never suspended")
            // Another machine: its own directory, so no notification file in common — only the database.
            let elsewhere = TemporaryDirectory()
            let writer = try Self.startWriter(
                [elsewhere.url.appending(path: "Library.photosync").path, "commit", "1"], output: Pipe(), postgres: database)
            #expect(await writer.exitStatus() == 0)
            #expect(try await waiter.value, "the commit of the other process never woke the waiter")
            #expect(try library.fetchAssetCollections(with: .album).count == 1)
        }
    }

    @Test func killingAWriterMidCommitLeavesAConsistentLibraryAndValidTokens() async throws {
        let test = try TestLibrary()
        let initial = try test.library.fetchCurrentState()
        var handedOut: [ChangeToken] = []
        var source = RandomSource(seed: 2024)
        for round in 0..<8 {
            let before = try test.library.currentChangeToken.sequence
            let pipe = Pipe()
            let writer = try Self.startWriter([test.library.url.path, "commit-loop", "\(round + 1)"], output: pipe)
            // Once the writer is committing (however long it took to start), kill it at a random instant of its
            // loop: the random delay is the point of the test, not a wait for something.
            #expect(try await waitUntil { try test.library.currentChangeToken.sequence > before }, "the writer never committed")
            try await Task.sleep(for: .milliseconds(source.int(in: 0...400)))
            kill(writer.processIdentifier, SIGKILL)
            _ = await writer.exitStatus()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            for line in output.split(separator: "\n") {
                // The last line may be cut by the kill; only whole tokens count.
                if let token = try? ChangeToken(string: String(line)) { handedOut.append(token) }
            }
        }
        #expect(handedOut.count > 8, "the writer committed too little to test anything")
        let library = try PhotoLibrary(url: test.library.url)
        // The database is intact.
        let (integrity, foreignKeyViolations) = try await library.database.read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"), try Row.fetchAll(db, sql: "PRAGMA foreign_key_check").count)
        }
        #expect(integrity == "ok")
        #expect(foreignKeyViolations == 0)
        // Every record of an update or a deletion holds the object's previous values, whole (binary or JSON).
        let (records, unreadable) = try await library.database.read { db in
            let rows = try Row.fetchAll(db, sql: "SELECT objectType, objectId, previousValues FROM change_record WHERE kind IN (2, 3)")
            return (rows.count, rows.filter { row in
                let id: Int64 = row["objectId"]
                guard let data: Data = row["previousValues"] else { return true }
                switch ObjectType(rawValue: row["objectType"]) {
                case .asset: return PreviousValues.decode(AssetRow.self, from: data)?.id != id
                case .assetCollection: return PreviousValues.decode(AssetCollectionRow.self, from: data)?.id != id
                case .collectionList: return PreviousValues.decode(CollectionListRow.self, from: data)?.id != id
                case nil: return true
                }
            }.count)
        }
        #expect(records > 0 && unreadable == 0, "\(unreadable) of \(records) records of updates and deletions unreadable")
        // Every token handed out is still valid, and they are ordered.
        #expect(handedOut.map(\.sequence) == handedOut.map(\.sequence).sorted())
        for token in handedOut {
            _ = try library.fetchPersistentChanges(since: token)
        }
        // No change without its journal record, no record without its change: the journal replays to the state.
        let sets = try ModelBasedHistoryTests.replay(try library.fetchPersistentChanges(since: initial.changeToken), onto: initial)
        let final = try library.fetchCurrentState()
        for type in ObjectType.allCases { #expect(sets[type] == final.identifiers(of: type), "\(type)") }
        // Sequence numbers go on from where they were.
        try library.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "after") }
        #expect(try library.currentChangeToken.sequence > (handedOut.last?.sequence ?? 0))
    }
}
