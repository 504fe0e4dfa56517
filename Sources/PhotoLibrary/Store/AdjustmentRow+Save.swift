import GRDB
import LibraryStorage

extension AdjustmentRow {
    /// Writes the asset's edit: inserted, or over the edit it had (an asset has at most one).
    ///
    /// - Throws: the engine's error (no asset of that id).
    func save(in db: any SQLConnection) throws {
        try db.execute(
            sql: """
                INSERT INTO asset_adjustment (assetId, formatIdentifier, formatVersion, data, renderedFileSize,
                                              renderedUniformTypeIdentifier, baseContentHash, adjustedAt)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (assetId) DO UPDATE SET
                    formatIdentifier = excluded.formatIdentifier, formatVersion = excluded.formatVersion,
                    data = excluded.data, renderedFileSize = excluded.renderedFileSize,
                    renderedUniformTypeIdentifier = excluded.renderedUniformTypeIdentifier,
                    baseContentHash = excluded.baseContentHash, adjustedAt = excluded.adjustedAt
                """,
            arguments: [
                assetId, formatIdentifier, formatVersion, data, renderedFileSize, renderedUniformTypeIdentifier,
                baseContentHash, adjustedAt,
            ])
    }
}
