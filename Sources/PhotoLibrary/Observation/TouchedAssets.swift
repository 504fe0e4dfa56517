import Foundation
import GRDB
import GRDBSQLite

/// Step 1 of ``IncrementalFetch``: the assets the journal's records in an interval touch, each with its first
/// record in the interval (whose previous values are the asset's state at the interval's start).
struct TouchedAssets {
    /// The first record of an asset in the interval.
    struct First {
        let kind: ChangeKind
        /// Its transaction: with the asset, the record's primary key.
        let sequence: Int64
        /// Where its previous values are in ``journal``'s buffer, if they were kept.
        let previousValues: Range<Int>?
    }

    /// The records read.
    private let journal: JournalRecords

    /// The touched assets, in the order of their first record: their slots (what the arrays below and the
    /// other steps' arrays are indexed by).
    private(set) var slots = IDSlots()
    /// The first record of each.
    private(set) var first: [First] = []
    /// Whether each has an update record: its public properties changed.
    private(set) var updated: [Bool] = []
    /// Whether each has a record naming a property of the sort (every updated one when the sort isn't covered).
    private(set) var sortChanged: [Bool] = []
    /// Whether each may have changed its place or its membership: inserted, deleted, or updated in a property
    /// of the sort or of the condition (every one when they aren't covered).
    private(set) var affected: [Bool] = []

    /// The touched assets' ids, by slot.
    var ids: [Int64] { slots.ids }

    /// The assets the records after `start`, up to the round's end, touch: from the records the round read
    /// when it read them all (`start` is not before the round's start), else from the journal.
    ///
    /// - Throws: ``IncrementalFetch/Unmaintainable`` when more than `limit` assets are touched.
    init(from start: Int64, round: RoundJournal, of fetch: IncrementalFetch, limit: Int, _ db: Database) throws {
        if start >= round.start {
            journal = round.recorded
            for record in round.records(after: start, through: round.end) where record.objectType == .asset {
                try add(record, of: fetch, limit: limit)
            }
        } else {
            journal = try JournalRecords(after: start, through: round.end, of: .asset, db)
            for record in journal.records { try add(record, of: fetch, limit: limit) }
        }
    }

    private mutating func add(_ record: RoundRecord, of fetch: IncrementalFetch, limit: Int) throws {
        let (slot, isFirst) = slots.insert(record.objectID)
        if isFirst {
            guard slots.count <= limit else { throw IncrementalFetch.Unmaintainable() }
            first.append(First(kind: record.kind, sequence: record.sequence, previousValues: record.previousValues))
            updated.append(false)
            sortChanged.append(false)
            affected.append(false)
        }
        guard record.kind == .updated else {
            affected[slot] = true
            return
        }
        updated[slot] = true
        let properties = AssetProperties(rawValue: record.changedProperties)
        if fetch.sortProperties.map({ !properties.isDisjoint(with: $0) }) ?? true { sortChanged[slot] = true }
        if fetch.relevantProperties.map({ !properties.isDisjoint(with: $0) }) ?? true { affected[slot] = true }
    }

    /// These assets split in two: those that may have changed their place or membership, and the slots (here)
    /// of the others, updated in place.
    func dividing() -> (affected: TouchedAssets, inPlace: [Int]) {
        var divided = TouchedAssets(journal: journal)
        var inPlace: [Int] = []
        for slot in ids.indices {
            guard affected[slot] else {
                inPlace.append(slot)
                continue
            }
            divided.slots.insert(ids[slot])
            divided.first.append(first[slot])
            divided.updated.append(updated[slot])
            divided.sortChanged.append(sortChanged[slot])
            divided.affected.append(true)
        }
        return (divided, inPlace)
    }

    private init(journal: JournalRecords) {
        self.journal = journal
    }

    /// The values of the columns at `indexes` (positions in ``AssetRow/journalColumns``) in the previous values
    /// of a touched asset's first record: its state at the interval's start. Nil when the record has none
    /// (an insertion) or they can't be read.
    ///
    /// - Complexity: one row read by primary key when the records' buffer didn't keep them.
    func previousValues(at indexes: [Int], slot: Int, _ db: Database) throws -> [DatabaseValue]? {
        if let range = first[slot].previousValues {
            return journal.previousValueBytes.withUnsafeBytes { buffer in
                PreviousValues.values(at: indexes, of: AssetRow.self, in: UnsafeRawBufferPointer(rebasing: buffer[range]))
            }
        }
        let query = try RawQuery(db, "SELECT previousValues FROM change_record WHERE seq = ? AND objectType = ? AND objectId = ?")
        var values: [DatabaseValue]?
        try query.forEachRow(first[slot].sequence, Int64(ObjectType.asset.rawValue), ids[slot]) { row in
            // sqlite3_column_blob before sqlite3_column_bytes; NULL and a zero-length blob have no pointer.
            guard let bytes = sqlite3_column_blob(row, 0) else { return }
            let buffer = UnsafeRawBufferPointer(start: bytes, count: Int(sqlite3_column_bytes(row, 0)))
            values = PreviousValues.values(at: indexes, of: AssetRow.self, in: buffer)
        }
        return values
    }
}
