import Foundation
import Logging
import MediaProbe
import PhotoLibrary
import Synchronization

/// An album, folder or asset named by its local identifier, for change requests that take any object.
struct ObjectReference: LibraryObject {
    let localIdentifier: String
}

/// The changes of one commit, before they are applied.
struct Batch {
    var inserts: [FileHasher.Hashed] = []
    var updates: [(new: FileHasher.Hashed, old: MirroredFile)] = []
    /// Same content, new stamp (and possibly a new path, for moves).
    var restamps: [MirroredFile] = []
    var moves: [(from: MirroredFile, to: MirroredFile)] = []
    var deletes: [MirroredFile] = []
    /// Records naming an asset that already references the file (written by a repair, ``MirrorRepair``): the
    /// asset is placed in its directory's album like a moved one.
    var adoptions: [MirroredFile] = []
    /// Paths whose records a repair drops (naming an asset that is gone or references another file):
    /// forgotten, whatever they name now, the asset left alone.
    var forgets: [String] = []
    var cookies: [String] = []
    var scanRecord: (start: Date, end: Date, summary: String?)?
    var rootDevice: UInt64?
    var counts = ScanSummary()

    var fileCount: Int { inserts.count + updates.count + restamps.count + moves.count + deletes.count + adoptions.count + forgets.count }
    var isEmpty: Bool { fileCount == 0 && cookies.isEmpty && scanRecord == nil && rootDevice == nil }
}

/// The serial core of a ``FolderMirror``: owns the in-memory mirror state and is the only writer of this
/// root's mirror state, so scans, watch rounds and barriers never interleave.
actor MirrorEngine {
    let library: PhotoLibrary
    let root: String
    let rootName: String
    let options: FolderMirrorOptions
    var logger: Logger { options.logger }
    var model: MirrorModel?
    /// The library's change token when ``model`` was last known to equal the library's records: a full scan
    /// that finds another token (someone else committed since: an app deleting assets, or a writer that does
    /// not take the mirror writer lock) reads the records again rather than trusting its memory.
    var modelToken: ChangeToken?
    var ignore: IgnoreRules
    /// Files found not to be media, by stamp: not probed again while unchanged.
    var notMedia: [String: FileStamp] = [:]
    /// Files with metadata problems already logged (by path and hash), so each is logged once.
    private var loggedProblems: Set<String> = []
    /// Live Photo pairs (stills and movies sharing a content identifier in one directory).
    var livePhotos = LivePhotoPairing()
    /// The photosync libraries the walks leave out (the mirror's own one included).
    let libraries: LibraryExclusion
    /// Libraries found in the tree and logged (each once).
    private var loggedLibraries: Set<String> = []
    /// Files watch rounds found gone and hold for a while (see ``HeldFiles``).
    var heldFiles = HeldFiles()
    var lastToken: ChangeToken?

    init(library: PhotoLibrary, root: String, options: FolderMirrorOptions) {
        self.library = library
        self.root = root
        self.rootName = URL(fileURLWithPath: root).lastPathComponent
        self.options = options
        self.ignore = IgnoreRules(includeDefaults: options.includeDefaultIgnoreRules)
        self.libraries = LibraryExclusion(root: root, library: library.url)
    }

    // MARK: State

    func loadedModel() throws(SyncError) -> MirrorModel {
        if let model { return model }
        let loaded = try Self.loadModel(library: library, root: root)
        (modelToken, model) = (loaded.token, loaded.model)
        return loaded.model
    }

    /// The model of `root` as the library records it (empty when the root is not recorded yet), with the
    /// library's change token read before it (so that a commit made meanwhile only makes it look stale).
    ///
    /// - Returns: also how many records name an asset that references the record's own file.
    static func loadModel(library: PhotoLibrary, root: String) throws(SyncError) -> (token: ChangeToken?, model: MirrorModel, matching: Int) {
        let token = try? library.currentChangeToken
        var matching = 0
        do {
            guard let record = try library.fetchMirrorRoot(path: root) else { return (token, MirrorModel(), 0) }
            let model = try MirrorModel.load(from: library, root: record, matching: &matching)
            return (token, model, matching)
        } catch {
            throw .library(error)
        }
    }

    /// A read of the library on a thread of its own while the disk walk runs: a new process's first scan
    /// loads the model and walks the tree at once (two cores), instead of one after the other, and every full
    /// scan checks the mirror's consistency meanwhile.
    private final class BackgroundRead<Value: Sendable>: Sendable {
        private let outcome = Mutex<Result<Value, SyncError>?>(nil)
        private let done = DispatchSemaphore(value: 0)

        init(_ read: @escaping @Sendable () throws(SyncError) -> Value) {
            DispatchQueue.global().async { [self] in
                let result = Result { () throws(SyncError) in try read() }
                outcome.withLock { $0 = result }
                done.signal()
            }
        }

        /// Waits for the read to end and hands the value over (moved out, so that for the model the engine's
        /// copy is the only one and its first change does not copy every table).
        func wait() throws(SyncError) -> Value {
            done.wait()
            return try outcome.withLock { $0.take() }!.get()
        }
    }

    var recordedDevice: UInt64? { (try? library.fetchMirrorRoot(path: root))?.device }

    // MARK: Root checks

    /// Checks the root before a pass: present, a directory, listable.
    func checkRoot() throws(SyncError) -> FileStamp {
        guard let (stamp, mode) = FileSystem.stamp(root) else {
            throw SyncError(.rootMissing, "the folder \(root) does not exist (unmounted?); nothing was deleted")
        }
        guard mode == S_IFDIR else {
            throw SyncError(.rootMissing, "\(root) is not a folder; nothing was deleted")
        }
        guard let handle = opendir(root) else {
            throw SyncError(.rootUnreadable, "the folder \(root) cannot be read (\(String(cString: strerror(errno)))); nothing was deleted")
        }
        closedir(handle)
        return stamp
    }

    // MARK: Full scan

    func scan(progress: (@Sendable (ScanProgress) -> Void)?, onBatch: (@Sendable (ScanSummary, ChangeToken?) -> Void)?) throws(SyncError) -> ScanSummary {
        let start = Date()
        let clock = ContinuousClock.now
        let rootStamp = try checkRoot()
        let (library, root) = (self.library, self.root)
        if model != nil, let current = try? library.currentChangeToken, current != modelToken {
            logger.debug("the library changed since the mirror's records were read: reading them again")
            model = nil
        }
        // On the second core while the tree is walked: the consistency check, or the model when it is not in
        // memory, counting the records that name their file's asset as it reads them (the check's costly part).
        let loading = model == nil ? BackgroundRead { () throws(SyncError) in
            let loaded = try Self.loadModel(library: library, root: root)
            let assets: Int
            do throws(PhotoLibraryError) { assets = try library.countFileReferences(rootPath: root) } catch { throw .library(error) }
            return (loaded.token, loaded.model, MirrorConsistency(
                files: loaded.model.count, filesWithTheirAsset: loaded.matching, referencingAssets: assets))
        } : nil
        let checking = loading != nil ? nil : BackgroundRead { () throws(SyncError) in
            do throws(PhotoLibraryError) { return try library.mirrorConsistency(rootPath: root) } catch { throw .library(error) }
        }
        var walker = DiskWalker(root: root, ignore: IgnoreRules(includeDefaults: options.includeDefaultIgnoreRules), libraries: libraries)
        var snapshot = DiskSnapshot()
        snapshot.files.reserveCapacity((model?.count ?? 0) + 1024)
        walker.walk("", into: &snapshot)
        let consistency: MirrorConsistency
        if let loading {
            (modelToken, model, consistency) = try loading.wait()
        } else {
            consistency = try checking!.wait()
        }
        ignore = walker.ignore
        note(libraries: snapshot.libraries)
        let repaired = consistency.isConsistent ? 0 : try repair(consistency, onBatch: onBatch)
        let filesFound = snapshot.files.count
        var summary = try reconcile(
            scope: [""], snapshot: &snapshot, rootStamp: rootStamp, isFullScan: true, progress: progress, onBatch: onBatch)
        if repaired > 0 {
            summary.repaired = repaired
            summary.batches += 1
        }
        summary.duration = (ContinuousClock.now - clock).seconds
        // Only a complete pass counts as the last scan.
        if summary.interrupted { return summary }
        let encoded = (try? JSONEncoder().encode(summary)).map { String(decoding: $0, as: UTF8.self) }
        var record = Batch()
        record.scanRecord = (start, Date(), encoded)
        record.rootDevice = rootStamp.device
        try commit(record, onBatch: nil)
        progress?(ScanProgress(phase: .done, filesFound: filesFound, filesHashed: summary.filesHashed, bytesHashed: summary.bytesHashed))
        return summary
    }

    /// Logs the libraries the walk left out, each once.
    private func note(libraries: [String]) {
        for path in libraries where loggedLibraries.insert(path).inserted {
            logger.info("left out \(path.isEmpty ? root : root + "/" + path): a photosync library, not a folder of photos")
        }
    }

    func noteProblems(_ hashed: FileHasher.Hashed, into counts: inout ScanSummary) {
        let problems = hashed.probe.metadata.problems
        guard !problems.isEmpty else { return }
        counts.metadataProblems[hashed.path] = problems.map(\.description)
        if loggedProblems.insert(hashed.path + "@" + hashed.hash).inserted {
            logger.warning("\(hashed.path): imported with what could be read; metadata problems: \(problems.map(\.description).joined(separator: "; "))")
        }
    }

    /// Records the cookies (every one: each has its own waiter) and removes the cookie files.
    func processCookies(_ cookies: [String]) throws(SyncError) {
        guard !cookies.isEmpty else { return }
        var batch = Batch()
        batch.cookies = cookies.map { FileSystem.name(of: $0) }
        try commit(batch, onBatch: nil)
        for cookie in cookies { unlink(root + "/" + cookie) }
    }

    // MARK: Commit

    /// Applies a batch in one transaction: asset changes, album and folder maintenance and the mirror state.
    func commit(_ batch: Batch, onBatch: (@Sendable (ScanSummary, ChangeToken?) -> Void)?) throws(SyncError) {
        guard !batch.isEmpty else { return }
        var model = try loadedModel()
        self.model = nil  // Reloaded from the library if this commit fails.
        let before = batch.fileCount > 0 ? try? library.currentChangeToken : nil
        do {
            try apply(batch, to: &model)
        } catch let error as SyncError {
            throw error
        } catch let error as PhotoLibraryError {
            throw .library(error)
        } catch {
            throw SyncError(.library(.database(code: -1, message: "\(error)")), "\(error)")
        }
        self.model = model
        // A long scan allocates and frees per file on whichever threads run it; give the freed pages back
        // after each large batch so that resident memory follows the live data, not the allocator's arenas.
        if batch.fileCount >= 100 { Allocator.returnFreeMemory() }
        if batch.fileCount > 0 {
            let token = try? library.currentChangeToken
            lastToken = token
            // The model follows this commit; a commit of someone else's before it leaves it stale.
            if before != nil && before == modelToken { modelToken = token }
            onBatch?(batch.counts, token)
        }
    }

    private func apply(_ batch: Batch, to model: inout MirrorModel) throws {
        let assets = try fetchAssets(of: batch)
        let directoriesBefore = model.directories
        let memberships = try albumMemberships(of: batch, assets: assets, directories: directoriesBefore)
        // The file changes, on the model: they decide the albums and folders.
        let (dirty, removedPaths) = Self.applyFiles(of: batch, to: &model)
        let live = try livePhotos.plan(batch, model: model, root: root, library: library, timeZone: library.momentTimeZone)
        var collections: (albums: [String: AssetCollection], folders: [String: CollectionList]) = ([:], [:])
        if !dirty.isEmpty {
            collections = try library.fetchMirroredCollections(
                albumIdentifiers: Set(model.directories.values.compactMap(\.albumIdentifier)),
                folderIdentifiers: Set(model.directories.values.compactMap(\.folderIdentifier)))
        }
        let root = self.root
        let rootName = self.rootName
        var inserted: [String: String] = [:]
        var directories = model.directories
        var needs: [String: (album: Bool, folder: Bool)] = [:]
        for path in dirty { needs[path] = model.needs(path) }
        try library.performChangesAndWait(author: options.author) {
            var tree = DirectoryTree(
                root: root, rootName: rootName, directories: directories, needs: needs, albums: collections.albums,
                folders: collections.folders)
            let ordered = dirty.sorted { ($0.depth, $0) < ($1.depth, $1) }
            tree.prepare(ordered)
            inserted = Self.requestAssetChanges(
                for: batch, root: root, assets: assets, live: live, tree: &tree,
                moved: { id, from in (directoriesBefore[FileSystem.parent(of: from)]?.albumIdentifier, memberships[id]) })
            tree.flushAdditions()
            for file in batch.adoptions {
                guard let id = file.assetIdentifier, assets[id] != nil else { continue }
                tree.move(id, fromAlbum: nil, memberOf: memberships[id] ?? [], to: FileSystem.parent(of: file.relativePath))
            }
            live.applyAssetChanges()
            let deleted = batch.deletes.compactMap(\.assetIdentifier).filter { assets[$0] != nil }
            if !deleted.isEmpty { AssetChangeRequest.deleteAssets(withLocalIdentifiers: deleted) }
            let library = self.library
            tree.finish(ordered.reversed()) { folder in
                (try? library.fetchCollections(in: folder).map(\.localIdentifier)) ?? []
            }
            Self.recordMirrorState(of: batch, root: root, removedPaths: removedPaths, inserted: inserted, tree: tree)
            directories = tree.directories
        }
        livePhotos.committed()
        for (path, id) in inserted {
            if var file = model[path: path] {
                file.assetIdentifier = id
                model.set(file)
            }
        }
        model.directories = directories
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
                fromFileAt: file.url,
                options: AssetCreationOptions(storage: .referenced, contentHash: file.hash, fileSize: file.stamp.size))
            request.apply(file.probe)
            live.mark(request, path: file.path)
            guard let placeholder = request.placeholderForCreatedAsset else { continue }
            inserted[file.path] = placeholder.localIdentifier
            tree.add(placeholder.localIdentifier, to: FileSystem.parent(of: file.path))
        }
        for (new, old) in batch.updates {
            let url = new.url
            let options = AssetCreationOptions(storage: .referenced, contentHash: new.hash, fileSize: new.stamp.size)
            if let id = old.assetIdentifier, let asset = assets[id] {
                let request = AssetChangeRequest(for: asset)
                request.replaceContent(withFileAt: url, options: options)
                request.apply(new.probe)
                live.mark(request, path: new.path)
            } else {
                let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: url, options: options)
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

    /// Inside the change block: the mirror state of a batch — removals first (a path may be both the source of
    /// one move and the target of another), then files, directories, cookies and the scan record.
    private static func recordMirrorState(
        of batch: Batch, root: String, removedPaths: [String], inserted: [String: String], tree: DirectoryTree
    ) {
        let mirror = MirrorChangeRequest(rootPath: root)
        for path in removedPaths { mirror.removeFile(path) }
        for (_, to) in batch.moves {
            mirror.setFile(to.relativePath, stamp: to.stamp, contentHash: to.contentHash, asset: to.assetIdentifier.map(ObjectReference.init))
        }
        for file in batch.restamps + batch.adoptions {
            mirror.setFile(file.relativePath, stamp: file.stamp, contentHash: file.contentHash, asset: file.assetIdentifier.map(ObjectReference.init))
        }
        for (new, old) in batch.updates {
            let id = inserted[new.path] ?? old.assetIdentifier
            mirror.setFile(new.path, stamp: new.stamp, contentHash: new.hash, asset: id.map(ObjectReference.init))
        }
        for file in batch.inserts {
            mirror.setFile(file.path, stamp: file.stamp, contentHash: file.hash, asset: inserted[file.path].map(ObjectReference.init))
        }
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

/// glibc's `malloc_trim`, looked up at run time (its header is not part of the Glibc module).
enum Allocator {
    private typealias Trim = @convention(c) (Int) -> Int32
    private static let trim: Trim? = {
        guard let handle = dlopen(nil, RTLD_NOW), let symbol = dlsym(handle, "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: Trim.self)
    }()

    static func returnFreeMemory() { _ = trim?(0) }
}

extension String {
    /// The number of components of a relative path ("" has none).
    var depth: Int { isEmpty ? 0 : utf8.reduce(1) { $1 == UInt8(ascii: "/") ? $0 + 1 : $0 } }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
