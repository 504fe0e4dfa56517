import GRDB
import GRDBSQLite
import LibraryStorage

extension AssetRow {
    /// Every column of `asset`, in the order ``insertPrepared(_:)`` binds their values.
    private static let insertSQL = """
        INSERT INTO asset (id, localIdentifier, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate,
                           creationTimeZoneOffset, modificationDate, latitude, longitude, altitude, duration, isFavorite,
                           isHidden, burstIdentifier, representsBurst, burstSelectionTypes, sourceType, hasAdjustments,
                           originalFilename, uniformTypeIdentifier, fileSize, contentHash, storage, filePath, addedDate,
                           momentId, adjustedContentHash)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

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

    /// Inserts the row, with its id: on SQLite through ``insertPrepared(_:)`` (the scan's fast path), on any
    /// engine with the same statement and its values as arguments.
    ///
    /// - Throws: the engine's error (a constraint the row breaks, such as a duplicate local identifier).
    func insert(into db: any SQLConnection) throws {
        if let sqlite = db.sqliteDatabase { return try insertPrepared(sqlite) }
        try db.execute(sql: Self.insertSQL, arguments: StatementArguments([id.databaseValue] + databaseValues))
    }

    /// Writes every column of the row over the row of the same id.
    ///
    /// - Throws: the engine's error.
    func update(in db: any SQLConnection) throws {
        try db.executeRepeated(sql: Self.updateSQL, arguments: StatementArguments(databaseValues + [id.databaseValue]))
    }

    /// The values of every column but the id, in the order of ``insertSQL`` (after the id). Booleans are 0 or
    /// 1, as the columns are integers on every engine.
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

    /// `SQLITE_TRANSIENT`: SQLite copies a text before the bind call returns.
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    /// Inserts the row with its id through one statement prepared once per connection, its values bound
    /// through SQLite's C API: the row GRDB's `insert(_:)` writes (the same values, the same storage classes),
    /// without encoding it through `Codable` into a dictionary of columns, then into GRDB's arguments (which
    /// cost a scan as much as the insert itself). The statement still runs through GRDB, which tracks what
    /// it writes.
    func insertPrepared(_ db: Database) throws {
        let statement = try db.cachedStatement(sql: Self.insertSQL)
        // GRDB runs a statement with the arguments it last set: set them once (any values), then bind each
        // row's over them.
        if statement.arguments.isEmpty {
            try statement.setArguments(StatementArguments(Array(repeating: DatabaseValue.null, count: 29)))
        }
        let sqlite = statement.sqliteStatement
        let code = sqlite3_reset(sqlite)
        guard code == SQLITE_OK else { throw DatabaseError(resultCode: ResultCode(rawValue: code)) }
        var column: Int32 = 0
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
            guard var value else { return _ = sqlite3_bind_null(sqlite, column) }
            value.withUTF8 { utf8 in
                _ = sqlite3_bind_text(sqlite, column, utf8.baseAddress, Int32(utf8.count), Self.transient)
            }
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
        try statement.execute()
    }
}
