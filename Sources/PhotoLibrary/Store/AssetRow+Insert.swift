import GRDB
import GRDBSQLite
import LibraryStorage

extension AssetRow {
    /// `INSERT INTO asset (every column) VALUES (…), (…)`, the values of each row in the order
    /// ``bind(_:after:)`` binds them.
    private static let insertSQL = MultiRowInsert(
        """
        INSERT INTO asset (id, localIdentifier, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate,
                           creationTimeZoneOffset, modificationDate, latitude, longitude, altitude, duration, isFavorite,
                           isHidden, burstIdentifier, representsBurst, burstSelectionTypes, sourceType, hasAdjustments,
                           originalFilename, uniformTypeIdentifier, fileSize, contentHash, storage, filePath, addedDate,
                           momentId, adjustedContentHash)
        """,
        columns: 29)

    /// `UPDATE asset SET … WHERE id = ?`: every column but the id, in ``databaseValues``' order, then the id.
    private static let updateSQL = """
        UPDATE asset SET localIdentifier = ?, mediaType = ?, mediaSubtypes = ?, pixelWidth = ?, pixelHeight = ?,
                         creationDate = ?, creationTimeZoneOffset = ?, modificationDate = ?, latitude = ?, longitude = ?,
                         altitude = ?, duration = ?, isFavorite = ?, isHidden = ?, burstIdentifier = ?, representsBurst = ?,
                         burstSelectionTypes = ?, sourceType = ?, hasAdjustments = ?, originalFilename = ?,
                         uniformTypeIdentifier = ?, fileSize = ?, contentHash = ?, storage = ?, filePath = ?, addedDate = ?,
                         momentId = ?, adjustedContentHash = ?
        WHERE id = ?
        """

    /// Inserts rows, with their ids, in their order, by statements of many rows (``MultiRowInsert``): on
    /// SQLite bound through ``bind(_:after:)`` (the scan's fast path), on any engine with the same statements
    /// and their values as arguments.
    ///
    /// - Throws: the engine's error (a constraint a row breaks, such as a duplicate local identifier): the
    ///   rows of the failing statement are not written, those before it are.
    static func insert(_ rows: [AssetRow], into db: any SQLConnection) throws {
        for chunk in insertSQL.chunks(of: rows.count) {
            if let sqlite = db.sqliteDatabase {
                try insertPrepared(rows[chunk], sqlite)
            } else {
                try db.execute(
                    sql: insertSQL.sql(rows: chunk.count),
                    arguments: StatementArguments(rows[chunk].flatMap { [$0.id.databaseValue] + $0.databaseValues }))
            }
        }
    }

    /// Writes every column of the row over the row of the same id.
    ///
    /// - Throws: the engine's error.
    func update(in db: any SQLConnection) throws {
        try db.executeRepeated(sql: Self.updateSQL, arguments: StatementArguments(databaseValues + [id.databaseValue]))
    }

    /// The values of every column but the id, in the order of ``insertSQL`` (after the id) and of
    /// ``updateSQL``. Booleans are 0 or 1, as the columns are integers on every engine.
    private var databaseValues: [DatabaseValue] {
        [
            localIdentifier.databaseValue, mediaType.databaseValue, mediaSubtypes.databaseValue,
            pixelWidth.databaseValue, pixelHeight.databaseValue, creationDate.databaseValue,
            creationTimeZoneOffset.databaseValue, modificationDate.databaseValue, latitude.databaseValue,
            longitude.databaseValue, altitude.databaseValue, duration.databaseValue, (isFavorite ? 1 : 0).databaseValue,
            (isHidden ? 1 : 0).databaseValue, burstIdentifier.databaseValue, (representsBurst ? 1 : 0).databaseValue,
            burstSelectionTypes.databaseValue, sourceType.databaseValue, (hasAdjustments ? 1 : 0).databaseValue,
            originalFilename.databaseValue, uniformTypeIdentifier.databaseValue, fileSize.databaseValue,
            contentHash.databaseValue, storage.databaseValue, filePath.databaseValue, addedDate.databaseValue,
            momentId.databaseValue, adjustedContentHash.databaseValue,
        ]
    }

    /// Inserts rows with their ids through one statement of as many rows, prepared once per connection, their
    /// values bound through SQLite's C API: the rows GRDB's `insert(_:)` writes (the same values, the same
    /// storage classes), without encoding each through `Codable` into a dictionary of columns, then into GRDB's
    /// arguments (which cost a scan as much as the insert itself). The statement still runs through GRDB, which
    /// tracks what it writes.
    private static func insertPrepared(_ rows: ArraySlice<AssetRow>, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: insertSQL.sql(rows: rows.count))
        // The texts bound from one buffer, without a copy each; the bindings are cleared after the run.
        let texts = StaticTexts(capacity: rows.reduce(0) { $0 + $1.textByteCount })
        try statement.executeBinding(parameterCount: 29 * rows.count, clearingBindings: true) { sqlite in
            var column: Int32 = 0
            for row in rows { row.bind(sqlite, after: &column, texts: texts) }
        }
    }

    /// The UTF-8 bytes of the row's texts, as ``bind(_:after:texts:)`` binds them.
    private var textByteCount: Int {
        func count(_ text: String?) -> Int { text?.utf8.count ?? 0 }
        return count(localIdentifier) + count(burstIdentifier) + count(originalFilename) + count(uniformTypeIdentifier)
            + count(contentHash) + count(filePath) + count(adjustedContentHash)
    }

    /// Binds the row's values, id first, in the order of ``insertSQL``, to the parameters after `column`
    /// (1-based, as SQLite counts them), which it leaves at the last it bound; its texts through `texts`.
    private func bind(_ sqlite: OpaquePointer, after column: inout Int32, texts: StaticTexts) {
        func bind(_ value: Int64?) {
            column += 1
            if let value { sqlite3_bind_int64(sqlite, column, value) } else { sqlite3_bind_null(sqlite, column) }
        }
        func bind(_ value: Int?) { bind(value.map(Int64.init)) }
        func bind(_ value: Bool) { bind(Int64(value ? 1 : 0)) }
        func bind(_ value: Double?) {
            column += 1
            if let value { sqlite3_bind_double(sqlite, column, value) } else { sqlite3_bind_null(sqlite, column) }
        }
        func bind(_ value: String?) {
            column += 1
            texts.bind(value, to: sqlite, at: column)
        }
        bind(id)
        bind(localIdentifier)
        bind(mediaType)
        bind(mediaSubtypes)
        bind(pixelWidth)
        bind(pixelHeight)
        bind(creationDate)
        bind(creationTimeZoneOffset)
        bind(modificationDate)
        bind(latitude)
        bind(longitude)
        bind(altitude)
        bind(duration)
        bind(isFavorite)
        bind(isHidden)
        bind(burstIdentifier)
        bind(representsBurst)
        bind(burstSelectionTypes)
        bind(sourceType)
        bind(hasAdjustments)
        bind(originalFilename)
        bind(uniformTypeIdentifier)
        bind(fileSize)
        bind(contentHash)
        bind(storage)
        bind(filePath)
        bind(addedDate)
        bind(momentId)
        bind(adjustedContentHash)
    }
}
