import Foundation
import PostgresNIO
import PostgresStore
import Testing

@Suite("The change journal on PostgreSQL")
struct JournalTests {
    /// Appends one transaction with `records` in its own database transaction.
    @discardableResult
    static func append(_ store: PostgresStore, author: String = "test", date: Double = 1_700_000_000.25,
                       records: [JournalRecord] = []) async throws -> Int64 {
        try await store.withTransaction { connection in
            try await ChangeJournal.append(author: author, date: date, records: records, on: connection).sequence
        }
    }

    @Test("appended transactions read back in order, with their records, author, date and stored stamp")
    func roundTrip() async throws {
        try await withStore { store in
            let journal = ChangeJournal(store: store)
            let records = [
                JournalRecord(objectType: 1, objectId: 7, localIdentifier: "A/L0/001", kind: 1),
                JournalRecord(objectType: 2, objectId: 3, localIdentifier: "C/L0/040", kind: 2, changedProperties: 5,
                              contentChanged: true, previousValues: [0, 1, 255]),
            ]
            let first = try await Self.append(store, author: "app", records: records)
            let second = try await Self.append(store, author: "sync", date: 1_700_000_001)
            #expect(second > first)
            let range = try await journal.entries(after: 0)
            #expect(range.entries.map(\.sequence) == [first, second])
            #expect(range.entries[0].records == records)
            #expect(range.entries[0].author == "app")
            #expect(range.entries[0].stamp == 1_700_000_000_250_000)
            #expect(range.entries[1].records.isEmpty)
            #expect(range.head == second && range.next == second && !range.hasMore)
            #expect(try await journal.entries(after: second).entries.isEmpty)
        }
    }

    @Test("a limit cuts the range; next continues where it stopped")
    func limit() async throws {
        try await withStore { store in
            let journal = ChangeJournal(store: store)
            var sequences: [Int64] = []
            for _ in 0..<5 { sequences.append(try await Self.append(store)) }
            let first = try await journal.entries(after: 0, limit: 2)
            #expect(first.entries.map(\.sequence) == Array(sequences.prefix(2)) && first.hasMore)
            let rest = try await journal.entries(after: first.next, limit: 10)
            #expect(rest.entries.map(\.sequence) == Array(sequences.dropFirst(2)) && !rest.hasMore)
        }
    }

    @Test("a rolled-back append never appears, and leaves no hole a reader waits for")
    func rollback() async throws {
        try await withStore { store in
            let journal = ChangeJournal(store: store)
            let kept = try await Self.append(store)
            struct Abort: Error {}
            _ = await error {
                try await store.withTransaction { connection in
                    try await ChangeJournal.append(author: "aborted", date: 1, records: [], on: connection)
                    throw Abort()
                }
            }
            let after = try await Self.append(store)
            let range = try await journal.entries(after: 0)
            #expect(range.entries.map(\.sequence) == [kept, after])
            #expect(after > kept + 1, "the aborted transaction's number is burnt, never reused")
        }
    }

    @Test("expiry raises the floor; an older token is changeTokenExpired, one past the head changeTokenAhead")
    func expiry() async throws {
        try await withStore { store in
            let journal = ChangeJournal(store: store)
            var sequences: [Int64] = []
            for index in 0..<4 { sequences.append(try await Self.append(store, date: 1_700_000_000 + Double(index))) }
            let floor = try await journal.expire(through: sequences[1])
            #expect(floor == sequences[1])
            #expect(try await journal.floor() == (sequences[1], 1_700_000_001_000_000))
            let expired = await error { try await journal.entries(after: sequences[0]) }
            #expect(expired as? PostgresStoreError == .changeTokenExpired(floor: sequences[1]))
            #expect(try await journal.entries(after: sequences[1]).entries.map(\.sequence) == Array(sequences[2...]))
            let ahead = await error { try await journal.entries(after: sequences[3] + 10) }
            #expect(ahead as? PostgresStoreError == .changeTokenAhead(sequence: sequences[3] + 10, head: sequences[3]))
            // Expiring everything keeps the head: a token at the head stays valid.
            try await journal.expire(through: sequences[3])
            #expect(try await journal.head() == sequences[3])
            #expect(try await journal.entries(after: sequences[3]).entries.isEmpty)
        }
    }

    @Test("retention expires by age and by count")
    func retention() async throws {
        try await withStore { store in
            let journal = ChangeJournal(store: store)
            var sequences: [Int64] = []
            for index in 0..<6 { sequences.append(try await Self.append(store, date: 1_000 + Double(index) * 100)) }
            // Older than 250 s before 1,500: dates 1,000, 1,100 and 1,200.
            #expect(try await journal.applyRetention(maximumAge: 250, maximumCount: 100, now: 1_500) == sequences[2])
            // Keep the newest two.
            #expect(try await journal.applyRetention(maximumAge: 1e9, maximumCount: 2, now: 1_500) == sequences[3])
            #expect(try await journal.entries(after: sequences[3]).entries.map(\.sequence) == Array(sequences[4...]))
        }
    }
}
