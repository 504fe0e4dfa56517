import Foundation
import PhotoLibrary

/// Committing a batch: the library's changes and the mirror state, in one change block, and the model after it.
extension MirrorEngine {
    /// Commits a batch: its asset, album and folder changes and its mirror state, in one change block; then
    /// the model follows (the identifiers of the assets created, the directories' albums and folders).
    ///
    /// - Throws: the library's errors (nothing of the batch is committed then, and the model is left as the
    ///   batch's file changes made it: the caller reloads it).
    func apply(_ batch: Batch, to model: inout MirrorModel) throws {
        let changes = try prepare(batch, model: &model)
        let (inserted, directories) = try commitChanges(of: batch, changes)
        livePhotos.committed()
        for (path, id) in inserted {
            if var file = model[path: path] {
                file.assetIdentifier = id
                model.set(file)
            }
        }
        model.directories = directories
    }

    /// What a batch's change block needs, read before it opens: the assets it changes, their album
    /// memberships, the directories concerned, the Live Photo pairs, the albums and folders of the model.
    struct BatchChanges {
        var assets: [String: Asset]
        var directoriesBefore: [String: MirroredDirectory]
        var memberships: [String: Set<String>]
        var dirty: Set<String>
        var removedPaths: [String]
        var live: LivePhotoPairing.Plan
        var collections: (albums: [String: AssetCollection], folders: [String: CollectionList])
        var directories: [String: MirroredDirectory]
        var needs: [String: (album: Bool, folder: Bool)]
    }

    /// Reads what the batch's change block needs, and applies the batch's file changes to the model (they
    /// decide the albums and folders).
    private func prepare(_ batch: Batch, model: inout MirrorModel) throws -> BatchChanges {
        let assets = try fetchAssets(of: batch)
        let directoriesBefore = model.directories
        let memberships = try albumMemberships(of: batch, assets: assets, directories: directoriesBefore)
        let (dirty, removedPaths) = Self.applyFiles(of: batch, to: &model)
        let live = try livePhotos.plan(batch, model: model, root: root, library: library, timeZone: library.momentTimeZone)
        var collections: (albums: [String: AssetCollection], folders: [String: CollectionList]) = ([:], [:])
        if !dirty.isEmpty {
            let (albums, folders) = Self.collectionsConcerned(by: batch, dirty: dirty, memberships: memberships, model: model)
            collections = try library.fetchMirroredCollections(albumIdentifiers: albums, folderIdentifiers: folders)
        }
        var needs: [String: (album: Bool, folder: Bool)] = [:]
        for path in dirty { needs[path] = model.needs(path) }
        return BatchChanges(
            assets: assets, directoriesBefore: directoriesBefore, memberships: memberships, dirty: dirty,
            removedPaths: removedPaths, live: live, collections: collections, directories: model.directories, needs: needs)
    }

    /// The albums and folders a batch's block asks for, read before it: those of the directories it
    /// touches (with their parents), the albums its moved files leave, and the albums its moved assets are in.
    /// The block reads any other one when it needs it (``DirectoryTree``): reading every directory's would
    /// cost each batch in proportion to the tree.
    private static func collectionsConcerned(
        by batch: Batch, dirty: Set<String>, memberships: [String: Set<String>], model: MirrorModel
    ) -> (albums: Set<String>, folders: Set<String>) {
        var albums = Set<String>()
        var folders = Set<String>()
        for path in dirty {
            guard let entry = model.directories[path] else { continue }
            if let album = entry.albumIdentifier { albums.insert(album) }
            if let folder = entry.folderIdentifier { folders.insert(folder) }
        }
        for (from, _) in batch.moves {
            if let album = model.directories[FileSystem.parent(of: from.relativePath)]?.albumIdentifier { albums.insert(album) }
        }
        for members in memberships.values { albums.formUnion(members) }
        return (albums, folders)
    }

    /// The batch's change block: asset changes, the directory tree's albums and folders, deletions, the
    /// mirror state.
    ///
    /// - Returns: the identifiers of the assets created, by path, and the directories as the block left them.
    private func commitChanges(
        of batch: Batch, _ changes: BatchChanges
    ) throws -> (inserted: [String: String], directories: [String: MirroredDirectory]) {
        let (root, rootName, library) = (self.root, self.rootName, self.library)
        var inserted: [String: String] = [:]
        var directories = changes.directories
        try library.performChangesAndWait(author: options.author) {
            var tree = DirectoryTree(
                root: root, rootName: rootName, directories: directories, needs: changes.needs,
                albums: changes.collections.albums, folders: changes.collections.folders,
                fetch: { albums, folders in try library.fetchMirroredCollections(albumIdentifiers: albums, folderIdentifiers: folders) })
            let ordered = changes.dirty.sorted { ($0.depth, $0) < ($1.depth, $1) }
            tree.prepare(ordered)
            inserted = Self.requestAssetChanges(
                for: batch, root: root, assets: changes.assets, live: changes.live, tree: &tree,
                moved: { id, from in (changes.directoriesBefore[FileSystem.parent(of: from)]?.albumIdentifier, changes.memberships[id]) })
            tree.flushAdditions()
            Self.moveAdoptions(of: batch, changes, in: &tree)
            changes.live.applyAssetChanges()
            let deleted = batch.deletes.compactMap(\.assetIdentifier).filter { changes.assets[$0] != nil }
            if !deleted.isEmpty { AssetChangeRequest.deleteAssets(withLocalIdentifiers: deleted) }
            tree.finish(ordered.reversed()) { folder in
                (try? library.fetchCollections(in: folder).map(\.localIdentifier)) ?? []
            }
            try tree.checkReads()
            Self.recordMirrorState(of: batch, root: root, removedPaths: changes.removedPaths, inserted: inserted, tree: tree)
            directories = tree.directories
        }
        return (inserted, directories)
    }

    /// Inside the change block: the assets a repair adopts go to their directory's album.
    private static func moveAdoptions(of batch: Batch, _ changes: BatchChanges, in tree: inout DirectoryTree) {
        for file in batch.adoptions {
            guard let id = file.assetIdentifier, changes.assets[id] != nil else { continue }
            tree.move(id, fromAlbum: nil, memberOf: changes.memberships[id] ?? [], to: FileSystem.parent(of: file.relativePath))
        }
    }

    /// The assets a batch's requests change (updated, moved, deleted), by identifier.
    private func fetchAssets(of batch: Batch) throws -> [String: Asset] {
        var identifiers = Set<String>()
        for (_, old) in batch.updates { if let id = old.assetIdentifier { identifiers.insert(id) } }
        for (from, _) in batch.moves { if let id = from.assetIdentifier { identifiers.insert(id) } }
        for file in batch.deletes { if let id = file.assetIdentifier { identifiers.insert(id) } }
        for file in batch.adoptions { if let id = file.assetIdentifier { identifiers.insert(id) } }
        var assets: [String: Asset] = [:]
        guard !identifiers.isEmpty else { return assets }
        let fetched = try library.fetchAssets(
            withLocalIdentifiers: Array(identifiers), options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
        for asset in fetched { assets[asset.localIdentifier] = asset }
        return assets
    }

    /// The albums some assets are in now, from the library: moved assets whose old directory has no album any
    /// more (renamed away earlier in this pass); assets moved to another directory than their own (not a
    /// renamed one) — a user may have taken one out of its directory's album, or put it in another's; and
    /// assets a repair adopts.
    private func albumMemberships(
        of batch: Batch, assets: [String: Asset], directories: [String: MirroredDirectory]
    ) throws -> [String: Set<String>] {
        var memberships: [String: Set<String>] = [:]
        var sameDirectory: [String: Bool] = [:]
        for (from, to) in batch.moves {
            guard let id = from.assetIdentifier, let asset = assets[id] else { continue }
            let (source, target) = (FileSystem.parent(of: from.relativePath), FileSystem.parent(of: to.relativePath))
            if let entry = directories[source], entry.albumIdentifier != nil {
                let key = source + "\u{0}" + target
                let renamed = sameDirectory[key] ?? isSameDirectory(entry, at: source, as: target)
                sameDirectory[key] = renamed
                if renamed { continue }
            }
            memberships[id] = try albums(containing: asset)
        }
        for file in batch.adoptions {
            guard let id = file.assetIdentifier, let asset = assets[id] else { continue }
            memberships[id] = try albums(containing: asset)
        }
        return memberships
    }

    /// Whether `target` is the directory recorded at `source` (the same, or renamed: same device and inode).
    private func isSameDirectory(_ entry: MirroredDirectory, at source: String, as target: String) -> Bool {
        guard source != target else { return true }
        guard let (stamp, _) = FileSystem.stamp(target.isEmpty ? root : root + "/" + target) else { return false }
        return stamp.device == entry.device && stamp.inode == entry.inode
    }

    private func albums(containing asset: Asset) throws -> Set<String> {
        Set(try library.fetchAssetCollections(containing: asset).filter { $0.assetCollectionType == .album }.map(\.localIdentifier))
    }

    /// Applies a batch's file changes to the model.
    ///
    /// - Returns: the directories concerned (each file's parent and its ancestors), and the paths removed.
    private static func applyFiles(of batch: Batch, to model: inout MirrorModel) -> (dirty: Set<String>, removedPaths: [String]) {
        var dirty = Set<String>()
        func touch(_ path: String) {
            var directory = FileSystem.parent(of: path)
            while dirty.insert(directory).inserted && !directory.isEmpty { directory = FileSystem.parent(of: directory) }
        }
        // A path is removed only while it still records the file removed from it: an earlier batch of the pass
        // may have moved another file there (a rotation of names).
        var removedPaths: [String] = []
        for file in batch.deletes + batch.moves.map(\.from) where model.records(file) {
            model.remove(file.relativePath)
            removedPaths.append(file.relativePath)
            touch(file.relativePath)
        }
        for path in batch.forgets where model[path: path] != nil {
            model.remove(path)
            removedPaths.append(path)
            touch(path)
        }
        for (_, to) in batch.moves {
            model.set(to)
            touch(to.relativePath)
        }
        for file in batch.restamps { model.set(file) }
        for file in batch.adoptions {
            model.set(file)
            touch(file.relativePath)
        }
        for (new, old) in batch.updates {
            model.set(MirroredFile(relativePath: new.path, stamp: new.stamp, contentHash: new.hash, assetIdentifier: old.assetIdentifier))
        }
        for file in batch.inserts {
            model.set(MirroredFile(relativePath: file.path, stamp: file.stamp, contentHash: file.hash, assetIdentifier: nil))
            touch(file.path)
        }
        return (dirty, removedPaths)
    }

    /// Inside the change block: the inserts, content updates and moves of a batch, with their album membership.
    ///
    /// - Parameter moved: for a moved asset and its old path, its old directory's album and, when that album is
    ///   gone, the albums it is in.
    /// - Returns: the identifiers of the assets created, by path.
    private static func requestAssetChanges(
        for batch: Batch, root: String, assets: [String: Asset], live: LivePhotoPairing.Plan, tree: inout DirectoryTree,
        moved: (String, String) -> (album: String?, memberships: Set<String>?)
    ) -> [String: String] {
        var inserted: [String: String] = [:]
        for file in batch.inserts {
            let request = AssetChangeRequest.creationRequestForAsset(
                fromFileAtPath: file.absolutePath,
                options: AssetCreationOptions(storage: .referenced, contentHash: file.hash, fileSize: file.stamp.size))
            request.apply(file.probe)
            live.mark(request, path: file.path)
            guard let placeholder = request.placeholderForCreatedAsset else { continue }
            inserted[file.path] = placeholder.localIdentifier
            tree.add(placeholder.localIdentifier, to: FileSystem.parent(of: file.path))
        }
        for (new, old) in batch.updates {
            let options = AssetCreationOptions(storage: .referenced, contentHash: new.hash, fileSize: new.stamp.size)
            if let id = old.assetIdentifier, let asset = assets[id] {
                let request = AssetChangeRequest(for: asset)
                request.replaceContent(withFileAt: URL(fileURLWithPath: new.absolutePath), options: options)
                request.apply(new.probe)
                live.mark(request, path: new.path)
            } else {
                let request = AssetChangeRequest.creationRequestForAsset(fromFileAtPath: new.absolutePath, options: options)
                request.apply(new.probe)
                live.mark(request, path: new.path)
                if let placeholder = request.placeholderForCreatedAsset {
                    inserted[new.path] = placeholder.localIdentifier
                    tree.add(placeholder.localIdentifier, to: FileSystem.parent(of: new.path))
                }
            }
        }
        for (from, to) in batch.moves {
            guard let id = from.assetIdentifier, let asset = assets[id] else { continue }
            AssetChangeRequest(for: asset).setReferencedFilePath(root + "/" + to.relativePath)
            let (oldAlbum, memberships) = moved(id, from.relativePath)
            tree.move(id, fromAlbum: oldAlbum, memberOf: memberships, to: FileSystem.parent(of: to.relativePath))
        }
        return inserted
    }

    /// The stat cache entries a batch records, in this order: moves' targets, restamps, adoptions, content
    /// updates, inserts (each with its asset: `inserted` holds those the batch created, by path).
    private static func fileRecords(of batch: Batch, inserted: [String: String]) -> [MirroredFileRecord] {
        var records: [MirroredFileRecord] = []
        records.reserveCapacity(
            batch.moves.count + batch.restamps.count + batch.adoptions.count + batch.updates.count + batch.inserts.count)
        func record(_ file: MirroredFile) -> MirroredFileRecord {
            MirroredFileRecord(
                relativePath: file.relativePath, stamp: file.stamp, contentHash: file.contentHash,
                asset: file.assetIdentifier.map(ObjectReference.init))
        }
        for (_, to) in batch.moves { records.append(record(to)) }
        for file in batch.restamps + batch.adoptions { records.append(record(file)) }
        for (new, old) in batch.updates {
            let id = inserted[new.path] ?? old.assetIdentifier
            records.append(MirroredFileRecord(
                relativePath: new.path, stamp: new.stamp, contentHash: new.hash, asset: id.map(ObjectReference.init)))
        }
        for file in batch.inserts {
            records.append(MirroredFileRecord(
                relativePath: file.path, stamp: file.stamp, contentHash: file.hash, asset: inserted[file.path].map(ObjectReference.init)))
        }
        return records
    }

    /// Inside the change block: the mirror state of a batch — removals first (a path may be both the source of
    /// one move and the target of another), then files, directories, cookies and the scan record.
    private static func recordMirrorState(
        of batch: Batch, root: String, removedPaths: [String], inserted: [String: String], tree: DirectoryTree
    ) {
        let mirror = MirrorChangeRequest(rootPath: root)
        for path in removedPaths { mirror.removeFile(path) }
        mirror.setFiles(fileRecords(of: batch, inserted: inserted))
        for path in tree.changed {
            if let entry = tree.directories[path] {
                mirror.setDirectory(
                    path, device: entry.device, inode: entry.inode, album: entry.albumIdentifier.map(ObjectReference.init),
                    folder: entry.folderIdentifier.map(ObjectReference.init))
            } else {
                mirror.removeDirectory(path)
            }
        }
        for cookie in batch.cookies { mirror.recordSyncCookie(cookie) }
        if let device = batch.rootDevice { mirror.setRootDevice(device) }
        if let record = batch.scanRecord { mirror.recordScan(start: record.start, end: record.end, summary: record.summary) }
    }
}
