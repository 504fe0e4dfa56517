import Foundation
import GRDB
import LibraryStorage

/// Reading ranges of the journal: the transactions and records after a position, for the history's readers
/// (``PersistentChangeFetchResult``), the delivery rounds (``RoundJournal``, ``TouchedAssets``, the
/// observation center) and fetches that rebuild objects as they were at a position.
///
/// Ranges are half-open at their start: (`start`, `end`]. Rows with an object type or kind this version
/// doesn't know are skipped.
extension ChangeJournal {
    // MARK: Transactions

    /// Up to `limit` transactions in (`sequence`, `end`], oldest first.
    ///
    /// - Throws: the engine's error.
    /// - Complexity: one cached statement, O(`limit`).
    static func transactions(
        after sequence: Int64, through end: Int64, limit: Int, _ db: any SQLConnection
    ) throws -> [JournalTransaction] {
        var transactions: [JournalTransaction] = []
        try db.forEachRow(
            sql: "SELECT \(JournalTransaction.columns) FROM change_transaction WHERE seq > ? AND seq <= ? ORDER BY seq LIMIT ?",
            arguments: [sequence, end, limit], cached: true
        ) { columns in
            transactions.append(JournalTransaction(columns: columns))
            return true
        }
        return transactions
    }

    /// Up to `limit` transactions after `sequence`, oldest first, leaving out those by `excludedAuthors`.
    ///
    /// - Throws: the engine's error.
    static func transactions(
        after sequence: Int64, excludingAuthors excludedAuthors: Set<String>, limit: Int, _ db: any SQLConnection
    ) throws -> [JournalTransaction] {
        let filter = authorFilter(excluding: excludedAuthors)
        var rows: [JournalTransaction] = []
        try db.forEachRow(
            sql: "SELECT \(JournalTransaction.columns) FROM change_transaction WHERE seq > ?\(filter.sql) ORDER BY seq LIMIT ?",
            arguments: StatementArguments([sequence]) + filter.arguments + [limit], cached: false
        ) { columns in
            rows.append(JournalTransaction(columns: columns))
            return true
        }
        return rows
    }

    /// Every transaction after `start`, oldest first, and the floor, read by one statement (through SQLite's
    /// C API on its fast path): what a delivery round starts with. The newest transaction is never expired,
    /// so the list is empty only when nothing was committed after `start`.
    ///
    /// - Throws: the engine's error.
    static func transactionsAndFloor(
        after start: Int64, _ db: any SQLConnection
    ) throws -> (transactions: [JournalTransaction], floor: Int64) {
        var transactions: [JournalTransaction] = []
        var floor: Int64 = 0
        try RawQuery.forEachRow(db, """
            SELECT \(JournalTransaction.columns), (SELECT floor FROM change_journal WHERE id = 1) AS journalFloor
            FROM change_transaction WHERE seq > ? ORDER BY seq
            """, [start]) { row in
            transactions.append(JournalTransaction(sequence: row.int64(0), author: row.text(1), date: row.double(2), stamp: row.int64(3)))
            floor = row.int64(4)
        }
        return (transactions, floor)
    }

    // MARK: Records

    /// Calls `body` with each record of the transactions in [`first`, `last`]: its transaction's sequence,
    /// its object's type and identifier, its kind and changed properties (in no particular order).
    ///
    /// - Throws: the engine's error.
    static func forEachRecord(
        from first: Int64, through last: Int64, _ db: any SQLConnection,
        _ body: (_ sequence: Int64, ObjectType, _ localIdentifier: String, ChangeKind, _ changedProperties: Int) -> Void
    ) throws {
        try db.forEachRow(
            sql: "SELECT seq, objectType, localIdentifier, kind, changedProperties FROM change_record WHERE seq >= ? AND seq <= ?",
            arguments: [first, last], cached: true
        ) { row in
            guard let type = ObjectType(rawValue: Int(row.int64(1))), let kind = ChangeKind(rawValue: Int(row.int64(3))) else {
                return true
            }
            body(row.int64(0), type, row.text(2), kind, Int(row.int64(4)))
            return true
        }
    }

    /// Calls `body` with each record in (`start`, `end`], in the order of their transactions, with its
    /// transaction's author and date.
    ///
    /// - Throws: the engine's error.
    static func forEachRecordWithAuthor(
        after start: Int64, through end: Int64, _ db: any SQLConnection,
        _ body: (ObjectType, _ localIdentifier: String, ChangeKind, _ changedProperties: Int, _ author: String, _ date: Double) -> Void
    ) throws {
        try db.forEachRow(
            sql: """
                SELECT r.objectType, r.localIdentifier, r.kind, r.changedProperties, t.author, t.date FROM change_record r
                JOIN change_transaction t ON t.seq = r.seq
                WHERE r.seq > ? AND r.seq <= ? ORDER BY r.seq
                """,
            arguments: [start, end], cached: false
        ) { row in
            guard let type = ObjectType(rawValue: Int(row.int64(0))), let kind = ChangeKind(rawValue: Int(row.int64(2))) else {
                return true
            }
            body(type, row.text(1), kind, Int(row.int64(3)), row.text(4), row.double(5))
            return true
        }
    }

    /// The records in (`start`, `end`] (of one type when `type` is given) as a delivery round reads them, in
    /// the order of their transactions, then object type and id; assets' previous values copied into the
    /// result's buffer (through SQLite's C API on its fast path).
    ///
    /// - Throws: the engine's error.
    static func records(
        after start: Int64, through end: Int64, of type: ObjectType? = nil, _ db: any SQLConnection
    ) throws -> JournalRecords {
        let columns = "SELECT seq, objectType, objectId, kind, changedProperties, contentChanged, previousValues FROM change_record"
        // `+objectType`: the interval through the primary key, not every record of the type through the index
        // (SQLite's planner; PostgreSQL reads it as the column).
        let sql = type == nil
            ? "\(columns) WHERE seq > ? AND seq <= ? ORDER BY seq, objectType, objectId"
            : "\(columns) WHERE seq > ? AND seq <= ? AND +objectType = ? ORDER BY seq, objectType, objectId"
        let arguments = [start, end] + (type.map { [Int64($0.rawValue)] } ?? [])
        var recorded = JournalRecords(reservingBytes: 4096)  // A few dozen assets' values without growing.
        try RawQuery.forEachRow(db, sql, arguments) { row in
            guard let type = ObjectType(rawValue: Int(row.int64(1))), let kind = ChangeKind(rawValue: Int(row.int64(3))) else { return }
            recorded.append(
                sequence: row.int64(0), objectType: type, objectID: row.int64(2), kind: kind,
                changedProperties: Int(row.int64(4)), contentChanged: row.int64(5) != 0,
                previousValues: type == .asset ? row.blob(6) : nil)
        }
        return recorded
    }

    /// Calls `body` with the transaction's sequence and the object's id of each update of an object of
    /// `type` in (`start`, `end`], ordered by both (through SQLite's C API on its fast path).
    ///
    /// - Throws: the engine's error.
    static func forEachUpdate(
        of type: ObjectType, after start: Int64, through end: Int64, _ db: any SQLConnection,
        _ body: (_ sequence: Int64, _ objectID: Int64) -> Void
    ) throws {
        // `+objectType`: through the primary key's range of `seq`, not every record of the type.
        try RawQuery.forEachRow(
            db, "SELECT seq, objectId FROM change_record WHERE +objectType = ? AND kind = 2 AND seq > ? AND seq <= ? ORDER BY seq, objectId",
            [Int64(type.rawValue), start, end]
        ) { row in
            body(row.int64(0), row.int64(1))
        }
    }

    // MARK: Objects as they were

    /// The previous values (``PreviousValues``' encoding) the record of `objectID` in transaction `sequence`
    /// holds; nil when there is no such record or it holds none.
    ///
    /// - Throws: the engine's error.
    /// - Complexity: one row read by primary key.
    static func previousValues(
        of type: ObjectType, id objectID: Int64, sequence: Int64, _ db: any SQLConnection
    ) throws -> Data? {
        var bytes: Data?
        try RawQuery.forEachRow(
            db, "SELECT previousValues FROM change_record WHERE seq = ? AND objectType = ? AND objectId = ?",
            [sequence, Int64(type.rawValue), objectID]
        ) { row in
            bytes = row.blob(0)
        }
        return bytes
    }

    /// Calls `body` with each object among `idList` (ids of `type`, comma-separated) changed after
    /// `sequence`, and the previous values of its first change after it: its state at `sequence` (nil for an
    /// object inserted since).
    ///
    /// - Throws: the engine's error.
    static func forEachFirstChange(
        of type: ObjectType, among idList: String, after sequence: Int64, _ db: any SQLConnection,
        _ body: (_ objectID: Int64, _ previousValues: Data?) -> Void
    ) throws {
        // Each object's first change after the position: its lowest sequence (DISTINCT ON's portable form).
        try db.forEachRow(
            sql: """
                SELECT r.objectId, r.previousValues FROM change_record r
                WHERE r.objectType = ? AND r.seq > ? AND r.objectId IN (\(idList))
                  AND r.seq = (SELECT min(f.seq) FROM change_record f
                               WHERE f.objectType = r.objectType AND f.objectId = r.objectId AND f.seq > ?)
                """,
            arguments: [type.rawValue, sequence, sequence], cached: false
        ) { columns in
            body(columns.int64(0), columns.blob(1))
            return true
        }
    }

    /// Those of `identifiers` that a change after `sequence` names.
    ///
    /// - Throws: the engine's error.
    /// - Complexity: one statement; bind at most ``PhotoLibrary/parameterChunk`` identifiers per call.
    static func changedLocalIdentifiers(
        _ identifiers: ArraySlice<String>, after sequence: Int64, _ db: any SQLConnection
    ) throws -> [String] {
        let marks = Array(repeating: "?", count: identifiers.count).joined(separator: ", ")
        return try db.fetchValues(
            String.self,
            sql: "SELECT DISTINCT localIdentifier FROM change_record WHERE seq > ? AND localIdentifier IN (\(marks))",
            arguments: StatementArguments([sequence.databaseValue] + identifiers.map(\.databaseValue)))
    }
}
