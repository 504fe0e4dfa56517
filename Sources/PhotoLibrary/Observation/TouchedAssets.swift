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

    /// The touched assets, in the order of their first record.
    private(set) var ids: [Int64] = []
    private(set) var first: [Int64: First] = [:]
    /// Assets with an update record: their public properties changed.
    private(set) var updated: Set<Int64> = []
    /// Assets whose records name a property of the sort (all updated ones when the sort isn't covered).
    private(set) var sortChanged: Set<Int64> = []

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
            let id = sqlite3_column_int64(sqlite, 0)
            guard let kind = ChangeKind(rawValue: Int(sqlite3_column_int64(sqlite, 1))) else { throw IncrementalFetch.Unmaintainable() }
            if first[id] == nil {
                guard ids.count < limit else { throw IncrementalFetch.Unmaintainable() }
                ids.append(id)
                first[id] = First(kind: kind, previousValues: Self.blob(sqlite, 3))
            }
            if kind == .updated {
                updated.insert(id)
                let properties = AssetProperties(rawValue: Int(sqlite3_column_int64(sqlite, 2)))
                if sortProperties.map({ !properties.isDisjoint(with: $0) }) ?? true { sortChanged.insert(id) }
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
