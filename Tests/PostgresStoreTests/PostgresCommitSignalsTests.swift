import Foundation
import LibraryStorage
import PostgresNIO
import PostgresTestSupport
import Synchronization
import Testing
@testable import PostgresStore

/// The PostgreSQL engine's commit hints (`LISTEN`/`NOTIFY`), seen from the engine: what a write publishes,
/// who hears it, and how a subscription survives its connection.
@Suite struct PostgresCommitSignalsTests {
    /// Counts a subscription's signals.
    final class Counter: Sendable {
        let value = Atomic<Int>(0)
        func increment() { value.add(1, ordering: .sequentiallyConsistent) }
        var count: Int { value.load(ordering: .sequentiallyConsistent) }
    }

    /// What a raw listener on the channel receives: every payload, in order.
    final class Payloads: Sendable {
        let received = Mutex<[String]>([])
    }

    struct Deliberate: Error {}

    /// Polls `condition` every millisecond until it holds or `timeout` passes; whether it held.
    static func waitUntil(timeout: Duration = .seconds(30), _ condition: () throws -> Bool) async rethrows -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            if try condition() { return true }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return try condition()
    }

    /// The backends of `database`'s commit listeners.
    static func listeners(_ database: URL) throws -> [Int] {
        try PostgresCluster.shared().runSQL(
            """
            SELECT pid FROM pg_stat_activity
            WHERE datname = '\(database.lastPathComponent)' AND application_name = 'photosync listener'
            """
        ).split(separator: "\n").compactMap { Int($0) }
    }

    /// Publishes a hint in a write of `engine` (rolled back when `rollBack`).
    static func publish(_ engine: PostgresEngine, rollBack: Bool = false) throws {
        try engine.write { db in
            try engine.publishCommitSignal(in: db)
            if rollBack { throw Deliberate() }
        }
    }

    @Test("A write publishes its engine's hint when it commits, and nothing when it rolls back")
    func hintsTravelAtCommitOnly() async throws {
        let url = try PostgresCluster.shared().makeDatabase(prefix: "signals")
        let first = try PostgresEngine(url: url)
        let second = try PostgresEngine(url: url)
        let store = try await PostgresStore.open(url: url)
        let connection = try await store.makeConnection()
        let payloads = Payloads()
        let listening = AsyncStream<Void>.makeStream()
        let listener = Task {
            try await connection.listen(on: PostgresCommitSignals.channel) { notifications in
                listening.continuation.yield()
                for try await notification in notifications {
                    let count = payloads.received.withLock { $0.append(notification.payload); return $0.count }
                    if count == 2 { return }
                }
            }
        }
        for await _ in listening.stream { break }
        try Self.publish(first)
        #expect(throws: Deliberate.self) { try Self.publish(first, rollBack: true) }
        try Self.publish(second)
        try await listener.value
        // In commit order; the rolled back write's would have come between.
        #expect(payloads.received.withLock { $0 } == [first.commitSignals.source, second.commitSignals.source])
        #expect(first.commitSignals.source != second.commitSignals.source)
        try await connection.close()
        await store.close()
        await first.close()
        await second.close()
    }

    @Test("A subscription hears other engines' commits, not its own engine's")
    func aSubscriptionSkipsItsOwnEngine() async throws {
        let url = try PostgresCluster.shared().makeDatabase(prefix: "signals")
        let first = try PostgresEngine(url: url)
        let second = try PostgresEngine(url: url)
        let heardByFirst = Counter()
        let heardBySecond = Counter()
        let firstSubscription = first.subscribeToCommitSignals { heardByFirst.increment() }
        let secondSubscription = second.subscribeToCommitSignals { heardBySecond.increment() }
        try Self.publish(first)
        try Self.publish(first)
        #expect(await Self.waitUntil { heardBySecond.count == 2 })
        // The first engine's own hints reached its listener as fast as the second's: its listener, cut and
        // back, signals once, and had it counted them the count would be past one by then.
        let killed = try Self.listeners(url)
        for pid in killed { try PostgresCluster.shared().runSQL("SELECT pg_terminate_backend(\(pid))") }
        #expect(try await Self.waitUntil { try Set(Self.listeners(url)).count == 2 && Set(Self.listeners(url)).isDisjoint(with: killed) })
        #expect(await Self.waitUntil { heardByFirst.count >= 1 })
        #expect(heardByFirst.count == 1)
        // And a hint of the second engine reaches the first.
        try Self.publish(second)
        #expect(await Self.waitUntil { heardByFirst.count == 2 })
        firstSubscription.cancel()
        secondSubscription.cancel()
        await first.close()
        await second.close()
    }

    @Test("A listener whose server stops answering is found out by its heartbeat, and comes back")
    func aSilentServerIsFoundOut() async throws {
        let url = try PostgresCluster.shared().makeDatabase(prefix: "signals")
        let engine = try PostgresEngine(url: url)
        let signals = Counter()
        let timing = PostgresCommitListener.Timing(heartbeat: .milliseconds(100), heartbeatTimeout: .milliseconds(300))
        let subscription = engine.commitSignals.subscribe(engine.store.configuration, logger: engine.store.logger, timing: timing) {
            signals.increment()
        }
        let stopped = try #require(try Self.listeners(url).first)
        // The backend stops (SIGSTOP): its socket stays open, only the heartbeat can tell.
        #expect(kill(pid_t(stopped), SIGSTOP) == 0)
        defer { kill(pid_t(stopped), SIGCONT) }
        #expect(await Self.waitUntil { signals.count >= 1 }, "the listener never noticed its server stopped answering")
        #expect(try Self.listeners(url).contains { $0 != stopped })
        // Listening again: a commit of another engine reaches it.
        let other = try PostgresEngine(url: url)
        try Self.publish(other)
        #expect(await Self.waitUntil { signals.count >= 2 })
        subscription.cancel()
        await engine.close()
        await other.close()
    }

    @Test("Closing the engine stops its subscriptions")
    func closingStopsSubscriptions() async throws {
        let url = try PostgresCluster.shared().makeDatabase(prefix: "signals")
        let engine = try PostgresEngine(url: url)
        let subscription = engine.subscribeToCommitSignals {}
        #expect(try Self.listeners(url).count == 1)
        await engine.close()
        #expect(try await Self.waitUntil { try Self.listeners(url).isEmpty })
        withExtendedLifetime(subscription) {}
    }
}
