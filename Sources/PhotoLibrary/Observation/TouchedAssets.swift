import Foundation
import GRDB
import GRDBSQLite

/// Step 1 of ``IncrementalFetch``: the assets the journal's records in an interval touch, each with its first
/// record in the interval (which holds the asset's state at the interval's start).
struct TouchedAssets {
    /// The first record of an asset in the interval.
    struct First {
        let kind: ChangeKind
        /// Its previous values (updated and deleted assets), in the journal's encoding.
        let previousValues: Data?
    }

    /// The touched assets, in the order of their first record: their slots (what the arrays below and the
    /// other steps' arrays are indexed by).
    private(set) var slots = IDSlots()
    /// The first record of each.
    private(set) var first: [First] = []
    /// Whether each has an update record: its public properties changed.
    private(set) var updated: [Bool] = []
    /// Whether each has a record naming a property of the sort (every updated one when the sort isn't covered).
    private(set) var sortChanged: [Bool] = []

    /// The touched assets' ids, by slot.
    var ids: [Int64] { slots.ids }

    /// Reads the asset records in (`start`, `end`].
    ///
    /// - Throws: ``IncrementalFetch/Unmaintainable`` when more than `limit` assets are touched.
    init(from start: Int64, through end: Int64, sortProperties: AssetProperties?, limit: Int, _ db: Database) throws {
        // `+objectType`: read the interval through the primary key, not every asset record through the index
        // on object type.
        let records = try RawQuery(db, """
            SELECT objectId, kind, changedProperties, previousValues FROM change_record
            WHERE seq > ? AND seq <= ? AND +objectType = ? ORDER BY seq
            """)
        // Read through SQLite's C API (GRDB's rows and cursors cost more than reading the columns).
        try records.forEachRow(start, end, Int64(ObjectType.asset.rawValue)) { sqlite in
            guard let kind = ChangeKind(rawValue: Int(sqlite3_column_int64(sqlite, 1))) else { throw IncrementalFetch.Unmaintainable() }
            let (slot, isFirst) = slots.insert(sqlite3_column_int64(sqlite, 0))
            if isFirst {
                guard slots.count <= limit else { throw IncrementalFetch.Unmaintainable() }
                first.append(First(kind: kind, previousValues: Self.blob(sqlite, 3)))
                updated.append(false)
                sortChanged.append(false)
            }
            if kind == .updated {
                updated[slot] = true
                let properties = AssetProperties(rawValue: Int(sqlite3_column_int64(sqlite, 2)))
                if sortProperties.map({ !properties.isDisjoint(with: $0) }) ?? true { sortChanged[slot] = true }
            }
        }
    }

    /// A blob column of the current row, or nil when NULL.
    private static func blob(_ sqlite: SQLiteStatement, _ column: Int32) -> Data? {
        guard sqlite3_column_type(sqlite, column) != SQLITE_NULL else { return nil }
        // sqlite3_column_blob before sqlite3_column_bytes; a zero-length blob has no pointer.
        guard let bytes = sqlite3_column_blob(sqlite, column) else { return Data() }
        return Data(bytes: bytes, count: Int(sqlite3_column_bytes(sqlite, column)))
    }
}
