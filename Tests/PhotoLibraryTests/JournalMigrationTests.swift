import Foundation
import GRDB
import LibraryTestSupport
import SeededRandom
import Testing
@testable import PhotoLibrary

/// Schema 5 (`Schema/0005_journal_records.sql`): a library journaled by an earlier build — `change_record` with
/// its `IN (…)` checks, previous values in JSON — opens with its history whole, and everything that reads
/// previous values reads the JSON ones as it reads the binary ones.
@Suite struct JournalMigrationTests {
    /// Turns the journal of a closed library back into what a schema-4 build wrote: the table of migration 2
    /// and every previous value in JSON.
    static func downgradeJournal(at url: URL) throws {
        let queue = try DatabaseQueue(path: url.appending(path: PhotoLibrary.databaseFileName).path)
        try queue.write { db in
            let migration = try #require(LibrarySchema.migrations.first { $0.version == 2 }).sql
            let table = try #require(migration.range(of: "CREATE TABLE change_record"))
            let end = try #require(migration.range(of: "WITHOUT ROWID;", range: table.upperBound..<migration.endIndex))
            let index = try #require(migration.range(of: "CREATE INDEX change_record_by_object[^;]*;", options: .regularExpression))
            let rows = try Row.fetchAll(db, sql: "SELECT * FROM change_record")
            try db.execute(sql: "DROP TABLE change_record")
            try db.execute(sql: String(migration[table.lowerBound..<end.upperBound]) + String(migration[index]))
            for row in rows {
                var previous: Data? = row["previousValues"]
                if let data = previous {
                    switch ObjectType(rawValue: row["objectType"])! {
                    case .asset: previous = try JSONEncoder().encode(#require(PreviousValues.decode(AssetRow.self, from: data)))
                    case .assetCollection:
                        previous = try JSONEncoder().encode(#require(PreviousValues.decode(AssetCollectionRow.self, from: data)))
                    case .collectionList:
                        previous = try JSONEncoder().encode(#require(PreviousValues.decode(CollectionListRow.self, from: data)))
                    }
                }
                try db.execute(
                    sql: """
                        INSERT INTO change_record (seq, objectType, objectId, localIdentifier, kind, changedProperties, contentChanged, previousValues)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [row["seq"], row["objectType"], row["objectId"], row["localIdentifier"], row["kind"],
                                row["changedProperties"], row["contentChanged"], previous])
            }
            try db.execute(sql: "ALTER TABLE change_transaction DROP COLUMN stamp")  // Schema 6's.
            try db.execute(sql: "PRAGMA user_version = 4")
        }
        try queue.close()
    }

    @Test func aLibraryJournaledBeforeSchema5KeepsItsWholeHistory() throws {
        let directory = TemporaryDirectory()
        let url = directory.url.appending(path: "L")
        let sort = FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")])
        var g = RandomSource(seed: 4)
        let (keyList, sequence, before, history, record): (FetchResultKeyList, Int64, [Asset], [String], Int) = try {
            let library = try PhotoLibrary(url: url)
            try library.performChangesAndWait {
                for index in 0..<200 {
                    let hash = String(format: "%032x", index)
                    let request = AssetChangeRequest.creationRequestForAsset(
                        fromFileAt: URL(fileURLWithPath: "/virtual/\(hash).jpg"),
                        options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1))
                    request.creationDate = Date(timeIntervalSince1970: 1_500_000_000 + Double(g.int(in: 0...100_000_000)))
                }
            }
            let result = try library.fetchAssets(options: sort)
            let assets = Array(result)
            let sequence = try library.currentChangeToken.sequence
            // Updates (new dates: the previous values give the order before) and a deletion, in two transactions.
            try library.performChangesAndWait {
                for asset in assets[0..<20] {
                    AssetChangeRequest(for: asset).creationDate = Date(timeIntervalSince1970: 1_500_000_000 + Double(g.int(in: 0...100_000_000)))
                }
            }
            try library.performChangesAndWait {
                AssetChangeRequest.deleteAssets([assets[50]])
                AssetChangeRequest(for: assets[60]).isFavorite = true
            }
            let history = try library.fetchPersistentChanges(since: library.historyStatus().oldestValidToken).map { change in
                let details = try change.changeDetails(for: .asset)
                return "\(change.author) \(details.insertedLocalIdentifiers.sorted()) \(details.updatedLocalIdentifiers.sorted()) \(details.deletedLocalIdentifiers.sorted())"
            }
            let records = try library.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM change_record") ?? 0 }
            return (result.keyList, sequence, assets, history, records)
        }()
        try Self.downgradeJournal(at: url)

        let library = try PhotoLibrary(url: url)
        let (version, records, formats) = try library.database.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"), try Int.fetchOne(db, sql: "SELECT count(*) FROM change_record"),
             try Set(Int.fetchAll(db, sql: "SELECT unicode(CAST(previousValues AS TEXT)) FROM change_record WHERE previousValues IS NOT NULL")))
        }
        #expect(version == LibrarySchema.currentVersion)
        #expect(records == record)
        #expect(formats == [Int(UInt8(ascii: "{"))])  // Still JSON: the migration copies them as they are.
        let historyAfter = try library.fetchPersistentChanges(since: library.historyStatus().oldestValidToken).map { change in
            let details = try change.changeDetails(for: .asset)
            return "\(change.author) \(details.insertedLocalIdentifiers.sorted()) \(details.updatedLocalIdentifiers.sorted()) \(details.deletedLocalIdentifiers.sorted())"
        }
        #expect(historyAfter == history)

        // Objects as they were at the fetch, rebuilt from JSON previous values (the deleted one too).
        let rebuilt = try library.database.read { db in
            try ObjectLoading.assets(ArraySlice(before.map(\.rowID)), sequence: sequence, db)
        }
        #expect(rebuilt == before)

        // Incremental details over JSON records equal fetching again and diffing.
        let now = try library.fetchAssets(options: sort)
        let old = library.observation.track(now.successor(keyList: keyList, sequence: sequence))
        library.observation.maintainsIncrementally.store(true, ordering: .relaxed)
        let incremental = try #require(try library.observation.readChanges(after: sequence).last)
        #expect(incremental.context?.incremental.isEmpty == false)
        library.observation.maintainsIncrementally.store(false, ordering: .relaxed)
        let full = try #require(try library.observation.readChanges(after: sequence).last)
        let fast = try #require(incremental.changeDetails(for: old))
        let oracle = try #require(full.changeDetails(for: old))
        #expect(fast.diff == oracle.diff)
        #expect(fast.fetchResultAfterChanges.keys == now.keys)

        // The rebuilt table keeps its rules, and new records are binary.
        try library.database.write { db in
            let seq = try #require(try Int64.fetchOne(db, sql: "SELECT max(seq) FROM change_transaction"))
            for (type, kind) in [(4, 1), (0, 1), (1, 0), (1, 4)] as [(Double, Double)] + [(1.5, 1), (1, 2.5)] {
                #expect(throws: DatabaseError.self) {
                    try db.execute(
                        sql: "INSERT INTO change_record (seq, objectType, objectId, localIdentifier, kind) VALUES (?, ?, 999999, 'x', ?)",
                        arguments: [seq, type, kind])
                }
            }
        }
        try library.performChangesAndWait { AssetChangeRequest(for: before[70]).isHidden = true }
        let newest = try library.database.read { db in
            try Data.fetchOne(db, sql: "SELECT previousValues FROM change_record WHERE objectType = 1 ORDER BY seq DESC LIMIT 1")
        }
        #expect(newest?.first == PreviousValues.binaryFormat)
    }
}
