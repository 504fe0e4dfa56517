import Foundation
import GRDB
import LibraryTestSupport
import SeededRandom
import Testing
@testable import PhotoLibrary

/// The journal records a commit hands to the delivery rounds in memory (``JournalHandOff``): what a round
/// takes from them is what it would read from the journal, and a round whose interval holds a transaction
/// the hand-off doesn't (another handle's, or one pruned) reads the journal.
@Suite struct ObservationHandOffTests {
    static let byDate = FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")])

    /// A round journal as comparable text: each transaction, then each record with its previous values' bytes.
    static func describe(_ journal: RoundJournal?) -> [String] {
        guard let journal else { return ["none"] }
        var lines = ["end \(journal.end) floor \(journal.floor) start \(journal.start)"]
        for transaction in journal.transactions {
            lines.append("transaction \(transaction.sequence) \(transaction.author) \(transaction.date.bitPattern) \(transaction.stamp)")
        }
        let bytes = journal.recorded.previousValueBytes
        for record in journal.recorded.records {
            let values = record.previousValues.map { Array(bytes[$0]).map { String($0) }.joined(separator: ",") } ?? "-"
            lines.append("""
                record \(record.sequence) \(record.objectType) \(record.objectID) \(record.kind) \(record.changedProperties) \
                \(record.contentChanged) \(values)
                """)
        }
        return lines
    }

    /// The round journal after `start` as the hand-off gives it and as the journal gives it; and whether the
    /// hand-off held the whole interval.
    static func bothJournals(_ library: PhotoLibrary, after start: Int64) throws -> (handed: [String], read: [String], held: Bool) {
        try library.storage.read { db in
            let read = try RoundJournal(after: start, db)
            let handed = try RoundJournal(after: start, handOff: library.observation.handOff, db)
            let held = read.map { library.observation.handOff.interval(after: start, through: $0.end) != nil } ?? false
            return (describe(handed), describe(read), held)
        }
    }

    /// Random blocks of asset inserts, edits and deletes, and album changes (collection records, membership).
    static func performBlock(on library: PhotoLibrary, _ g: inout RandomSource) throws {
        try ObservationIncrementalTests.performBlock(on: library, &g)
        guard g.chance(0.4) else { return }
        let assets = Array(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)))
        let albums = Array(try library.fetchAssetCollections(with: .album))
        var local = g
        try library.performChangesAndWait(author: "albums") {
            if let album = local.anyElement(albums), local.chance(0.6) {
                let request = AssetCollectionChangeRequest(for: album)
                if let asset = local.anyElement(assets) { request.addAssets([asset]) }
                if local.chance(0.3) { request.title = "renamed \(local.int(in: 0...99))" }
            } else {
                _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "album \(local.int(in: 0...99))")
            }
        }
        g = local
    }

    /// For random commits, every round interval the hand-off holds gives the transactions and records the
    /// journal holds, byte for byte, whatever the interval's start; and the details made from them are those
    /// of fetching again.
    @Test(arguments: [1, 2, 3] as [UInt64], StoragePaths.allCases)
    func handedRecordsAreTheJournals(seed: UInt64, paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let library = test.library
        var g = RandomSource(seed: seed)
        _ = try test.makeAssets(30) { index, request in request.creationDate = .utc(2020, 1, 1).addingTimeInterval(Double(index % 7) * 86_400) }
        var starts = [try library.currentChangeToken.sequence]
        var held = 0
        var result = try library.fetchAssets(options: Self.byDate)
        for _ in 0..<24 {
            let start = try library.currentChangeToken.sequence
            do { try Self.performBlock(on: library, &g) } catch is PhotoLibraryError { continue }
            starts.append(start)
            // Every earlier start: intervals of one transaction and of many.
            for start in starts.suffix(6) {
                let (handed, read, wasHeld) = try Self.bothJournals(library, after: start)
                #expect(handed == read, "seed \(seed) after \(start)")
                if wasHeld { held += 1 }
            }
            let change = try #require(try library.observation.readChanges(after: start).last)
            if let details = change.changeDetails(for: result) {
                #expect(details.fetchResultAfterChanges.keys == (try library.fetchAssets(options: Self.byDate)).keys, "seed \(seed)")
                #expect(apply(details) == details.fetchResultAfterChanges.keys)
                result = details.fetchResultAfterChanges
            }
        }
        // The comparison compared something: most intervals were held.
        #expect(held > 24)
    }

    /// Commits through two handles of one library, interleaved: the writer's hand-off lacks the other
    /// handle's transaction, so its rounds over it read the journal, and describe the other's change too.
    @Test(arguments: StoragePaths.allCases) func aCommitFromAnotherHandleInTheIntervalIsRead(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let other = try test.openAnother()
        let assets = try ObservationWriterRoundTests.makeAssets(test, 60)
        let library = test.library
        var next = 0
        for order in [["self", "other", "self"], ["other", "self"], ["self", "other"]] {
            let result = try library.fetchAssets(options: Self.byDate)
            let start = try library.currentChangeToken.sequence
            var moved: [String] = []
            for writer in order {
                let handle = writer == "self" ? library : other
                let asset = assets[next * 7 % assets.count]
                next += 1
                try handle.performChangesAndWait { AssetChangeRequest(for: asset).creationDate = .utc(2030 + next, 1, 1) }
                moved.append(asset.localIdentifier)
            }
            let end = try library.currentChangeToken.sequence
            #expect(end == start + Int64(order.count))
            #expect(library.observation.handOff.interval(after: start, through: end) == nil)
            let (handed, read, _) = try Self.bothJournals(library, after: start)
            #expect(handed == read)

            let changes = try library.observation.readChanges(after: start)
            #expect(changes.map(\.changeToken.sequence) == Array((start + 1)...end))
            let details = try #require(changes.last?.changeDetails(for: result))
            #expect(details.fetchResultAfterChanges.keys == (try library.fetchAssets(options: Self.byDate)).keys, "\(order)")
            #expect(apply(details) == details.fetchResultAfterChanges.keys)
            // Each moved asset is at the end now, and reported changed.
            let after = details.fetchResultAfterChanges.map(\.localIdentifier)
            #expect(Array(after.suffix(moved.count)) == moved, "\(order)")
            #expect(details.changedIndexes.count == moved.count, "\(order)")
        }
        // The writer's own commits alone: held, and taken from memory.
        let start = try library.currentChangeToken.sequence
        try library.performChangesAndWait { AssetChangeRequest(for: assets[40]).isFavorite = true }
        try library.performChangesAndWait { AssetChangeRequest(for: assets[41]).isFavorite = true }
        #expect(library.observation.handOff.interval(after: start, through: start + 2) != nil)
        let (handed, read, held) = try Self.bothJournals(library, after: start)
        #expect(held && handed == read)
    }

    /// A commit that SQLite rolled back is never handed off: its sequence number is given to the next commit,
    /// here another handle's, whose round must describe that commit and not the rolled-back one.
    @Test(arguments: StoragePaths.sqlite) func aRolledBackCommitIsNeverHandedOff(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let library = test.library
        let other = try PhotoLibrary(url: library.url)
        let assets = try ObservationWriterRoundTests.makeAssets(test, 20)
        let result = try library.fetchAssets(options: Self.byDate)
        let start = try library.currentChangeToken.sequence
        // The block journals a change, then its COMMIT fails: a foreign key checked only at commit
        // (`defer_foreign_keys`) is broken by a client's write in the block's transaction.
        #expect(throws: PhotoLibraryError.self) {
            try library.performChangesAndWait(author: "rolled back") {
                AssetChangeRequest(for: assets[2]).creationDate = .utc(2040, 1, 1)
                LibraryTransaction.current.perform { db in
                    try db.execute(sql: "PRAGMA defer_foreign_keys = ON")
                    try db.execute(sql: "INSERT INTO album_asset (albumId, assetId, position) VALUES (-1, -1, 0)")
                }
            }
        }
        #expect(try library.currentChangeToken.sequence == start)
        #expect(library.observation.handOff.interval(after: start, through: start + 1) == nil)
        try other.performChangesAndWait { AssetChangeRequest(for: assets[5]).creationDate = .utc(2035, 1, 1) }
        #expect(try library.currentChangeToken.sequence == start + 1)

        let (handed, read, _) = try Self.bothJournals(library, after: start)
        #expect(handed == read)
        let details = try #require(try library.observation.readChanges(after: start).last?.changeDetails(for: result))
        #expect(details.fetchResultAfterChanges.lastObject?.localIdentifier == assets[5].localIdentifier)
        #expect(details.fetchResultAfterChanges.keys == (try library.fetchAssets(options: Self.byDate)).keys)
        #expect(Array(details.changedIndexes) == [19])
    }

    /// A round whose interval starts below the journal's floor gets the transactions the journal kept, as it
    /// would reading them: not those the hand-off still holds.
    @Test(arguments: StoragePaths.allCases) func aPrunedIntervalIsReadFromTheJournal(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let library = test.library
        let assets = try test.makeAssets(5)
        let start = try library.currentChangeToken.sequence
        for asset in assets.prefix(3) { try library.performChangesAndWait { AssetChangeRequest(for: asset).isFavorite = true } }
        #expect(library.observation.handOff.interval(after: start, through: start + 3) != nil)
        // Keeps the newest transaction only.
        try library.setRetentionPolicy(RetentionPolicy(maximumAge: -1, maximumTransactions: 1_000))
        let (handed, read, _) = try Self.bothJournals(library, after: start)
        #expect(handed == read)
        let changes = try library.observation.readChanges(after: start)
        #expect(changes.map(\.changeToken.sequence) == [start + 3])
    }

    /// A row's value at each journal column is the one its previous values' encoding holds (and SQLite).
    @Test(arguments: [1, 2, 3] as [UInt64])
    func aRowsJournalValuesAreItsEncodedValues(seed: UInt64) {
        var g = RandomSource(seed: seed)
        for _ in 0..<200 {
            var row = AssetRow(id: Int64(g.int(in: 1...1_000_000)), localIdentifier: "L\(g.next())", addedDate: Double(g.int(in: 0...1 << 40)) / 7)
            func maybe<T>(_ value: T) -> T? { g.chance(0.3) ? nil : value }
            row.mediaType = g.int(in: 0...3)
            row.mediaSubtypes = g.int(in: 0...1 << 20)
            row.pixelWidth = g.int(in: 0...9000)
            row.pixelHeight = g.int(in: 0...9000)
            row.creationDate = maybe(Double(g.int(in: -1 << 40...1 << 40)) / 3)
            row.creationTimeZoneOffset = maybe(g.int(in: -50_400...50_400))
            row.modificationDate = maybe(Double(g.int(in: 0...1 << 40)) / 3)
            row.latitude = maybe(Double(g.int(in: -90...90)) + 0.25)
            row.longitude = maybe(Double(g.int(in: -180...180)) - 0.5)
            row.altitude = maybe(Double(g.int(in: -400...9000)))
            row.duration = Double(g.int(in: 0...10_000)) / 10
            row.isFavorite = g.chance(0.5)
            row.isHidden = g.chance(0.5)
            row.burstIdentifier = maybe("B\(g.int(in: 0...9))")
            row.representsBurst = g.chance(0.5)
            row.burstSelectionTypes = g.int(in: 0...3)
            row.sourceType = g.int(in: 1...8)
            row.hasAdjustments = g.chance(0.5)
            row.originalFilename = "IMG_\(g.int(in: 0...9999)).jpg"
            row.uniformTypeIdentifier = maybe("public.jpeg")
            row.fileSize = Int64(g.int(in: 0...1 << 40))
            row.contentHash = maybe(String(format: "%016llx", g.next()))
            row.storage = g.int(in: 0...1)
            row.filePath = maybe("/photos/\(g.int(in: 0...99))/é.jpg")
            row.momentId = maybe(Int64(g.int(in: 1...10_000)))
            row.adjustedContentHash = maybe(String(format: "%016llx", g.next()))
            var writer = PreviousValues.Writer()
            let range = writer.append(row)
            let columns = Array(AssetRow.journalColumns.indices)
            let encoded = writer.bytes[range].withUnsafeBytes { PreviousValues.values(at: columns, of: AssetRow.self, in: $0) }
            #expect(encoded == columns.map { row.journalValue(at: $0) })
        }
    }

    /// The state at the end of a round of the writer's own updates is known from the rows its commit handed
    /// off: no read of the touched assets. A round that may change a membership (a property of the condition,
    /// an insertion) or holds another handle's commit reads them; the details are those of fetching again.
    @Test(arguments: StoragePaths.allCases) func touchedAssetsAreKnownFromHandedRowsWhenTheirMembershipsCantChange(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let library = test.library
        let other = try test.openAnother()
        let assets = try ObservationWriterRoundTests.makeAssets(test, 40)
        // Hidden assets are left out of the fetch: `isHidden` is a property of its condition.
        let blocks: [(name: String, inMemory: Bool, writer: PhotoLibrary, block: () -> Void)] = [
            ("dates and a deletion", true, library, {
                AssetChangeRequest(for: assets[3]).creationDate = .utc(2031, 1, 1)
                AssetChangeRequest(for: assets[9]).creationDate = .utc(2019, 1, 1)
                AssetChangeRequest(for: assets[12]).isFavorite = true
                AssetChangeRequest.deleteAssets([assets[20]])
            }),
            ("hidden", false, library, { AssetChangeRequest(for: assets[5]).isHidden = true }),
            ("a date again", true, library, { AssetChangeRequest(for: assets[3]).creationDate = .utc(2018, 1, 1) }),
            ("an insertion", false, library, {
                let request = AssetChangeRequest.creationRequestForAsset(
                    fromFileAt: URL(fileURLWithPath: "/virtual/new.jpg"),
                    options: AssetCreationOptions(storage: .referenced, contentHash: String(repeating: "a", count: 32), fileSize: 1))
                request.creationDate = .utc(2020, 6, 1)
            }),
            ("another handle's date", false, other, { AssetChangeRequest(for: assets[30]).creationDate = .utc(2032, 1, 1) }),
        ]
        var result = try library.fetchAssets(options: Self.byDate)
        for (name, inMemory, writer, block) in blocks {
            let start = try library.currentChangeToken.sequence
            try writer.performChangesAndWait(block)
            let change = try #require(try library.observation.readChanges(after: start).last)
            let state = DeliveryContext.ResultState(chain: ObjectIdentifier(result.chain), sequence: result.sequence)
            let update = try #require(change.context?.incremental[state], "\(name)")
            #expect(update.readInMemory == inMemory, "\(name)")
            let details = try #require(change.changeDetails(for: result))
            #expect(details.fetchResultAfterChanges.keys == (try library.fetchAssets(options: Self.byDate)).keys, "\(name)")
            #expect(apply(details) == details.fetchResultAfterChanges.keys, "\(name)")
            result = details.fetchResultAfterChanges
        }
    }

    /// A round of several commits touching the same assets: their state at the end is their last update's
    /// row, and an asset updated then deleted is gone.
    @Test(arguments: StoragePaths.allCases) func theRowOfAnAssetsLastUpdateInTheRoundIsItsState(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let library = test.library
        let assets = try ObservationWriterRoundTests.makeAssets(test, 30)
        let result = try library.fetchAssets(options: Self.byDate)
        let start = try library.currentChangeToken.sequence
        try library.performChangesAndWait {
            AssetChangeRequest(for: assets[2]).creationDate = .utc(2035, 1, 1)
            AssetChangeRequest(for: assets[7]).creationDate = .utc(2036, 1, 1)
        }
        try library.performChangesAndWait {
            AssetChangeRequest(for: assets[2]).creationDate = .utc(2010, 1, 1)
            AssetChangeRequest(for: assets[11]).isFavorite = true
        }
        try library.performChangesAndWait { AssetChangeRequest.deleteAssets([assets[7]]) }
        let change = try #require(try library.observation.readChanges(after: start).last)
        let state = DeliveryContext.ResultState(chain: ObjectIdentifier(result.chain), sequence: result.sequence)
        #expect(change.context?.incremental[state]?.readInMemory == true)
        let details = try #require(change.changeDetails(for: result))
        #expect(details.fetchResultAfterChanges.keys == (try library.fetchAssets(options: Self.byDate)).keys)
        #expect(details.fetchResultAfterChanges.firstObject?.localIdentifier == assets[2].localIdentifier)
        #expect(apply(details) == details.fetchResultAfterChanges.keys)
    }

    /// The hand-off holds the newest transactions only, within its bounds; a transaction too large isn't held.
    @Test func theHandOffIsBounded() {
        func entry(_ sequence: Int64, records count: Int) -> JournalHandOff.Entry {
            let records = (0..<count).map { index in
                RoundRecord(
                    sequence: sequence, objectType: .asset, objectID: Int64(index), kind: .inserted, changedProperties: 0,
                    contentChanged: false, previousValues: nil)
            }
            return JournalHandOff.Entry(
                transaction: JournalTransaction(sequence: sequence, author: "test", date: Double(sequence), stamp: sequence),
                records: JournalRecords(records: records, previousValueBytes: [], rowsAfter: Array(repeating: nil, count: count)))
        }
        let handOff = JournalHandOff()
        let count = Int64(JournalHandOff.capacity)
        for sequence in 1...(count + 6) { handOff.publish(entry(sequence, records: 1)) }
        #expect(handOff.interval(after: 6, through: count + 6)?.transactions.count == JournalHandOff.capacity)
        #expect(handOff.interval(after: 5, through: count + 6) == nil)
        // Records: the oldest transactions go first.
        let limit = WriterRound.recordLimit
        var sequence = count + 6
        for _ in 0..<(JournalHandOff.recordCapacity / limit + 1) {
            sequence += 1
            handOff.publish(entry(sequence, records: limit))
        }
        let held = JournalHandOff.recordCapacity / limit
        #expect(handOff.interval(after: sequence - Int64(held), through: sequence)?.records.records.count == JournalHandOff.recordCapacity)
        #expect(handOff.interval(after: sequence - Int64(held) - 1, through: sequence) == nil)
        // Too large: not held.
        handOff.publish(entry(sequence + 1, records: limit + 1))
        #expect(handOff.interval(after: sequence, through: sequence + 1) == nil)
    }

    /// A backup restored into the library while a handle is open (SQLite's backup into the live file, as the
    /// `sqlite3` shell's `.restore` does) can give a sequence number the handle committed to another
    /// transaction: the hand-off's records of it are stale, and the round reads the journal.
    @Test(arguments: StoragePaths.sqlite) func aTransactionRewrittenUnderItsNumberIsReadFromTheJournal(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let library = test.library
        let assets = try ObservationWriterRoundTests.makeAssets(test, 20)
        let start = try library.currentChangeToken.sequence
        // A copy of the library as it is now, which then commits its own transaction under the next number.
        let copyDirectory = TemporaryDirectory()
        let copyURL = copyDirectory.url.appending(path: "Copy.photosync")
        try FileManager.default.createDirectory(at: copyURL, withIntermediateDirectories: true)
        let copyPath = copyURL.appending(path: PhotoLibrary.databaseFileName).path
        try library.database.backup(to: DatabaseQueue(path: copyPath))
        let copy = try PhotoLibrary(url: copyURL)
        try copy.performChangesAndWait(author: "copy") { AssetChangeRequest(for: assets[4]).creationDate = .utc(2033, 1, 1) }

        let result = try library.fetchAssets(options: Self.byDate)
        try library.performChangesAndWait { AssetChangeRequest(for: assets[8]).creationDate = .utc(2034, 1, 1) }
        #expect(library.observation.handOff.interval(after: start, through: start + 1) != nil)
        // The copy restored into the live file.
        try copy.database.backup(to: DatabaseQueue(path: library.databasePath))
        #expect(try library.currentChangeToken.sequence == start + 1)

        let (handed, read, _) = try Self.bothJournals(library, after: start)
        #expect(handed == read)
        let details = try #require(try library.observation.readChanges(after: start).last?.changeDetails(for: result))
        #expect(details.fetchResultAfterChanges.lastObject?.localIdentifier == assets[4].localIdentifier)
        #expect(details.fetchResultAfterChanges.keys == (try library.fetchAssets(options: Self.byDate)).keys)
    }
}
