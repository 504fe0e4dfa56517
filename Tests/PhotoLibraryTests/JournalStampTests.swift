import Foundation
import GRDB
import LibraryTestSupport
import SeededRandom
import Testing
@testable import PhotoLibrary

/// Schema 6 (`Schema/0006_transaction_stamp.sql`): a transaction's token stamp is stored by the commit and read
/// back, never derived again from `date`; libraries written before keep every token they issued.
@Suite struct JournalStampTests {
    /// Makes a library with a history: transactions, some of them expired (so the floor is a transaction).
    static func libraryWithHistory(at url: URL) throws -> PhotoLibrary {
        let library = try PhotoLibrary(url: url)
        for index in 0..<6 {
            try library.performChangesAndWait {
                _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "album \(index)")
            }
        }
        let third = try library.fetchPersistentChanges(since: library.historyStatus().oldestValidToken).map(\.changeToken)[2]
        try library.expireHistory(before: third)
        return library
    }

    /// Every token the library hands out: the floor, each transaction's, the current one.
    static func tokens(_ library: PhotoLibrary) throws -> [ChangeToken] {
        let status = try library.historyStatus()
        return [status.oldestValidToken]
            + (try library.fetchPersistentChanges(since: status.oldestValidToken).map(\.changeToken))
            + [try library.currentChangeToken]
    }

    @Test func tokensIssuedAtSchema5StayValidAndEqualAfterTheMigration() throws {
        let directory = TemporaryDirectory()
        let url = directory.url.appending(path: "L")
        let (before, current): ([ChangeToken], ChangeToken) = try {
            let library = try Self.libraryWithHistory(at: url)
            return (try Self.tokens(library), try library.currentChangeToken)
        }()
        // Back to what a schema-5 build wrote: no stamp column.
        let queue = try DatabaseQueue(path: url.appending(path: PhotoLibrary.databaseFileName).path)
        try queue.write { db in
            try db.execute(sql: "ALTER TABLE change_transaction DROP COLUMN stamp; PRAGMA user_version = 5")
        }
        try queue.close()

        let library = try PhotoLibrary(url: url)
        let version = try library.database.read { db in try Int.fetchOne(db, sql: "PRAGMA user_version") }
        #expect(version == LibrarySchema.currentVersion)
        #expect(try library.currentChangeToken == current)
        #expect(try Self.tokens(library) == before)
        for token in before {
            // Each old token still resolves, to the changes after it.
            let changes = try library.fetchPersistentChanges(since: token).map(\.changeToken)
            #expect(changes == before.filter { $0.sequence > token.sequence && $0 != current } + (token == current ? [] : [current]))
        }
    }

    /// The migration's SQL backfill equals `ChangeToken.stamp(forDate:)` bit for bit, on dates where a naive
    /// rounding differs: exact ties and their neighbours, products above 2^52, negative dates.
    @Test func theBackfillRoundsExactlyAsSwiftDoes() throws {
        var dates: [Double] = [0, -0.0, 0.4999999999999999e-6, 0.5e-6, 1.5e-6, 2.5e-6, -0.5e-6, -1.5e-6, 1e-7, -1e-7,
                               4_503_599_627.370_497, 4_503_599_627.370_497.nextUp, 9_007_199_254.740_993, 9_000_000_000_000.5]
        // Products that are exact ties k + 0.5, and their neighbours.
        var g = SplitMix64(seed: 6)
        while dates.count < 400 {
            let k = Double(Int.random(in: -2_000_000_000_000_000...4_000_000_000_000_000, using: &g))
            let date = (k + 0.5) / 1_000_000
            if date * 1_000_000 == k + 0.5 { dates += [date, date.nextUp, date.nextDown] }
        }
        for _ in 0..<2_000 { dates.append(Double.random(in: -1e10...1e10, using: &g)) }
        for _ in 0..<2_000 { dates.append(Double.random(in: 1.5e9...2e9, using: &g)) }
        #expect(dates.contains { $0 * 1_000_000 - ($0 * 1_000_000).rounded(.towardZero) == 0.5 })

        let queue = try DatabaseQueue()
        try queue.write { db in
            for migration in LibrarySchema.migrations where migration.version <= 5 { try db.execute(sql: migration.sql) }
            try db.execute(sql: "PRAGMA user_version = 5")
            for date in dates {
                try db.execute(sql: "INSERT INTO change_transaction (author, date) VALUES ('old build', ?)", arguments: [date])
            }
            try LibrarySchema.migrate(db)
        }
        let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT date, stamp FROM change_transaction ORDER BY seq") }
        #expect(rows.count == dates.count)
        let wrong = rows.filter { row in ChangeToken.stamp(forDate: row["date"]) != row["stamp"] as Int64 }
        #expect(wrong.isEmpty, "\(wrong.prefix(5))")
    }

    /// Every reader takes the stored stamp: a library whose stored stamps differ from their dates' hands out
    /// tokens with the stored ones, validates against them and expires to them.
    @Test func readersTakeTheStoredStampNotTheDate() throws {
        let directory = TemporaryDirectory()
        let library = try Self.libraryWithHistory(at: directory.url.appending(path: "L"))
        let derived = try Self.tokens(library)
        try library.database.write { db in try db.execute(sql: "UPDATE change_transaction SET stamp = stamp + 1000 + seq") }
        let stored = try library.database.read { db in
            try Dictionary(uniqueKeysWithValues: Row.fetchAll(db, sql: "SELECT seq, stamp FROM change_transaction").map { row in
                (row["seq"] as Int64, row["stamp"] as Int64)
            })
        }
        let floor = try library.historyStatus().oldestValidToken
        #expect(stored[floor.sequence] == nil)  // The floor's transaction is expired: its stamp is kept in change_journal.

        // currentChangeToken, historyStatus, fetched changes (whole, in a limited plan, coalesced), deliveries.
        let current = try library.currentChangeToken
        #expect(current.stamp == stored[current.sequence])
        #expect(try library.historyStatus().currentToken.stamp == stored[current.sequence])
        let changes = Array(try library.fetchPersistentChanges(since: floor))
        #expect(changes.count == stored.count)
        for change in changes { #expect(change.changeToken.stamp == stored[change.changeToken.sequence]) }
        let limited = try library.fetchPersistentChanges(since: floor, options: PersistentChangeFetchOptions(limit: 2))
        #expect(limited.hasMore && limited.endToken.stamp == stored[limited.endToken.sequence])
        let coalesced = try library.fetchPersistentChanges(since: floor, options: PersistentChangeFetchOptions(coalesced: true))
        #expect(coalesced.endToken == current)
        for change in try library.observation.readChanges(after: floor.sequence) {
            #expect(change.changeToken.stamp == stored[change.changeToken.sequence])
        }

        // Tokens with the date's stamps no longer name these transactions; those with the stored ones do.
        for token in derived where token.sequence > floor.sequence {
            #expect(throws: PhotoLibraryError.changeTokenAheadOfLibrary(tokenSequence: token.sequence, currentSequence: current.sequence)) {
                _ = try library.fetchPersistentChanges(since: token)
            }
        }
        let middle = changes[1].changeToken
        #expect(try library.fetchPersistentChanges(since: middle).map(\.changeToken) == changes[2...].map(\.changeToken))

        // Expiry keeps the stored stamp as the floor's.
        try library.expireHistory(before: middle)
        #expect(try library.historyStatus().oldestValidToken == middle)
        #expect(try library.fetchPersistentChanges(since: middle).map(\.changeToken) == changes[2...].map(\.changeToken))

        // A new commit stores the stamp of its date.
        try library.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "new") }
        let newest = try library.database.read { db in
            try #require(try Row.fetchOne(db, sql: "SELECT date, stamp FROM change_transaction ORDER BY seq DESC LIMIT 1"))
        }
        #expect(ChangeToken.stamp(forDate: newest["date"]) == newest["stamp"] as Int64)
        #expect(try library.currentChangeToken.stamp == newest["stamp"] as Int64)
    }
}
