import Foundation
import GRDB
import LibraryStorage
import Testing

/// A SQLite pool whose writer's log is checkpointed by a ``WALCheckpointer`` with small thresholds, on a file
/// in a temporary directory.
private struct CheckpointedPool {
    let directory: URL
    let pool: DatabasePool
    let checkpointer: WALCheckpointer

    init(background: Int32, inline: Int32) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("checkpoint-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("db.sqlite").path
        let checkpointer = WALCheckpointer(path: path, synchronous: "FULL", backgroundThreshold: background, inlineThreshold: inline)
        var configuration = Configuration()
        configuration.busyMode = .timeout(30)
        configuration.prepareDatabase { db in
            if !db.configuration.readonly, let connection = db.sqliteConnection { checkpointer.install(on: connection) }
        }
        pool = try DatabasePool(path: path, configuration: configuration)
        self.checkpointer = checkpointer
        try pool.write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, payload BLOB NOT NULL)") }
    }

    /// Commits `rows` rows of 4 KiB each: a page, so a frame of the log, per row and then some.
    func commit(rows: Int) throws {
        try pool.write { db in
            for _ in 0..<rows { try db.execute(sql: "INSERT INTO item (payload) VALUES (randomblob(4096))") }
        }
    }

    func count() throws -> Int {
        try pool.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") ?? -1 }
    }

    func remove() {
        try? pool.close()
        try? FileManager.default.removeItem(at: directory)
    }
}

@Suite("The writer's log, checkpointed on a connection of its own")
struct WALCheckpointerTests {
    @Test("A commit past the threshold is checkpointed in the background, not by the committing connection; the next commit starts the log over")
    func backgroundCheckpoint() throws {
        let fixture = try CheckpointedPool(background: 100, inline: 100_000)
        defer { fixture.remove() }
        try fixture.commit(rows: 10)
        #expect(fixture.checkpointer.statistics.background == 0, "under the threshold: no checkpoint")
        try fixture.commit(rows: 150)
        let grown = fixture.checkpointer.statistics.lastFrames
        #expect(grown >= 150, "each row takes a page or more: \(grown) frames")
        fixture.checkpointer.waitForPendingCheckpoint()
        #expect(fixture.checkpointer.statistics.background == 1)
        #expect(fixture.checkpointer.statistics.inline == 0)
        // The whole log was copied into the database, so the next writer starts the log from its beginning.
        try fixture.commit(rows: 1)
        let restarted = fixture.checkpointer.statistics.lastFrames
        #expect(restarted < 10, "the log was not started over: \(restarted) frames after a one-row commit")
        #expect(try fixture.count() == 161)
    }

    @Test("A reader's snapshot holds the log back: past the inline threshold the committing connection checkpoints itself, and every commit stays readable")
    func inlineCheckpointBoundsTheLog() throws {
        let fixture = try CheckpointedPool(background: 50, inline: 400)
        defer { fixture.remove() }
        try fixture.commit(rows: 5)
        let snapshot = try fixture.pool.makeSnapshot()
        for _ in 0..<8 { try fixture.commit(rows: 60) }
        fixture.checkpointer.waitForPendingCheckpoint()
        let statistics = fixture.checkpointer.statistics
        #expect(statistics.inline >= 1, "the log reached \(statistics.lastFrames) frames without an inline checkpoint")
        #expect(statistics.background >= 1)
        #expect(try snapshot.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") } == 5)
        #expect(try fixture.count() == 5 + 8 * 60)
    }

    @Test("Commits from several tasks while background checkpoints run and readers read: every row is there, the file is intact")
    func concurrentCommits() async throws {
        let fixture = try CheckpointedPool(background: 40, inline: 100_000)
        defer { fixture.remove() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<4 {
                group.addTask { for _ in 0..<15 { try fixture.commit(rows: 30) } }
                group.addTask { for _ in 0..<30 { _ = try fixture.count() } }
            }
            try await group.waitForAll()
        }
        fixture.checkpointer.waitForPendingCheckpoint()
        #expect(fixture.checkpointer.statistics.background >= 1)
        #expect(try fixture.count() == 4 * 15 * 30)
        try fixture.pool.close()
        let reopened = try Self.reopen(fixture)
        #expect(reopened.integrity == "ok")
        #expect(reopened.count == 4 * 15 * 30)
    }

    /// The fixture's file opened again on a connection of its own: its integrity check and its rows.
    private static func reopen(_ fixture: CheckpointedPool) throws -> (integrity: String?, count: Int?) {
        let queue = try DatabaseQueue(path: fixture.directory.appendingPathComponent("db.sqlite").path)
        return try queue.read { db in
            (try String.fetchOne(db, sql: "PRAGMA integrity_check"), try Int.fetchOne(db, sql: "SELECT count(*) FROM item"))
        }
    }
}
