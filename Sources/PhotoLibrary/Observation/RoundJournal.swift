import Foundation
import GRDB
import LibraryStorage

/// A journal record as a delivery round reads it: no identifier; an asset's previous values are in its
/// ``JournalRecords``' buffer.
struct RoundRecord: Sendable {
    let sequence: Int64
    let objectType: ObjectType
    let objectID: Int64
    let kind: ChangeKind
    /// `AssetProperties` or `CollectionProperties` raw value.
    let changedProperties: Int
    let contentChanged: Bool
    /// Where the previous values of an updated or deleted asset are in the buffer; nil for other records, and
    /// once the buffer is full (they are then read by primary key when needed).
    let previousValues: Range<Int>?
}

/// Journal records in the order of their transactions, as ``ChangeJournal/records(after:through:of:_:)`` reads
/// them or a commit hands them off, with the previous values of assets copied into one buffer.
struct JournalRecords: Sendable {
    private(set) var records: [RoundRecord] = []
    private(set) var previousValueBytes: [UInt8] = []
    /// With records handed off by their commits (``JournalHandOff``): the row each asset update left, parallel
    /// to ``records`` (nil for other records). Empty when the records were read from the journal, which
    /// doesn't keep rows after a change.
    private(set) var rowsAfter: [RowAfter?] = []

    /// An asset's row after an update, held by reference: a round checks and reads rows without copying them.
    final class RowAfter: Sendable {
        let row: AssetRow

        init(_ row: AssetRow) {
            self.row = row
        }

        /// The value at a journal column (``AssetRow/journalColumns``), read in place: reading `row` through
        /// the reference copies the whole row (a retain and a release of each of its strings, whose memory a
        /// round after a commit finds cold).
        func journalValue(at column: Int) -> DatabaseValue {
            row.journalValue(at: column)
        }
    }

    /// The most bytes of previous values kept: a round of that many changes is far beyond the incremental
    /// path's reach anyway.
    static let bufferLimit = 4 << 20

    /// No records yet, with room for `bytes` of previous values (records read from the journal are appended:
    /// ``ChangeJournal/records(after:through:of:_:)``).
    init(reservingBytes bytes: Int) {
        previousValueBytes.reserveCapacity(bytes)
    }

    /// Appends a record read from the journal; an asset's previous values are copied into the buffer (see
    /// ``bufferLimit``), other types' are not kept.
    mutating func append(
        sequence: Int64, objectType: ObjectType, objectID: Int64, kind: ChangeKind, changedProperties: Int,
        contentChanged: Bool, previousValues: Data?
    ) {
        records.append(RoundRecord(
            sequence: sequence, objectType: objectType, objectID: objectID, kind: kind,
            changedProperties: changedProperties, contentChanged: contentChanged,
            previousValues: objectType == .asset ? keep(previousValues) : nil))
    }

    /// Records made in memory (a commit's, handed to the rounds: see ``JournalHandOff``), in the order a read
    /// gives them (by transaction, then object type, then id); `previousValueBytes` holds the ranges they name.
    init(records: [RoundRecord], previousValueBytes: [UInt8], rowsAfter: [RowAfter?]) {
        precondition(rowsAfter.count == records.count, "a row, or nil, for every record")
        self.records = records
        self.previousValueBytes = previousValueBytes
        self.rowsAfter = rowsAfter
    }

    /// Whether the row an asset's update at `index` of ``records`` left is known (false for records read from
    /// the journal, and for records that aren't an asset's update).
    func hasRowAfter(record index: Int) -> Bool {
        !rowsAfter.isEmpty && rowsAfter[index] != nil
    }

    /// The value at a journal column (``AssetRow/journalColumns``) of the row the update at `index` of
    /// ``records`` left; nil when the row isn't known. Read in place: the row isn't copied.
    func valueAfter(record index: Int, column: Int) -> DatabaseValue? {
        rowsAfter.isEmpty ? nil : rowsAfter[index]?.journalValue(at: column)
    }

    /// Appends the records of later transactions, their previous values with them.
    ///
    /// - Complexity: O(*r* + *b*) for *r* records and *b* bytes of previous values appended.
    mutating func append(_ later: JournalRecords) {
        // The rows after are known for all the records or for none.
        if rowsAfter.count == records.count, later.rowsAfter.count == later.records.count {
            rowsAfter.append(contentsOf: later.rowsAfter)
        } else {
            rowsAfter = []
        }
        let offset = previousValueBytes.count
        previousValueBytes.append(contentsOf: later.previousValueBytes)
        records.reserveCapacity(records.count + later.records.count)
        for record in later.records {
            records.append(RoundRecord(
                sequence: record.sequence, objectType: record.objectType, objectID: record.objectID, kind: record.kind,
                changedProperties: record.changedProperties, contentChanged: record.contentChanged,
                previousValues: record.previousValues.map { ($0.lowerBound + offset)..<($0.upperBound + offset) }))
        }
    }

    /// Copies previous values into the buffer, if there are (NULL and empty are none) and room for them.
    private mutating func keep(_ bytes: Data?) -> Range<Int>? {
        guard let bytes, !bytes.isEmpty, previousValueBytes.count + bytes.count <= Self.bufferLimit else { return nil }
        let start = previousValueBytes.count
        previousValueBytes.append(contentsOf: bytes)
        return start..<previousValueBytes.count
    }

    /// The index of the first record of a transaction after `sequence`.
    ///
    /// - Complexity: O(log *r*) for *r* records.
    func firstRecord(after sequence: Int64) -> Int {
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle].sequence <= sequence { low = middle + 1 } else { high = middle }
        }
        return low
    }
}

/// What a delivery round reads of the journal after the last delivery: the transactions and their records,
/// in one read transaction (``ChangeJournal/transactionsAndFloor(after:_:)``, then the records from the
/// hand-off or ``ChangeJournal/records(after:through:of:_:)``).
struct RoundJournal: Sendable {
    /// The journal position the round reads up to (the last transaction's sequence).
    let end: Int64
    /// The position below which records may have been pruned (`change_journal.floor`).
    let floor: Int64
    /// The position the round reads from: its records are those of the transactions after it.
    let start: Int64
    let transactions: [JournalTransaction]
    /// Every record of ``transactions``.
    let recorded: JournalRecords

    /// Reads the journal after `start`; nil when nothing was committed since. The records are taken from
    /// `handOff` when it holds every transaction of the interval as the journal holds it (see
    /// ``JournalHandOff``), else read.
    init?(after start: Int64, handOff: JournalHandOff? = nil, _ db: any SQLConnection) throws {
        // One statement: the transactions after `start` (the newest is never pruned: the last is the journal's
        // end) and the floor.
        let (transactions, floor) = try ChangeJournal.transactionsAndFloor(after: start, db)
        guard let last = transactions.last else { return nil }
        (end, self.floor, self.start) = (last.sequence, floor, start)
        self.transactions = transactions
        // The transactions are always the journal's. Their records come from the hand-off when it holds them
        // all as the journal does: none pruned (up to the floor they may be), none written since by anyone
        // but their commit.
        if start >= floor, let held = handOff?.interval(after: start, through: end), held.transactions == transactions {
            recorded = held.records
        } else {
            recorded = try ChangeJournal.records(after: start, through: end, db)
        }
    }

    /// The journal after `start` as this handle's commits handed it off, when nothing was committed since the
    /// newest of them and the wal-index header shows it (``JournalHandOff/memoryRound(after:current:)``): no
    /// read at all. No transactions when nothing was committed after `start`; nil when that can't be known.
    init?(memoryAfter start: Int64, handOff: JournalHandOff, current: WALIndexHeader) {
        guard let round = handOff.memoryRound(after: start, current: current) else { return nil }
        (end, floor, self.start) = (round.end, round.floor, start)
        (transactions, recorded) = (round.transactions, round.records)
    }

    /// The records of the transactions in (`start`, `end`], which must not begin before the round's start.
    ///
    /// - Complexity: O(log *r*) for *r* records.
    func records(after start: Int64, through end: Int64) -> ArraySlice<RoundRecord> {
        precondition(start >= self.start, "records before the round's start weren't read")
        return recorded.records[recorded.firstRecord(after: start)..<recorded.firstRecord(after: end)]
    }
}
