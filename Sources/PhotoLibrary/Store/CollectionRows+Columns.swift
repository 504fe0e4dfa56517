import LibraryStorage

// Collection and list rows read by position, from queries that name their columns in this order: a change
// block reads the touched ones again and again (each moment it maintains, each collection the journal
// records), and looking each column up by name in a GRDB row cost more than SQLite's read of the row.

/// A row read by position, from a query that names its columns in the order its initializer reads them.
protocol PositionalRow {
    /// The row from a query's columns, in the order of ``columnList``.
    init(columns: any SQLColumns)
    /// The columns, in the order the initializer reads them.
    static var columnList: String { get }
    /// `SELECT <columnList> FROM <table> WHERE id = ?`: a raw query's SQL (``RawQuery``), used nowhere else.
    static var byID: String { get }
}

extension PositionalRow {
    /// The row with this id, read by position through a raw query; nil when there is none.
    ///
    /// - Throws: the engine's error.
    static func fetch(id: Int64, _ db: any SQLConnection) throws -> Self? {
        var found: Self?
        try RawQuery.forEachRow(db, byID, [id]) { found = Self(columns: $0) }
        return found
    }
}

extension AssetCollectionRow: PositionalRow {
    static let columnList =
        "id, localIdentifier, type, subtype, title, startDate, endDate, assetCount, latitude, longitude, momentDay, locatedCount, createdAt"
    static let byID = "SELECT \(columnList) FROM asset_collection WHERE id = ?"

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

extension CollectionListRow: PositionalRow {
    static let columnList = "id, localIdentifier, type, subtype, title, startDate, endDate, momentYear, createdAt"
    static let byID = "SELECT \(columnList) FROM collection_list WHERE id = ?"

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
