import Foundation
import GRDB
import GRDBSQLite
import LibraryStorage

extension ChangeJournal {
    /// Appends a committing block's transaction and its records, inside the block's write transaction: they
    /// become visible when, and only if, it commits.
    ///
    /// The transaction's sequence number is the one the engine gives it (`RETURNING seq`: AUTOINCREMENT on
    /// SQLite, an identity sequence on PostgreSQL). On PostgreSQL, numbers are drawn at insertion, not at
    /// commit: readers never skip one because every write transaction holds the engine's writer lock from its
    /// first statement (`PostgresEngine.writerLockKey`).
    ///
    /// - Returns: the transaction's sequence number.
    /// - Throws: the engine's error (the block then rolls back).
    /// - Complexity: one statement for the transaction and at most log₂ 32 + 1 distinct multi-row statements
    ///   for the records, prepared once per connection; on SQLite's fast path the records are bound through
    ///   the C API, their previous values without a copy.
    static func append(_ batch: JournalBatch, author: String, date: Double, stamp: Int64, _ db: any SQLConnection) throws -> Int64 {
        try batch.write(author: author, date: date, stamp: stamp, db)
    }
}

/// The kind of change the journal records for an object. Raw values are stored.
enum ChangeKind: Int, Sendable, Hashable {
    case inserted = 1
    case updated = 2
    case deleted = 3
}

/// One object's net change in one transaction, as journaled (and as read back by deliveries).
struct JournalRecord: Sendable, Hashable {
    let objectType: ObjectType
    let objectID: Int64
    let localIdentifier: String
    let kind: ChangeKind
    /// `AssetProperties` or `CollectionProperties` raw value.
    let changedProperties: Int
    let contentChanged: Bool
    /// The row before the change (updated and deleted), in the journal's encoding (``PreviousValues``).
    let previousValues: Data?
}

/// The records of one transaction, in the order added, with the previous values of all of them encoded into
/// one shared buffer; written with a few multi-row statements.
struct JournalBatch {
    /// The records, their previous values left out (`nil`): they are in the buffer, at ``previousValues``.
    private(set) var records: [JournalRecord] = []
    /// The range in the buffer of each record's previous values (updated and deleted objects).
    private var previousValues: [Range<Int>?] = []
    private var values: PreviousValues.Writer

    init(capacity: Int) {
        records.reserveCapacity(capacity)
        previousValues.reserveCapacity(capacity)
        values = PreviousValues.Writer(capacity: 64 * capacity)
    }

    var isEmpty: Bool { records.isEmpty }

    /// Records an object's net change from `old` (nil: created in the block) to `new` (nil: deleted), if it
    /// made one: an update that changes no public property (or membership) is not recorded.
    mutating func add<Row: JournaledObject>(_ type: ObjectType, id: Int64, old: Row?, new: Row?, membershipChanged: Bool) {
        if let new {
            add(type, id: id, old: old, new: new, membershipChanged: membershipChanged)
        } else if let old {
            add(type, id: id, deleted: old)
        }  // Else created and deleted in the same block: nothing.
    }

    /// Records an object's insertion (`old` nil: created in the block) or update to `new`, if it made one: an
    /// update that changes no public property (or membership) is not recorded.
    ///
    /// The rows are read in place: a tuple of the two, or an optional made of `new`, would copy an asset's
    /// row, strings and all, for every record of a commit.
    mutating func add<Row: JournaledObject>(_ type: ObjectType, id: Int64, old: Row?, new: Row, membershipChanged: Bool) {
        var properties = 0
        var contentChanged = false
        if old != nil {
            (properties, contentChanged) = new.journaledChanges(since: old!)
            if membershipChanged { properties |= CollectionProperties.membership.rawValue }
            guard properties != 0 else { return }  // Bookkeeping only: invisible.
        }
        records.append(JournalRecord(
            objectType: type, objectID: id, localIdentifier: new.localIdentifier, kind: old == nil ? .inserted : .updated,
            changedProperties: properties, contentChanged: contentChanged, previousValues: nil))
        previousValues.append(old == nil ? nil : values.append(old!))
    }

    /// Records an object's deletion; `old` is its row before the block.
    mutating func add<Row: JournaledObject>(_ type: ObjectType, id: Int64, deleted old: Row) {
        records.append(JournalRecord(
            objectType: type, objectID: id, localIdentifier: old.localIdentifier, kind: .deleted,
            changedProperties: 0, contentChanged: false, previousValues: nil))
        previousValues.append(values.append(old))
    }

    /// The records as a delivery round reads them from the journal (``JournalRecords``): in the order of the
    /// journal's primary key (type, then id), with the previous values of assets only, in this batch's buffer;
    /// and with the row each asset update left (from `afterAssets`: the rows as the block left them, which
    /// the journal's records were made from).
    ///
    /// - Complexity: O(*r*) for *r* records (O(*r* log *r*) should they have been added out of that order).
    func roundRecords(sequence: Int64, afterAssets: [Int64: AssetRow]) -> JournalRecords {
        var order = Array(records.indices)
        func key(_ index: Int) -> (Int, Int64) { (records[index].objectType.rawValue, records[index].objectID) }
        if !zip(order, order.dropFirst()).allSatisfy({ key($0) < key($1) }) { order.sort { key($0) < key($1) } }
        var round: [RoundRecord] = []
        var rowsAfter: [JournalRecords.RowAfter?] = []
        round.reserveCapacity(records.count)
        rowsAfter.reserveCapacity(records.count)
        for index in order {
            let record = records[index]
            let isAsset = record.objectType == .asset
            round.append(RoundRecord(
                sequence: sequence, objectType: record.objectType, objectID: record.objectID, kind: record.kind,
                changedProperties: record.changedProperties, contentChanged: record.contentChanged,
                previousValues: isAsset ? previousValues[index] : nil))
            rowsAfter.append(isAsset && record.kind == .updated ? afterAssets[record.objectID].map(JournalRecords.RowAfter.init) : nil)
        }
        return JournalRecords(records: round, previousValueBytes: values.bytes, rowsAfter: rowsAfter)
    }

    /// The most rows one INSERT statement writes.
    static let rowsPerStatement = 32

    /// `INSERT INTO change_record … VALUES (…), (…)` for 1, 2, 4, … ``rowsPerStatement`` rows: a batch is
    /// written by the largest that fit, so a transaction uses at most log₂ 32 + 1 distinct statements, each
    /// prepared once per connection.
    private static let insertSQL: [Int: String] = {
        let row = "(" + Array(repeating: "?", count: 8).joined(separator: ",") + ")"
        var statements: [Int: String] = [:]
        var count = 1
        while count <= rowsPerStatement {
            statements[count] = """
                INSERT INTO change_record (seq, objectType, objectId, localIdentifier, kind, changedProperties, contentChanged, previousValues)
                VALUES \(Array(repeating: row, count: count).joined(separator: ","))
                """
            count *= 2
        }
        return statements
    }()

    /// Inserts the transaction and its records (see ``ChangeJournal/append(_:author:date:stamp:_:)``).
    fileprivate func write(author: String, date: Double, stamp: Int64, _ db: any SQLConnection) throws -> Int64 {
        let sequence = try Self.insertTransaction(author: author, date: date, stamp: stamp, db)
        try values.bytes.withUnsafeBytes { buffer in
            var start = 0
            while start < records.count {
                var size = Self.rowsPerStatement
                while size > records.count - start { size /= 2 }
                let rows = start..<(start + size)
                if let sqlite = db.sqliteDatabase {
                    try insertPrepared(rows, sequence: sequence, previousValues: buffer, sqlite)
                } else {
                    try db.execute(sql: Self.insertSQL[rows.count]!, arguments: arguments(rows, sequence: sequence, previousValues: buffer))
                }
                start += size
            }
        }
        return sequence
    }

    /// Inserts the transaction's row; returns its sequence number. On SQLite's fast path through the C API,
    /// the number being the row's rowid (`seq` is its `INTEGER PRIMARY KEY`); elsewhere `RETURNING seq`.
    private static func insertTransaction(author: String, date: Double, stamp: Int64, _ db: any SQLConnection) throws -> Int64 {
        let insert = "INSERT INTO change_transaction (author, date, stamp) VALUES (?, ?, ?)"
        if let sqlite = db.sqliteDatabase {
            let statement = try sqlite.cachedStatement(sql: insert)
            try statement.executeBinding(parameterCount: 3) { statement in
                sqlite3_bind_text(statement, 1, author, -1, sqliteTransient)
                sqlite3_bind_double(statement, 2, date)
                sqlite3_bind_int64(statement, 3, stamp)
            }
            return sqlite.lastInsertedRowID
        }
        guard let sequence = try db.fetchRepeatedValue(Int64.self, sql: insert + " RETURNING seq", arguments: [author, date, stamp])
        else {
            throw PhotoLibraryError.database(code: -1, message: "the journal's new transaction has no sequence number")
        }
        return sequence
    }

    /// The values of the records at `rows`, in the order of ``insertSQL``: the generic twin of
    /// ``insertPrepared(_:sequence:previousValues:_:)``.
    private func arguments(_ rows: Range<Int>, sequence: Int64, previousValues buffer: UnsafeRawBufferPointer) -> StatementArguments {
        var values: [DatabaseValue] = []
        values.reserveCapacity(8 * rows.count)
        for (record, previous) in zip(records[rows], previousValues[rows]) {
            values += [
                sequence.databaseValue, record.objectType.rawValue.databaseValue, record.objectID.databaseValue,
                record.localIdentifier.databaseValue, record.kind.rawValue.databaseValue,
                record.changedProperties.databaseValue, (record.contentChanged ? 1 : 0).databaseValue,
                previous.map { Data(buffer[$0]).databaseValue } ?? .null,
            ]
        }
        return StatementArguments(values)
    }

    /// Inserts the records at `rows` with one statement of as many rows, prepared once per connection.
    ///
    /// The records' values are bound through SQLite's C API: building GRDB arguments for a hundred rows costs
    /// as much as inserting them. The statements still run through GRDB, which tracks what they write.
    private func insertPrepared(
        _ rows: Range<Int>, sequence: Int64, previousValues buffer: UnsafeRawBufferPointer, _ db: Database
    ) throws {
        let statement = try db.cachedStatement(sql: Self.insertSQL[rows.count]!)
        // The blobs are bound without a copy: `previousValues` outlives the statement's run, and the bindings
        // are cleared after it; so are the texts, from one buffer.
        let texts = StaticTexts(capacity: records[rows].reduce(0) { $0 + $1.localIdentifier.utf8.count })
        try statement.executeBinding(parameterCount: 8 * rows.count, clearingBindings: true) { sqlite in
            var parameter: Int32 = 1
            for (record, previous) in zip(records[rows], previousValues[rows]) {
                sqlite3_bind_int64(sqlite, parameter, sequence)
                sqlite3_bind_int64(sqlite, parameter + 1, Int64(record.objectType.rawValue))
                sqlite3_bind_int64(sqlite, parameter + 2, record.objectID)
                texts.bind(record.localIdentifier, to: sqlite, at: parameter + 3)
                sqlite3_bind_int64(sqlite, parameter + 4, Int64(record.kind.rawValue))
                sqlite3_bind_int64(sqlite, parameter + 5, Int64(record.changedProperties))
                sqlite3_bind_int64(sqlite, parameter + 6, record.contentChanged ? 1 : 0)
                if let range = previous {
                    sqlite3_bind_blob(sqlite, parameter + 7, buffer.baseAddress! + range.lowerBound, Int32(range.count), nil)
                } else {
                    sqlite3_bind_null(sqlite, parameter + 7)
                }
                parameter += 8
            }
        }
    }
}
