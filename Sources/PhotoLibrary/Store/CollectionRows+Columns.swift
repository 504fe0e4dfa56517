import LibraryStorage

// Collection and list rows read by position, from queries that name their columns in this order: a change
// block reads the touched ones again and again (each moment it maintains, each collection the journal
// records), and looking each column up by name in a GRDB row cost more than SQLite's read of the row.

extension AssetCollectionRow {
    /// The columns of `asset_collection`, in the order of ``init(columns:)``.
    static let columnList =
        "id, localIdentifier, type, subtype, title, startDate, endDate, assetCount, latitude, longitude, momentDay, locatedCount, createdAt"

    /// The row of the collection with this id, read by position through a raw query (``RawQuery``: its SQL
    /// is used nowhere else); nil when there is none.
    ///
    /// - Throws: the engine's error.
    static func fetch(id: Int64, _ db: any SQLConnection) throws -> AssetCollectionRow? {
        var found: AssetCollectionRow?
        try RawQuery.forEachRow(db, byID, [id]) { found = AssetCollectionRow(columns: $0) }
        return found
    }

    private static let byID = "SELECT \(columnList) FROM asset_collection WHERE id = ?"

    /// The row from a query's columns in the order of ``columnList``.
    init(columns row: any SQLColumns) {
        id = row.int64(0)
        localIdentifier = row.text(1)
        type = Int(row.int64(2))
        subtype = Int(row.int64(3))
        title = row.optionalText(4)
        startDate = row.optionalDouble(5)
        endDate = row.optionalDouble(6)
        assetCount = Int(row.int64(7))
        latitude = row.optionalDouble(8)
        longitude = row.optionalDouble(9)
        momentDay = row.optionalText(10)
        locatedCount = Int(row.int64(11))
        createdAt = row.double(12)
    }
}

extension CollectionListRow {
    /// The columns of `collection_list`, in the order of ``init(columns:)``.
    static let columnList = "id, localIdentifier, type, subtype, title, startDate, endDate, momentYear, createdAt"

    /// The row of the list with this id, read by position through a raw query (``RawQuery``: its SQL is used
    /// nowhere else); nil when there is none.
    ///
    /// - Throws: the engine's error.
    static func fetch(id: Int64, _ db: any SQLConnection) throws -> CollectionListRow? {
        var found: CollectionListRow?
        try RawQuery.forEachRow(db, byID, [id]) { found = CollectionListRow(columns: $0) }
        return found
    }

    private static let byID = "SELECT \(columnList) FROM collection_list WHERE id = ?"

    /// The row from a query's columns in the order of ``columnList``.
    init(columns row: any SQLColumns) {
        id = row.int64(0)
        localIdentifier = row.text(1)
        type = Int(row.int64(2))
        subtype = Int(row.int64(3))
        title = row.optionalText(4)
        startDate = row.optionalDouble(5)
        endDate = row.optionalDouble(6)
        momentYear = row.optionalInt64(7).map { Int($0) }
        createdAt = row.double(8)
    }
}
