import Foundation
import GRDB

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
        let statement = try db.cachedStatement(sql: """
            SELECT objectId, kind, changedProperties, previousValues FROM change_record
            WHERE seq > ? AND seq <= ? AND +objectType = ? ORDER BY seq
            """)
        let records = try Row.fetchCursor(statement, arguments: [start, end, ObjectType.asset.rawValue])
        while let row = try records.next() {
            let id: Int64 = row[0]
            guard let kind = ChangeKind(rawValue: row[1]) else { throw IncrementalFetch.Unmaintainable() }
            if first[id] == nil {
                guard ids.count < limit else { throw IncrementalFetch.Unmaintainable() }
                ids.append(id)
                first[id] = First(kind: kind, previousValues: row[3])
            }
            if kind == .updated {
                updated.insert(id)
                let properties = AssetProperties(rawValue: row[2])
                if sortProperties.map({ !properties.isDisjoint(with: $0) }) ?? true { sortChanged.insert(id) }
            }
        }
    }
}
