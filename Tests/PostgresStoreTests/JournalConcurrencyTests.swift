import Foundation
import PostgresNIO
import PostgresStore
import SeededRandom
import Testing

/// What the writers committed and aborted, and whether they are done.
actor Ledger {
    var committed: [Int64] = []
    var aborted: [Int64] = []
    var writersDone = false

    func commit(_ sequence: Int64) { committed.append(sequence) }
    func abort(_ sequence: Int64) { aborted.append(sequence) }
    func finish() { writersDone = true }
}

@Suite("Change tokens under concurrent writers")
struct JournalConcurrencyTests {
    static let writers = 8
    static let transactionsPerWriter = 25
    static let readers = 4

    @Test(
        "every reader sees every committed change exactly once, in order, never an aborted one, and its token never goes back",
        arguments: [1, 2] as [UInt64])
    func noSkips(seed: UInt64) async throws {
        try await withStore { store in
            let ledger = Ledger()
            try await withThrowingTaskGroup(of: [Int64]?.self) { group in
                for reader in 0..<Self.readers {
                    group.addTask { try await Self.read(store, ledger: ledger, reader: reader) }
                }
                group.addTask {
                    try await withThrowingTaskGroup(of: Void.self) { writers in
                        for writer in 0..<Self.writers {
                            writers.addTask { try await Self.write(store, ledger: ledger, seed: seed &* 1000 &+ UInt64(writer)) }
                        }
                        try await writers.waitForAll()
                    }
                    await ledger.finish()
                    return nil
                }
                var seen: [[Int64]] = []
                for try await result in group { if let result { seen.append(result) } }
                let committed = await ledger.committed.sorted()
                let aborted = Set(await ledger.aborted)
                #expect(committed.count > Self.writers * Self.transactionsPerWriter / 2)
                #expect(!aborted.isEmpty, "the scenario aborts some transactions")
                for (reader, sequences) in seen.enumerated() {
                    #expect(sequences == committed, "reader \(reader) saw \(sequences.count) of \(committed.count) committed changes")
                    #expect(Set(sequences).isDisjoint(with: aborted), "reader \(reader) saw an aborted change")
                }
            }
        }
    }

    /// One writer: its own connection; each transaction writes a row of its own first (so its transaction
    /// id comes before its sequence number), waits a random moment, appends, waits again while holding its
    /// number, then commits or (one time in five) rolls back. Without serialised appends, another writer's
    /// later number commits during that wait, and a reader that reads it skips this one.
    static func write(_ store: PostgresStore, ledger: Ledger, seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        let connection = try await store.makeConnection()
        defer { Task { try? await connection.close() } }
        for index in 0..<transactionsPerWriter {
            try await connection.run("BEGIN")
            // A row of its own (a shared row would serialise the writers by its lock).
            try await connection.run("INSERT INTO asset_path_root (path, client) VALUES (\("/writer/\(seed)/\(index)"), 'writer')")
            try await Task.sleep(for: .microseconds(rng.int(in: 0...3_000)))
            let (sequence, _) = try await ChangeJournal.append(
                author: "writer", date: Double(index),
                records: [JournalRecord(objectType: 1, objectId: Int64(index), localIdentifier: "A\(seed)/\(index)", kind: 1)],
                on: connection)
            try await Task.sleep(for: .microseconds(rng.int(in: 0...6_000)))
            if rng.chance(0.2) {
                try await connection.run("ROLLBACK")
                await ledger.abort(sequence)
            } else {
                try await connection.run("COMMIT")
                await ledger.commit(sequence)
            }
        }
    }

    /// One reader: polls the journal with its token until the writers are done and it has read up to the
    /// head; checks that the token only moves forward and sequence numbers only increase.
    static func read(_ store: PostgresStore, ledger: Ledger, reader: Int) async throws -> [Int64] {
        let journal = ChangeJournal(store: store)
        var token: Int64 = 0
        var seen: [Int64] = []
        let deadline = ContinuousClock.now.advanced(by: .seconds(120))
        while ContinuousClock.now < deadline {
            let done = await ledger.writersDone
            let range = try await journal.entries(after: token, limit: 7)
            for entry in range.entries {
                #expect(entry.sequence > (seen.last ?? 0), "reader \(reader): \(entry.sequence) after \(seen.last ?? 0)")
                seen.append(entry.sequence)
            }
            #expect(range.next >= token, "reader \(reader): token went back from \(token) to \(range.next)")
            token = range.next
            if done && range.entries.isEmpty && token == range.head { return seen }
            if range.entries.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        }
        Issue.record("reader \(reader) did not catch up before the deadline")
        return seen
    }
}
