import GRDB

extension AssetRow {
    /// Every column of `asset`, in the order ``insertArguments`` gives their values.
    private static let insertSQL = """
        INSERT INTO asset (id, localIdentifier, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate,
                           creationTimeZoneOffset, modificationDate, latitude, longitude, altitude, duration, isFavorite,
                           isHidden, burstIdentifier, representsBurst, burstSelectionTypes, sourceType, hasAdjustments,
                           originalFilename, uniformTypeIdentifier, fileSize, contentHash, storage, filePath, addedDate,
                           momentId, adjustedContentHash)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
        """

    /// The row's values in the order of ``insertSQL``'s columns (what GRDB's `Codable` encoding stores).
    private var insertArguments: StatementArguments {
        [
            id, localIdentifier, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate, creationTimeZoneOffset,
            modificationDate, latitude, longitude, altitude, duration, isFavorite, isHidden, burstIdentifier,
            representsBurst, burstSelectionTypes, sourceType, hasAdjustments, originalFilename, uniformTypeIdentifier,
            fileSize, contentHash, storage, filePath, addedDate, momentId, adjustedContentHash,
        ]
    }

    /// Inserts the row with its id through one statement prepared once per connection: the same row GRDB's
    /// `insert(_:)` writes, without encoding the row through `Codable` into a dictionary of columns first
    /// (which cost an initial scan as much as the insert itself).
    func insertPrepared(_ db: Database) throws {
        try db.cachedStatement(sql: Self.insertSQL).execute(arguments: insertArguments)
    }
}
