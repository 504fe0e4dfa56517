import Foundation
import LibraryTestSupport
import PostgresTestSupport
import SeededRandom
import Synchronization
import Testing
@testable import PhotoLibrary

/// Commit hints through PostgreSQL's `LISTEN`/`NOTIFY`: handles that share only the database (each its own
/// directory, as on two machines, so the notification file can't wake them) and never re-check by themselves
/// (`commitPollInterval` nil), so that only the hints can wake their waiters. Waiters and writers run on
/// queues of their own: the cooperative pool, which other tests keep busy, can't hold them up.
@Suite struct PostgresCommitWakeTests {
    /// A library on PostgreSQL, and another handle on its database with a directory of its own: another
    /// machine, with its own engine, connections and notifier.
    struct TwoMachines {
        let test: TestLibrary
        let elsewhere = TemporaryDirectory()
        let other: PhotoLibrary
        let database: URL

        init() throws {
            test = try TestLibrary(paths: .postgres, options: .notificationsOnly)
            database = try #require(test.postgres)
            other = try Self.open(database, in: elsewhere)
        }

        static func open(_ database: URL, in directory: TemporaryDirectory) throws -> PhotoLibrary {
            try PhotoLibrary(
                postgres: database, directory: directory.url.appending(path: "Library.photosync"), options: .notificationsOnly)
        }

        /// The backends of the database's commit listeners.
        func listeners() throws -> [Int] {
            try PostgresCluster.shared().runSQL(
                """
                SELECT pid FROM pg_stat_activity
                WHERE datname = '\(database.lastPathComponent)' AND application_name = 'photosync listener'
                """
            ).split(separator: "\n").compactMap { Int($0) }
        }

        /// Terminates the database's commit listeners' backends (what a server restart or an administrator
        /// does to them); the ones it terminated.
        func killListeners() throws -> [Int] {
            let killed = try listeners()
            for pid in killed { try PostgresCluster.shared().runSQL("SELECT pg_terminate_backend(\(pid))") }
            return killed
        }
    }

    /// The last sequence number waiters must see, once known.
    final class LastSequence: Sendable {
        let value = Mutex<Int64?>(nil)
    }

    /// Waits for a change after `token`: whether a notification woke the wait before its 120 s timed out.
    /// (After its timeout `waitForChanges` checks once more, and would find a commit that never woke it.)
    static func wakes(_ library: PhotoLibrary, after token: ChangeToken) async throws -> Bool {
        let timeout = Duration.seconds(120)
        let deadline = ContinuousClock.now.advanced(by: timeout)
        let found = try await library.waitForChanges(after: token, timeout: timeout)
        return found && ContinuousClock.now < deadline
    }

    /// Commits one album through `library`.
    static func commit(_ library: PhotoLibrary, _ title: String = "album") async throws {
        try await library.performChanges { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title) }
    }

    @Test("A commit through one machine wakes the other's waiter and its observers")
    func aCommitWakesTheOtherMachine() async throws {
        try await withTaskExecutorPreference(QueueExecutor()) {
            let machines = try TwoMachines()
            let other = machines.other
            let observer = RecordingObserver()
            try other.register(observer)
            let token = try other.currentChangeToken
            let waiter = Task(executorPreference: QueueExecutor()) { try await Self.wakes(other, after: token) }
            #expect(await waitUntil { other.notifier.waiterCount == 1 }, "the waiter never suspended")
            try await Self.commit(machines.test.library)
            #expect(try await waiter.value, "the commit never woke the other machine's waiter")
            let committed = try machines.test.library.currentChangeToken
            // Deliveries run on the cooperative pool, which other tests can hold for minutes in a loaded full run.
            #expect(await waitUntil(timeout: .seconds(240)) { observer.changes.withLock { $0.map(\.changeToken) } == [committed] })
        }
    }

    @Test("A block that only changes a client's state (clientStateDidChange) wakes the other machine's waitForClientState")
    func clientStateWakesTheOtherMachine() async throws {
        try await withTaskExecutorPreference(QueueExecutor()) {
            let machines = try TwoMachines()
            try machines.test.library.attach(ClientSchemaTests.schema1)
            try machines.test.makeAssets(1)
            let other = machines.other
            let waiter = Task(executorPreference: QueueExecutor()) { () throws -> Bool in
                let deadline = ContinuousClock.now.advanced(by: .seconds(120))
                let found = try await other.waitForClientState(timeout: .seconds(120)) { db in
                    try db.fetchValue(Bool.self, sql: "SELECT EXISTS (SELECT 1 FROM test_tag WHERE tag = 'signal')") ?? false
                }
                return found && ContinuousClock.now < deadline
            }
            #expect(await waitUntil { other.notifier.waiterCount == 1 }, "the waiter never suspended")
            let token = try machines.test.library.currentChangeToken
            try await machines.test.library.performChanges(author: "tests") {
                let transaction = LibraryTransaction.current
                transaction.enqueue { db in try db.execute(sql: "INSERT INTO test_tag SELECT id, 'signal' FROM asset") }
                transaction.clientStateDidChange()
            }
            #expect(try machines.test.library.currentChangeToken == token, "the block journaled something")
            #expect(try await waiter.value, "the client's write never woke the other machine's waiter")
        }
    }

    @Test("A listener whose backend is killed comes back, signals once back, and later commits wake again")
    func aKilledListenerComesBack() async throws {
        try await withTaskExecutorPreference(QueueExecutor()) {
            let machines = try TwoMachines()
            let other = machines.other
            _ = other.notifier.generation  // Starts the subscription.
            #expect(try await waitUntil { try machines.listeners().count == 1 }, "no listener in pg_stat_activity")
            // Killed: the subscription connects again and signals, with no commit made.
            let generation = other.notifier.generation
            let killed = try machines.killListeners()
            #expect(await waitUntil { other.notifier.generation > generation }, "no signal after connecting again")
            #expect(try await waitUntil { try Set(machines.listeners()).count == 1 && Set(machines.listeners()).isDisjoint(with: killed) })
            // Back in place: a commit wakes the waiter.
            let token = try other.currentChangeToken
            let waiter = Task(executorPreference: QueueExecutor()) { try await Self.wakes(other, after: token) }
            #expect(await waitUntil { other.notifier.waiterCount == 1 })
            try await Self.commit(machines.test.library)
            #expect(try await waiter.value, "a commit after the listener came back never woke the waiter")
            // Killed again while a waiter waits, and a commit at once, while no one listens: the signal after
            // connecting again wakes the waiter, which finds the commit.
            let later = try other.currentChangeToken
            let laterWaiter = Task(executorPreference: QueueExecutor()) { try await Self.wakes(other, after: later) }
            #expect(await waitUntil { other.notifier.waiterCount == 1 })
            _ = try machines.killListeners()
            try await Self.commit(machines.test.library)
            #expect(try await laterWaiter.value, "a commit made while the listener was away never woke the waiter")
        }
    }

    @Test("Waiters and an observer racing commits with random delays see every commit", arguments: [7, 8] as [UInt64])
    func waitersRacingCommitsMissNone(seed: UInt64) async throws {
        try await withTaskExecutorPreference(QueueExecutor()) {
            let machines = try TwoMachines()
            let other = machines.other
            let observer = RecordingObserver()
            try other.register(observer)
            let start = try other.currentChangeToken
            let last = LastSequence()
            // Each waiter waits, wakes, reads the current token, pauses at random, waits again — until it has seen
            // the last racing commit (a final one wakes those that wait for more). A waiter that missed a wake-up
            // would wait out its 120 s and fail.
            let waiters = (0..<4).map { index in
                Task(executorPreference: QueueExecutor()) { () throws -> Int in
                    var random = RandomSource(seed: seed &* 31 &+ UInt64(index))
                    var token = start
                    var wakes = 0
                    while last.value.withLock({ $0 }).map({ token.sequence < $0 }) ?? true {
                        if try await !Self.wakes(other, after: token) { return -1 }
                        wakes += 1
                        token = try other.currentChangeToken
                        try await Task.sleep(for: .microseconds(random.int(in: 0...3000)))
                    }
                    return wakes
                }
            }
            let library = machines.test.library
            try await Task(executorPreference: QueueExecutor()) {
                var random = RandomSource(seed: seed)
                for index in 0..<30 {
                    try await Task.sleep(for: .microseconds(random.int(in: 0...5000)))
                    try await Self.commit(library, "race \(index)")
                }
                let racing = try library.currentChangeToken.sequence
                last.value.withLock { $0 = racing }
                try await Self.commit(library, "end")
            }.value
            let committed = Array(try machines.test.library.fetchPersistentChanges(since: start)).map(\.changeToken)
            for waiter in waiters { #expect(try await waiter.value > 0, "a waiter missed a commit") }
            // Deliveries run on the cooperative pool, which other tests can hold for minutes in a loaded full run.
            #expect(await waitUntil(timeout: .seconds(240)) { observer.changes.withLock { $0.count } >= committed.count })
            #expect(observer.changes.withLock { $0.map(\.changeToken) } == committed)
        }
    }

    @Test("A new handle's first wait misses no commit made while its subscription starts", arguments: [11] as [UInt64])
    func aFirstWaitMissesNoCommit(seed: UInt64) async throws {
        try await withTaskExecutorPreference(QueueExecutor()) {
            let machines = try TwoMachines()
            try await Self.firstWaits(seed: seed, writer: machines.test.library) { directory in
                try TwoMachines.open(machines.database, in: directory)
            }
        }
    }

    /// Rounds of: a new handle (`open`), its first wait, and a commit through `writer` at a random instant
    /// around it — while the handle's watch is starting, between its check and its wait, or later. Every
    /// wait must wake.
    static func firstWaits(
        seed: UInt64, writer library: PhotoLibrary, open: (TemporaryDirectory) throws -> PhotoLibrary
    ) async throws {
        var random = RandomSource(seed: seed)
        for round in 0..<8 {
            let directory = TemporaryDirectory()
            let fresh = try open(directory)
            let token = try fresh.currentChangeToken
            let delay = Duration.microseconds(random.int(in: 0...20_000))
            let commit = Task(executorPreference: QueueExecutor()) {
                try await Task.sleep(for: delay)
                try await Self.commit(library, "round \(round)")
            }
            let began = Date()
            let woke = try await Task(executorPreference: QueueExecutor()) { try await Self.wakes(fresh, after: token) }.value
            try await commit.value
            let committed = try #require(Array(try fresh.fetchPersistentChanges(since: token)).first?.date)
            #expect(woke, "round \(round): committed \(committed.timeIntervalSince(began)) s after the wait began")
        }
    }

    @Test("Releasing a library stops its listener")
    func releasingALibraryStopsItsListener() async throws {
        try await withTaskExecutorPreference(QueueExecutor()) {
            let machines = try TwoMachines()
            _ = machines.other.notifier.generation
            _ = machines.test.library.notifier.generation
            #expect(try await waitUntil { try machines.listeners().count == 2 })
            var third: PhotoLibrary? = try TwoMachines.open(machines.database, in: TemporaryDirectory())
            _ = third?.notifier.generation
            #expect(try await waitUntil { try machines.listeners().count == 3 })
            third = nil
            #expect(try await waitUntil { try machines.listeners().count == 2 }, "the released library's listener lives on")
        }
    }
}
