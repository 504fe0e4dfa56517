import Foundation
import GRDB
import LibraryStorage

extension PhotoLibrary {
    /// An asset's current edit, or nil when it has none.
    ///
    /// - Throws: ``PhotoLibraryError/objectNotFound(localIdentifier:)`` when the asset is gone; database
    ///   errors.
    public func fetchAdjustment(for asset: Asset) throws(PhotoLibraryError) -> AssetAdjustment? {
        let found = try read { db -> (String?, AdjustmentRow?)? in
            guard let hash = try db.fetchRow(
                sql: "SELECT adjustedContentHash FROM asset WHERE localIdentifier = ?",
                arguments: [asset.localIdentifier])
            else { return nil }
            let row = try db.fetchRecords(
                AdjustmentRow.self, sql: "SELECT * FROM asset_adjustment WHERE assetId = ?", arguments: [asset.rowID]
            ).first
            return (hash["adjustedContentHash"], row)
        }
        guard let found else { throw .objectNotFound(localIdentifier: asset.localIdentifier) }
        guard let hash = found.0, let row = found.1 else { return nil }
        return AssetAdjustment(
            adjustmentData: row.adjustmentData, renderedContentHash: hash,
            renderedFileURL: originalsStore.url(forHash: hash), renderedFileSize: row.renderedFileSize,
            renderedUniformTypeIdentifier: row.renderedUniformTypeIdentifier, baseContentHash: row.baseContentHash,
            adjustedAt: Date(timeIntervalSince1970: row.adjustedAt))
    }

    /// Prepares an asset for editing (PhotoKit's `requestContentEditingInput`): which image to edit, and
    /// the existing edit's data when the app can handle it (see ``ContentEditingInputOptions``).
    ///
    /// - Throws: ``PhotoLibraryError/objectNotFound(localIdentifier:)``,
    ///   ``PhotoLibraryError/fileUnreadable(path:reason:)`` when the asset has no file.
    public func requestContentEditingInput(
        for asset: Asset, options: ContentEditingInputOptions = ContentEditingInputOptions()
    ) throws(PhotoLibraryError) -> ContentEditingInput {
        guard let current = try fetchAssets(
            withLocalIdentifiers: [asset.localIdentifier],
            options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)
        ).firstObject else { throw .objectNotFound(localIdentifier: asset.localIdentifier) }
        guard let original = current.fileURL(in: self) else {
            throw .fileUnreadable(path: current.originalFilename, reason: "the asset has no file")
        }
        var url = original
        var type = current.uniformTypeIdentifier
        var base = current.contentHash
        var data: AdjustmentData?
        if let adjustment = try fetchAdjustment(for: current) {
            if options.canHandleAdjustmentData?(adjustment.adjustmentData) == true {
                data = adjustment.adjustmentData
            } else {
                url = adjustment.renderedFileURL
                type = adjustment.renderedUniformTypeIdentifier
                base = adjustment.renderedContentHash
            }
        }
        return ContentEditingInput(
            assetLocalIdentifier: current.localIdentifier, mediaType: current.mediaType, adjustmentData: data,
            fullSizeImageURL: url, uniformTypeIdentifier: type, baseContentHash: base,
            creationDate: current.creationDate, location: current.location)
    }
}
