import GRDB
import GRDBSQLite
import LibraryStorage

/// Writing an album's members (`album_asset` rows) many to a statement.
enum AlbumMembers {
    /// `INSERT INTO album_asset (albumId, assetId, position) VALUES (…), (…)`.
    private static let insertSQL = MultiRowInsert("INSERT INTO album_asset (albumId, assetId, position)", columns: 3)

    /// Inserts the members of `album` at the positions of `members`' indices (a slice of the album's whole
    /// ordered list), in that order, by statements of many rows (``MultiRowInsert``): on SQLite bound through
    /// the C API, on any engine with the same statements and their values as arguments.
    ///
    /// - Throws: the engine's error (a member already at a position, an unknown asset).
    static func insert(album: Int64, members: ArraySlice<Int64>, into db: any SQLConnection) throws {
        for chunk in insertSQL.chunks(of: members.count) {
            let rows = members[(members.startIndex + chunk.lowerBound)..<(members.startIndex + chunk.upperBound)]
            if let sqlite = db.sqliteDatabase {
                try insertPrepared(album: album, rows, sqlite)
            } else {
                var values: [DatabaseValue] = []
                values.reserveCapacity(3 * rows.count)
                for (position, asset) in zip(rows.indices, rows) {
                    values += [album.databaseValue, asset.databaseValue, position.databaseValue]
                }
                try db.execute(sql: insertSQL.sql(rows: rows.count), arguments: StatementArguments(values))
            }
        }
    }

    /// Inserts one chunk through its statement, prepared once per connection, the values bound through
    /// SQLite's C API (GRDB's arguments cost more than the row's insert). The statement still runs through
    /// GRDB, which tracks what it writes.
    private static func insertPrepared(album: Int64, _ rows: ArraySlice<Int64>, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: insertSQL.sql(rows: rows.count))
        try statement.executeBinding(parameterCount: 3 * rows.count) { sqlite in
            var parameter: Int32 = 1
            for (position, asset) in zip(rows.indices, rows) {
                sqlite3_bind_int64(sqlite, parameter, album)
                sqlite3_bind_int64(sqlite, parameter + 1, asset)
                sqlite3_bind_int64(sqlite, parameter + 2, Int64(position))
                parameter += 3
            }
        }
    }
}
