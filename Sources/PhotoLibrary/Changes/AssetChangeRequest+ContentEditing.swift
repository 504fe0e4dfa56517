import Foundation
import GRDB
import LibraryStorage

extension AssetChangeRequest {
    /// Commits an edit made through a ``ContentEditingOutput``: the rendered file is copied into the
    /// library's store, the adjustment data kept beside it, and the asset gets ``Asset/hasAdjustments`` — a
    /// content change (observers see `assetContentChanged`; the journal records it). The original file,
    /// copied or referenced, is never modified.
    ///
    /// Setting it fails the block with ``PhotoLibraryError/invalidValue(property:reason:)`` when the output
    /// has no adjustment data or is for another asset, and ``PhotoLibraryError/fileUnreadable(path:reason:)``
    /// when the rendered file can't be read. Reading it gives nil: the output is consumed when set.
    public var contentEditingOutput: ContentEditingOutput? {
        get { nil }
        set {
            guard let newValue, let session, let rowID else { return }
            session.perform { try commit(newValue, session: session, rowID: rowID) }
        }
    }

    /// Reverts the asset to its original: the edit is dropped (its rendered file leaves the store once no
    /// asset refers to it) and ``Asset/hasAdjustments`` becomes false — a content change. Nothing happens for
    /// an asset without an edit.
    public func revertAssetContentToOriginal() {
        guard let session, let rowID else { return }
        session.perform {
            guard let row = try session.currentAssetRow(rowID), row.adjustedContentHash != nil || row.hasAdjustments else {
                return
            }
            try session.writeCreatedAssets()
            try session.db.execute(sql: "DELETE FROM asset_adjustment WHERE assetId = ?", arguments: [rowID])
            try session.editAsset(rowID) { row in
                if let old = row.adjustedContentHash { session.releasedOriginals.insert(old) }
                row.adjustedContentHash = nil
                row.hasAdjustments = false
                row.modificationDate = session.now
            }
        }
    }

    private func commit(_ output: ContentEditingOutput, session: ChangeSession, rowID: Int64) throws {
        guard let data = output.adjustmentData else {
            throw PhotoLibraryError.invalidValue(property: "contentEditingOutput", reason: "adjustmentData is not set")
        }
        guard let row = try session.currentAssetRow(rowID), row.localIdentifier == output.input.assetLocalIdentifier else {
            throw PhotoLibraryError.invalidValue(property: "contentEditingOutput", reason: "the output is for another asset")
        }
        let path = output.renderedContentURL.standardizedFileURL.path
        let imported = try session.library.originalsStore.importFile(atPath: path)
        try session.writeCreatedAssets()
        let adjustment = AdjustmentRow(
            assetId: rowID, formatIdentifier: data.formatIdentifier, formatVersion: data.formatVersion, data: data.data,
            renderedFileSize: imported.size,
            renderedUniformTypeIdentifier: UniformType.guess(forFileName: output.renderedContentURL.lastPathComponent).identifier,
            baseContentHash: output.input.baseContentHash, adjustedAt: session.now)
        try adjustment.save(in: session.db)
        try session.editAsset(rowID) { row in
            if let old = row.adjustedContentHash, old != imported.hash { session.releasedOriginals.insert(old) }
            row.adjustedContentHash = imported.hash
            row.hasAdjustments = true
            row.modificationDate = session.now
        }
    }
}
