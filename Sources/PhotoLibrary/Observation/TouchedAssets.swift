import Foundation
import GRDB
import LibraryStorage

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

    /// What the records say of one touched asset.
    struct Entry {
        /// Its first record in the interval.
        let first: First
        /// Whether it has an update record: its public properties changed.
        var updated = false
        /// Whether it has a record naming a property of the sort (every updated one when the sort isn't covered).
        var sortChanged = false
        /// Whether it may have changed its place or its membership: inserted, deleted, or updated in a property
        /// of the sort or of the condition (every one when they aren't covered).
        var affected = false
        /// Whether it has a record naming a property of the condition (every updated one when the condition
        /// isn't covered).
        var conditionChanged = false
        /// The index in the records of its last record in the interval.
        var last: Int
    }

    /// The records read.
    private let journal: JournalRecords

    /// The touched assets, in the order of their first record: their slots (what ``entries`` and the other
    /// steps' arrays are indexed by).
    private(set) var slots = IDSlots()
    /// What the records say of each, by slot (one array, not one per fact: a round allocates a few).
    private(set) var entries: [Entry] = []

    /// The touched assets' ids, by slot.
    var ids: [Int64] { slots.ids }

    /// The assets the records after `start`, up to the round's end, touch: from the records the round read
    /// when it read them all (`start` is not before the round's start), else from the journal.
    ///
    /// - Throws: ``IncrementalFetch/Unmaintainable`` when more than `limit` assets are touched.
    init(from start: Int64, round: RoundJournal, of fetch: IncrementalFetch, limit: Int, _ db: any SQLConnection) throws {
        if start >= round.start {
            journal = round.recorded
            let records = round.records(after: start, through: round.end)
            reserveCapacity(min(records.count, limit + 1))
            for index in records.indices where records[index].objectType == .asset {
                try add(records[index], at: index, of: fetch, limit: limit)
            }
        } else {
            journal = try ChangeJournal.records(after: start, through: round.end, of: .asset, db)
            reserveCapacity(min(journal.records.count, limit + 1))
            for (index, record) in journal.records.enumerated() { try add(record, at: index, of: fetch, limit: limit) }
        }
    }

    /// Adds the record at `index` of the records.
    private mutating func add(_ record: RoundRecord, at index: Int, of fetch: IncrementalFetch, limit: Int) throws {
        let (slot, isFirst) = slots.insert(record.objectID)
        if isFirst {
            guard slots.count <= limit else { throw IncrementalFetch.Unmaintainable() }
            entries.append(Entry(first: First(kind: record.kind, sequence: record.sequence, previousValues: record.previousValues), last: index))
        } else {
            entries[slot].last = index
        }
        guard record.kind == .updated else {
            entries[slot].affected = true
            return
        }
        entries[slot].updated = true
        let properties = AssetProperties(rawValue: record.changedProperties)
        if fetch.sortProperties.map({ !properties.isDisjoint(with: $0) }) ?? true { entries[slot].sortChanged = true }
        if fetch.relevantProperties.map({ !properties.isDisjoint(with: $0) }) ?? true { entries[slot].affected = true }
        if fetch.conditionProperties.map({ !properties.isDisjoint(with: $0) }) ?? true { entries[slot].conditionChanged = true }
    }

    /// These assets split in two: those that may have changed their place or membership, and the slots (here)
    /// of the others, updated in place.
    func dividing() -> (affected: TouchedAssets, inPlace: [Int]) {
        var divided = TouchedAssets(journal: journal, capacity: ids.count)
        var inPlace: [Int] = []
        inPlace.reserveCapacity(ids.count)
        for slot in ids.indices {
            guard entries[slot].affected else {
                inPlace.append(slot)
                continue
            }
            divided.slots.insert(ids[slot])
            divided.entries.append(entries[slot])
        }
        return (divided, inPlace)
    }

    private init(journal: JournalRecords, capacity: Int) {
        self.journal = journal
        reserveCapacity(capacity)
    }

    /// Room for `count` assets in every array (a few records a round: growing them one by one costs more).
    private mutating func reserveCapacity(_ count: Int) {
        slots = IDSlots(capacity: count)
        entries.reserveCapacity(count)
    }

    /// Whether a touched asset is gone at the interval's end: its last record is a deletion.
    func isDeletedAtEnd(slot: Int) -> Bool {
        journal.records[entries[slot].last].kind == .deleted
    }

    /// Whether a touched asset's row at the interval's end is known: its last record is an update that
    /// carries it (records handed off by their commits).
    func hasRowAtEnd(slot: Int) -> Bool {
        journal.hasRowAfter(record: entries[slot].last)
    }

    /// The value at a journal column of a touched asset's row at the interval's end, when it is known (see
    /// ``hasRowAtEnd(slot:)``). Only journaled columns are its state at the end: bookkeeping (`momentId`)
    /// may have moved since.
    func valueAtEnd(slot: Int, column: Int) -> DatabaseValue? {
        journal.valueAfter(record: entries[slot].last, column: column)
    }

    /// The values of the columns at `indexes` (positions in ``AssetRow/journalColumns``) in the previous values
    /// of a touched asset's first record: its state at the interval's start. Nil when the record has none
    /// (an insertion) or they can't be read.
    ///
    /// - Complexity: one row read by primary key when the records' buffer didn't keep them.
    func previousValues(at indexes: [Int], slot: Int, _ db: any SQLConnection) throws -> [DatabaseValue]? {
        let first = entries[slot].first
        if let range = first.previousValues {
            return journal.previousValueBytes.withUnsafeBytes { buffer in
                PreviousValues.values(at: indexes, of: AssetRow.self, in: UnsafeRawBufferPointer(rebasing: buffer[range]))
            }
        }
        guard let bytes = try ChangeJournal.previousValues(of: .asset, id: ids[slot], sequence: first.sequence, db),
            !bytes.isEmpty
        else { return nil }
        return bytes.withUnsafeBytes { buffer in PreviousValues.values(at: indexes, of: AssetRow.self, in: buffer) }
    }
}
