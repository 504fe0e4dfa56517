import GRDB
import GRDBSQLite

/// A journal record as a delivery round reads it: no identifier, no previous values (read when needed).
struct RoundRecord: Sendable {
    let sequence: Int64
    let objectType: ObjectType
    let objectID: Int64
    let kind: ChangeKind
    /// `AssetProperties` or `CollectionProperties` raw value.
    let changedProperties: Int
    let contentChanged: Bool
}

/// What a delivery round reads of the journal after the last delivery: the transactions and their records,
/// in one read transaction, through SQLite's C API.
struct RoundJournal: Sendable {
    /// The journal position the round reads up to (the last transaction's sequence).
    let end: Int64
    /// The position below which records may have been pruned (`change_journal.floor`).
    let floor: Int64
    /// The position the round reads from: its records are those of the transactions after it.
    let start: Int64
    private(set) var transactions: [(sequence: Int64, author: String, date: Double)] = []
    /// Every record of ``transactions``, in their order.
    private(set) var records: [RoundRecord] = []

    /// Reads the journal after `start`; nil when nothing was committed since.
    init?(after start: Int64, _ db: Database) throws {
        var position: (end: Int64, floor: Int64)?
        try RawQuery(db, """
            SELECT (SELECT seq FROM sqlite_sequence WHERE name = 'change_transaction'),
                   (SELECT floor FROM change_journal WHERE id = 1)
            """).forEachRow { row in position = (sqlite3_column_int64(row, 0), sqlite3_column_int64(row, 1)) }
        guard let position, position.end > start else { return nil }
        (end, floor, self.start) = (position.end, position.floor, start)
        try RawQuery(db, "SELECT seq, author, date FROM change_transaction WHERE seq > ? AND seq <= ? ORDER BY seq")
            .forEachRow(start, end) { row in
                transactions.append((sqlite3_column_int64(row, 0), RawQuery.text(row, 1), sqlite3_column_double(row, 2)))
            }
        guard !transactions.isEmpty else { return nil }
        try Self.records(after: start, through: end, db) { records.append($0) }
    }

    /// Calls `body` with the records in (`start`, `end`], of assets only when `type` is given, in order.
    static func records(
        after start: Int64, through end: Int64, of type: ObjectType? = nil, _ db: Database, _ body: (RoundRecord) throws -> Void
    ) throws {
        // `+objectType`: the interval through the primary key, not every record of the type through the index.
        let query = try RawQuery(db, """
            SELECT seq, objectType, objectId, kind, changedProperties, contentChanged FROM change_record
            WHERE seq > ? AND seq <= ? AND (? = 0 OR +objectType = ?) ORDER BY seq
            """)
        let typeArgument = Int64(type?.rawValue ?? 0)
        try query.forEachRow(start, end, typeArgument, typeArgument) { row in
            guard let type = ObjectType(rawValue: Int(sqlite3_column_int64(row, 1))),
                let kind = ChangeKind(rawValue: Int(sqlite3_column_int64(row, 3)))
            else { return }
            try body(RoundRecord(
                sequence: sqlite3_column_int64(row, 0), objectType: type, objectID: sqlite3_column_int64(row, 2), kind: kind,
                changedProperties: Int(sqlite3_column_int64(row, 4)), contentChanged: sqlite3_column_int64(row, 5) != 0))
        }
    }

    /// The records of the transactions in (`start`, `end`], which must not begin before the round's start.
    ///
    /// - Complexity: O(log *r*) for *r* records.
    func records(after start: Int64, through end: Int64) -> ArraySlice<RoundRecord> {
        precondition(start >= self.start, "records before the round's start weren't read")
        return records[firstRecord(after: start)..<firstRecord(after: end)]
    }

    /// The index of the first record of a transaction after `sequence`.
    private func firstRecord(after sequence: Int64) -> Int {
        var low = 0
        var high = records.count
        while low < high {
            let middle = (low + high) / 2
            if records[middle].sequence <= sequence { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
