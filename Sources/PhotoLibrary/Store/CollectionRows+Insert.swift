import GRDB
import LibraryStorage

// Collections and lists are written with explicit SQL that every engine accepts, their id given (drawn
// by `ChangeSession.allocateID(_:)`).

extension AssetCollectionRow {
    /// Inserts the row, with its id.
    ///
    /// - Throws: the engine's error (a constraint the row breaks, such as a duplicate local identifier).
    func insert(into db: any SQLConnection) throws {
        try db.executeRepeated(
            sql: """
                INSERT INTO asset_collection (id, localIdentifier, type, subtype, title, startDate, endDate, assetCount,
                                              latitude, longitude, momentDay, locatedCount, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                id, localIdentifier, type, subtype, title, startDate, endDate, assetCount, latitude, longitude,
                momentDay, locatedCount, createdAt,
            ])
    }
}

extension CollectionListRow {
    /// Inserts the row, with its id.
    ///
    /// - Throws: the engine's error (a constraint the row breaks, such as a duplicate local identifier).
    func insert(into db: any SQLConnection) throws {
        try db.executeRepeated(
            sql: """
                INSERT INTO collection_list (id, localIdentifier, type, subtype, title, startDate, endDate, momentYear, createdAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [id, localIdentifier, type, subtype, title, startDate, endDate, momentYear, createdAt])
    }
}
