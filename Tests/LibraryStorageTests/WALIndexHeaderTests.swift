import Foundation
import GRDB
import LibraryStorage
import Testing

/// The wal-index header read from SQLite's shared memory (``WALIndexHeader``): unchanged while nothing is
/// committed, changed by any connection's commit, and never taken while its two copies disagree.
@Suite struct WALIndexHeaderTests {
    /// Two pools on one database file: two writers, as two processes would have (each its own connection
    /// and its own mapping of the shared memory).
    struct TwoPools {
        let directory: URL
        let first: DatabasePool
        let second: DatabasePool

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("wal-index-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            let path = directory.appendingPathComponent("db.sqlite").path
            var configuration = Configuration()
            configuration.busyMode = .timeout(30)
            first = try DatabasePool(path: path, configuration: configuration)
            try first.write { db in try db.execute(sql: "CREATE TABLE item (id INTEGER PRIMARY KEY, value INTEGER NOT NULL)") }
            second = try DatabasePool(path: path, configuration: configuration)
        }

        /// The header as `pool`'s writer sees it, outside any transaction.
        static func header(_ pool: DatabasePool) -> WALIndexHeader? {
            pool.writeWithoutTransaction { db in WALIndexHeader.current(of: db.sqliteConnection!) }
        }

        func remove() {
            try? first.close()
            try? second.close()
            try? FileManager.default.removeItem(at: directory)
        }
    }

    @Test func eachCommitOfEitherConnectionChangesTheHeaderAndNothingElseDoes() throws {
        let pools = try TwoPools()
        defer { pools.remove() }
        var last = try #require(TwoPools.header(pools.first))
        #expect(TwoPools.header(pools.first) == last)
        for round in 0..<12 {
            let writer = round % 3 == 1 ? pools.second : pools.first
            try writer.write { db in try db.execute(sql: "INSERT INTO item (value) VALUES (?)", arguments: [round]) }
            // Seen alike from both connections, whichever committed, with the change counter one up.
            let now = try #require(TwoPools.header(pools.first))
            #expect(TwoPools.header(pools.second) == now)
            #expect(now != last)
            #expect(now.changeCounter == last.changeCounter &+ 1)
            // Reads and a write transaction that changes nothing leave it as it is.
            _ = try pools.second.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM item") }
            try pools.first.write { db in _ = try Int.fetchOne(db, sql: "SELECT max(value) FROM item") }
            #expect(TwoPools.header(pools.first) == now)
            last = now
        }
        // A checkpoint that restarts the log, then a commit: a new header again.
        try pools.second.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        try pools.first.write { db in try db.execute(sql: "INSERT INTO item (value) VALUES (99)") }
        let restarted = try #require(TwoPools.header(pools.first))
        #expect(restarted != last)
    }

    @Test func aHeaderWhoseCopiesDisagreeOrThatIsNotBuiltIsNotTaken() throws {
        let region = UnsafeMutableRawPointer.allocate(byteCount: 96, alignment: 8)
        defer { region.deallocate() }
        func fill(_ copy: Int, counter: UInt32, isInit: UInt8) {
            let base = region + 48 * copy
            base.initializeMemory(as: UInt8.self, repeating: 7, count: 48)
            base.storeBytes(of: counter, toByteOffset: 8, as: UInt32.self)
            base.storeBytes(of: isInit, toByteOffset: 12, as: UInt8.self)
        }
        fill(0, counter: 41, isInit: 1)
        fill(1, counter: 41, isInit: 1)
        #expect(WALIndexHeader.read(UnsafeRawPointer(region))?.changeCounter == 41)
        // A writer between its two copies: the second already new, the first not yet.
        fill(1, counter: 42, isInit: 1)
        #expect(WALIndexHeader.read(UnsafeRawPointer(region)) == nil)
        fill(0, counter: 42, isInit: 1)
        #expect(WALIndexHeader.read(UnsafeRawPointer(region))?.changeCounter == 42)
        fill(0, counter: 42, isInit: 0)
        fill(1, counter: 42, isInit: 0)
        #expect(WALIndexHeader.read(UnsafeRawPointer(region)) == nil)
    }
}
