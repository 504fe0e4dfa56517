import Foundation
import PhotoLibrary

/// Self-healing: a full pass whose consistency check (``PhotoLibrary/mirrorConsistency(rootPath:)``) finds the
/// library and the records disagreeing repairs them before mirroring (see ``FolderMirror``, "Self-healing").
extension MirrorEngine {
    /// Repairs the root's records and assets (``MirrorRepair``) and reloads the model from the library.
    ///
    /// - Returns: the number of files repaired.
    func repair(
        _ consistency: MirrorConsistency, onBatch: (@Sendable (ScanSummary, ChangeToken?) -> Void)?
    ) throws(SyncError) -> Int {
        let repair: MirrorRepair
        do throws(PhotoLibraryError) {
            var records: [MirroredFile] = []
            if let record = try library.fetchMirrorRoot(path: root) { records = try library.fetchMirrorState(root: record).files }
            repair = MirrorRepair.plan(records: records, references: try library.fetchFileReferences(rootPath: root))
        } catch {
            throw .library(error)
        }
        guard !repair.isEmpty else { return 0 }
        let merged = repair.merges.reduce(0) { $0 + $1.merged.count }
        logger.warning("""
            the library disagrees with the mirror of \(root) (\(counted(consistency.files, "record")), \
            \(consistency.filesWithTheirAsset) naming their file's asset, \(counted(consistency.referencingAssets, "asset")) \
            referencing its files): repairing \(counted(repair.repairedPaths, "file"))\
            \(merged > 0 ? " (\(counted(merged, "duplicate asset")) merged into the oldest)" : "")
            """)
        model = nil
        livePhotos = LivePhotoPairing()
        do {
            try repair.apply(to: library, author: options.author)
        } catch let error as PhotoLibraryError {
            throw .library(error)
        } catch {
            throw SyncError(.library(.database(code: -1, message: "\(error)")), "\(error)")
        }
        let reloaded = try Self.loadModel(library: library, root: root)
        (modelToken, model) = (reloaded.token, reloaded.model)
        // The records, through the ordinary commit: an asset adopted lands in its directory's album (made if
        // needed) and leaves other directories'; a directory left without records loses its album.
        var records = Batch()
        records.adoptions = repair.records
        records.forgets = repair.dropped.map(\.relativePath)
        records.counts.repaired = repair.repairedPaths
        if records.fileCount == 0 {
            lastToken = try? library.currentChangeToken
            onBatch?(records.counts, lastToken)
        } else {
            try commit(records, onBatch: onBatch)
        }
        try repairCollections()
        return repair.repairedPaths
    }

    /// Deletes the albums and folders a racing writer left beside the recorded ones (``MirrorOrphans``),
    /// having put the assets they hold in their directories' albums (``MirrorPlacement``), in one commit.
    private func repairCollections() throws(SyncError) {
        guard let model else { return }
        do {
            let albums = try library.fetchMirroredCollections(
                albumIdentifiers: model.directories.values.compactMap(\.albumIdentifier), folderIdentifiers: []).albums
            let orphans = try MirrorOrphans.find(
                library: library, root: root, rootName: rootName, directories: Array(model.directories.values))
            let placement = try MirrorPlacement.plan(
                library: library, files: model, directories: model.directories, albums: albums, concerned: orphans.members)
            guard !placement.isEmpty || orphans.count > 0 else { return }
            let changed = Set(placement.additions.keys).union(placement.removals.keys).count
            var repairs: [String] = []
            if changed > 0 { repairs.append("\(counted(changed, "album")) with missing or misplaced photos put right") }
            if orphans.count > 0 {
                repairs.append("\(counted(orphans.count, "album or folder", "albums and folders")) left beside the mirror's own by another writer deleted")
            }
            logger.warning("repairing the albums of \(root): \(repairs.joined(separator: "; "))")
            let before = try? library.currentChangeToken
            try library.performChangesAndWait(author: options.author) {
                placement.apply(albums: albums)
                if !orphans.albums.isEmpty { AssetCollectionChangeRequest.deleteAssetCollections(orphans.albums) }
                if !orphans.folders.isEmpty { CollectionListChangeRequest.deleteCollectionLists(orphans.folders) }
            }
            if before != nil && before == modelToken { modelToken = try? library.currentChangeToken }
        } catch let error as PhotoLibraryError {
            throw .library(error)
        } catch {
            throw SyncError(.library(.database(code: -1, message: "\(error)")), "\(error)")
        }
    }
}

/// `1 file`, `2 files`: a count with its noun.
private func counted(_ count: Int, _ singular: String, _ plural: String? = nil) -> String {
    "\(count) \(count == 1 ? singular : plural ?? singular + "s")"
}
