import Foundation
import Synchronization
import PostgresNIO
import PostgresStore
import Testing

@Suite("Waiting for changes (LISTEN/NOTIFY)")
struct JournalWaitTests {
    @Test("a waiter is woken by a commit on another connection")
    func wokenByCommit() async throws {
        try await withStore { store in
            let journal = ChangeJournal(store: store)
            let waiter = Task { try await journal.waitForChanges(after: 0, timeout: .seconds(60)) }
            // The writer waits until the waiter listens (its LISTEN shows in pg_stat_activity), then commits.
            try await Self.waitUntilListening(store)
            let start = ContinuousClock.now
            try await JournalTests.append(store)
            #expect(try await waiter.value)
            #expect(ContinuousClock.now - start < .seconds(30), "woken by the notification, not by the timeout")
        }
    }

    @Test("a commit made before the wait starts is seen at once")
    func commitBefore() async throws {
        try await withStore { store in
            let journal = ChangeJournal(store: store)
            try await JournalTests.append(store)
            #expect(try await journal.waitForChanges(after: 0, timeout: .seconds(60)))
        }
    }

    @Test("a notification without a change is only a hint: the waiter checks again and keeps waiting")
    func hintOnly() async throws {
        try await withStore { store in
            let journal = ChangeJournal(store: store)
            let ended = Mutex<ContinuousClock.Instant?>(nil)
            // A long timeout: on a starved machine the waiter must still be waiting when the hint comes.
            let waiter = Task {
                defer { ended.withLock { $0 = .now } }
                return try await journal.waitForChanges(after: 0, timeout: .seconds(60))
            }
            try await Self.waitUntilListening(store)
            let hinted = ContinuousClock.now
            try await store.withConnection { connection in
                try await connection.run("SELECT pg_notify(\(ChangeJournal.notificationChannel), 'spurious')")
            }
            // The hint makes the waiter read the head again (its query runs again, and it goes back to waiting).
            try await Self.waitUntilListening(store, after: hinted)
            try await Task.sleep(for: .milliseconds(300))
            #expect(ended.withLock { $0 } == nil, "the wait ended on a notification without a change")
            try await JournalTests.append(store)
            #expect(try await waiter.value, "the change after the hint ends the wait")
        }
    }

    /// Polls until the waiter's connection listens and has checked the head: its last statement is the
    /// journal's bounds query and it is idle, waiting for a notification. (No other connection runs that
    /// query in these tests before the waiter.)
    static func waitUntilListening(_ store: PostgresStore, after instant: ContinuousClock.Instant? = nil) async throws {
        let since = instant.map { instant in
            let elapsed = (ContinuousClock.now - instant).components
            return Date.now.addingTimeInterval(-(Double(elapsed.seconds) + Double(elapsed.attoseconds) / 1e18))
        }
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while ContinuousClock.now < deadline {
            let count = try await store.withConnection { connection in
                try await connection.run(
                    """
                    SELECT count(*) FROM pg_stat_activity
                    WHERE datname = current_database() AND state = 'idle' AND query LIKE '%GREATEST(j.floor%'
                      AND pid <> pg_backend_pid() AND state_change >= \(since ?? .distantPast)
                    """
                ).first?.decode(Int64.self) ?? 0
            }
            if count > 0 { return }
            try await Task.sleep(for: .milliseconds(5))
        }
        Issue.record("the waiter never listened")
    }
}
