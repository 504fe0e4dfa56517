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
    var cookies: [String] = []
    var scanRecord: (start: Date, end: Date, summary: String?)?
    var rootDevice: UInt64?
    var counts = ScanSummary()

    var fileCount: Int { inserts.count + updates.count + restamps.count + moves.count + deletes.count + adoptions.count }
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
    private(set) var ignore: IgnoreRules
    /// Files found not to be media, by stamp: not probed again while unchanged.
    private var notMedia: [String: FileStamp] = [:]
    /// Files with metadata problems already logged (by path and hash), so each is logged once.
    private var loggedProblems: Set<String> = []
    /// Live Photo pairs (stills and movies sharing a content identifier in one directory).
    var livePhotos = LivePhotoPairing()
    /// The photosync libraries the walks leave out (the mirror's own one included).
    let libraries: LibraryExclusion
    /// Libraries found in the tree and logged (each once).
    private var loggedLibraries: Set<String> = []
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

    private func loadedModel() throws(SyncError) -> MirrorModel {
        if let model { return model }
        let loaded = try Self.loadModel(library: library, root: root)
        (modelToken, model) = (loaded.token, loaded.model)
        return loaded.model
    }

    /// The model of `root` as the library records it (empty when the root is not recorded yet), with the
    /// library's change token read before it (so that a commit made meanwhile only makes it look stale).
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

    // MARK: Partial passes (the watcher)

    /// Reconciles a set of paths (files or directories, present or gone) against the mirror.
    ///
    /// - Returns: the pass's summary and the paths to retry (still being written).
    func reconcile(paths: Set<String>, onBatch: (@Sendable (ScanSummary, ChangeToken?) -> Void)?) throws(SyncError) -> (ScanSummary, [String]) {
        let rootStamp = try checkRoot()
        // Only the outermost paths: a directory's walk covers what is inside it. A path in a library is its
        // library's directory: the walk leaves it out, and what was mirrored from there goes.
        let sorted = Set(paths.map { libraries.enclosingLibrary(of: $0) ?? $0 }).sorted()
        var scope: [String] = []
        for path in sorted where !scope.contains(where: { FileSystem.isWithin(path, $0) }) { scope.append(path) }
        var snapshot = DiskSnapshot()
        var walker = DiskWalker(root: root, ignore: ignore, libraries: libraries)
        for path in scope {
            guard let (stamp, mode) = FileSystem.stamp(path.isEmpty ? root : root + "/" + path) else { continue }
            if ancestorIgnored(path, isDirectory: mode == S_IFDIR, walker.ignore) { continue }
            if mode == S_IFDIR {
                snapshot.directories[path] = stamp
                walker.walk(path, into: &snapshot)
            } else if mode == S_IFREG {
                if FileSystem.parent(of: path).isEmpty && FileSystem.name(of: path).hasPrefix(DiskWalker.cookiePrefix) {
                    snapshot.cookies.append(path)
                } else {
                    snapshot.files.append((path, stamp))
                }
            } else {
                snapshot.skipped.append(SkippedFile(path: path, reason: mode == S_IFLNK ? "symbolic link (not followed)" : "not a regular file"))
            }
        }
        ignore = walker.ignore
        var retry: [String] = []
        let summary = try reconcile(
            scope: scope, snapshot: &snapshot, rootStamp: rootStamp, isFullScan: false, progress: nil, onBatch: onBatch,
            retry: &retry)
        return (summary, retry)
    }

    private func ancestorIgnored(_ path: String, isDirectory: Bool, _ rules: IgnoreRules) -> Bool {
        if FileSystem.parent(of: path).isEmpty && FileSystem.name(of: path).hasPrefix(DiskWalker.cookiePrefix) { return false }
        return rules.isIgnored(relativePath: path, isDirectory: isDirectory)
    }

    // MARK: Reconcile

    private func reconcile(
        scope: [String], snapshot: inout DiskSnapshot, rootStamp: FileStamp, isFullScan: Bool,
        progress: (@Sendable (ScanProgress) -> Void)?, onBatch: (@Sendable (ScanSummary, ChangeToken?) -> Void)?
    ) throws(SyncError) -> ScanSummary {
        var retry: [String] = []
        return try reconcile(
            scope: scope, snapshot: &snapshot, rootStamp: rootStamp, isFullScan: isFullScan, progress: progress,
            onBatch: onBatch, retry: &retry)
    }

    private func reconcile(
        scope: [String], snapshot: inout DiskSnapshot, rootStamp: FileStamp, isFullScan: Bool,
        progress: (@Sendable (ScanProgress) -> Void)?, onBatch: (@Sendable (ScanSummary, ChangeToken?) -> Void)?,
        retry: inout [String]
    ) throws(SyncError) -> ScanSummary {
        // The plan is made against the state before the pass; the state itself is not held meanwhile, so the
        // batches committed below update it in place (no copy of a large dictionary per batch).
        let mirroredCount: Int
        let plan: Reconciler.Plan
        let filesFound = snapshot.files.count
        do {
            let model = try loadedModel()
            mirroredCount = model.count
            // Safety: a root showing no file at all while assets are mirrored from it looks unmounted.
            if isFullScan && snapshot.files.isEmpty && !model.isEmpty {
                let device = recordedDevice
                let detail = device != nil && device != rootStamp.device ? " (and it is on another device than recorded)" : ""
                let message = "the folder \(root) is empty\(detail) while \(model.count) assets are mirrored from it: it looks unmounted; nothing was deleted"
                throw SyncError(.rootEmptied, message)
            }
            if isFullScan && !model.isEmpty && !options.acceptRootDeviceChange, let device = recordedDevice,
                device != rootStamp.device
            {
                let message = "the folder \(root) is on another device than recorded while \(model.count) assets are mirrored from it: it looks like an unmounted disk's mount point; nothing was deleted (confirm a moved root with acceptRootDeviceChange)"
                throw SyncError(.rootEmptied, message)
            }
            // The plan takes the disk snapshot's files over (they become its list of files to hash).
            var files: [(path: String, stamp: FileStamp)] = []
            swap(&files, &snapshot.files)
            if scope == [""] {
                plan = Reconciler.plan(disk: consume files, recorded: model) { snapshot.isUnderUnreadableDirectory($0) }
            } else {
                var recorded: [String: MirroredFile] = [:]
                for path in scope { recorded.merge(model.files(within: path)) { a, _ in a } }
                plan = Reconciler.plan(disk: consume files, recorded: recorded) { snapshot.isUnderUnreadableDirectory($0) }
            }
        }
        var summary = ScanSummary()
        summary.skipped = snapshot.skipped
        summary.unchanged = plan.unchanged
        var vanishedByHash: [String: [MirroredFile]] = [:]
        for file in plan.vanished { vanishedByHash[file.contentHash, default: []].append(file) }

        var batch = Batch()
        var batchStart = ContinuousClock.now
        func flushIfFull() throws(SyncError) {
            if batch.fileCount >= options.batchFileLimit
                || (batch.fileCount > 0 && ContinuousClock.now - batchStart >= options.batchTimeLimit)
            {
                summary.add(batch.counts)
                try commit(batch, onBatch: onBatch)
                summary.batches += 1
                batch = Batch()
                batchStart = ContinuousClock.now
            }
        }
        // Renames recognised by their stamps (no file read) commit together, whatever their number: a
        // renamed directory is one change, its album renamed with all its files at once, never an
        // intermediate tree where half of its files are in each place.
        for move in plan.stampMoves {
            let record = MirroredFile(
                relativePath: move.to, stamp: move.stamp, contentHash: move.from.contentHash,
                assetIdentifier: move.from.assetIdentifier)
            batch.moves.append((move.from, record))
            batch.counts.moved += 1
        }
        if batch.fileCount > 0 {
            summary.add(batch.counts)
            try commit(batch, onBatch: onBatch)
            summary.batches += 1
            batch = Batch()
            batchStart = ContinuousClock.now
        }

        // Room in the model for every file to hash, made once: its table does not double (holding the old and
        // the new table at once) while the batches commit.
        if var model = self.model, plan.toHash.count > options.batchFileLimit {
            self.model = nil
            model.reserveCapacity(model.count + plan.toHash.count)
            self.model = model
        }
        var report = ScanProgress(phase: .hashing, filesFound: filesFound, filesToHash: plan.toHash.count)
        report.totalBytesToHash = plan.toHash.reduce(0) { $0 + $1.stamp.size }
        progress?(ScanProgress(phase: .walking, filesFound: filesFound, filesToHash: plan.toHash.count))
        for candidate in plan.toHash {
            if let known = notMedia[candidate.path], known == candidate.stamp { continue }
            report.currentPath = candidate.path
            progress?(report)
            let outcome = FileHasher.hash(root: root, path: candidate.path, stamp: candidate.stamp, timeZone: library.momentTimeZone)
            let old = self.model?[path: candidate.path]
            switch outcome {
            case .hashed(let hashed):
                notMedia[candidate.path] = nil
                report.filesHashed += 1
                report.bytesHashed += hashed.stamp.size
                batch.counts.filesHashed += 1
                batch.counts.bytesHashed += hashed.stamp.size
                let action = Reconciler.decide(
                    path: hashed.path, hash: hashed.hash, recorded: old, vanishedByHash: &vanishedByHash)
                switch action {
                case .restamp(let old):
                    batch.restamps.append(MirroredFile(
                        relativePath: old.relativePath, stamp: hashed.stamp, contentHash: hashed.hash,
                        assetIdentifier: old.assetIdentifier))
                    batch.counts.unchanged += 1
                case .update(let old):
                    noteProblems(hashed, into: &batch.counts)
                    batch.updates.append((hashed, old))
                    batch.counts.updated += 1
                case .move(let from):
                    batch.moves.append((from, MirroredFile(
                        relativePath: hashed.path, stamp: hashed.stamp, contentHash: hashed.hash,
                        assetIdentifier: from.assetIdentifier)))
                    batch.counts.moved += 1
                case .insert:
                    noteProblems(hashed, into: &batch.counts)
                    batch.inserts.append(hashed)
                    batch.counts.inserted += 1
                }
            case .notMedia:
                notMedia[candidate.path] = candidate.stamp
                // A mirrored file replaced by something that is not media is gone as a photo.
                if let old { vanishedByHash[old.contentHash, default: []].append(old) }
            case .stillBeingWritten:
                summary.skipped.append(SkippedFile(path: candidate.path, reason: "still being written"))
                retry.append(candidate.path)
            case .vanished:
                summary.skipped.append(SkippedFile(path: candidate.path, reason: "vanished while being read"))
            case .unreadable(let reason):
                summary.skipped.append(SkippedFile(path: candidate.path, reason: "unreadable: \(reason)"))
            }
            try flushIfFull()
            // Cancelled (SIGINT/SIGTERM): the current batch is committed below, and the pass ends there.
            if Task.isCancelled {
                summary.interrupted = true
                break
            }
        }
        if batch.fileCount > 0 {
            summary.add(batch.counts)
            try commit(batch, onBatch: onBatch)
            summary.batches += 1
            batch = Batch()
        }

        // An interrupted pass has not read every file: what looks vanished may reappear among the files it did
        // not hash, so it deletes nothing; the next pass continues from the batches committed.
        if summary.interrupted { return summary }

        // Deletions: what vanished and did not reappear.
        let deletions = vanishedByHash.values.joined().sorted { $0.relativePath < $1.relativePath }
        if !deletions.isEmpty {
            let mirrored = mirroredCount
            let limit = Int((Double(mirrored) * options.maximumDeletionShare).rounded(.down))
            if !options.allowMassDeletion && deletions.count > limit && deletions.count >= options.minimumMassDeletion {
                let message = "refusing to delete \(deletions.count) of the \(mirrored) assets mirrored from \(root) (the limit is \(limit)); nothing was deleted. Check the folder, then confirm with allowMassDeletion"
                throw SyncError(.massDeletionRefused(wouldDelete: deletions.count, mirrored: mirrored, limit: limit), message)
            }
            progress?(ScanProgress(phase: .deleting, filesFound: filesFound, filesHashed: report.filesHashed, bytesHashed: report.bytesHashed))
            for chunk in stride(from: 0, to: deletions.count, by: max(1, options.batchFileLimit)) {
                var deleting = Batch()
                deleting.deletes = Array(deletions[chunk..<min(deletions.count, chunk + options.batchFileLimit)])
                deleting.counts.deleted = deleting.deletes.count
                summary.add(deleting.counts)
                try commit(deleting, onBatch: onBatch)
                summary.batches += 1
            }
        }
        // Cookies last: everything before them is now in the library.
        if !snapshot.cookies.isEmpty {
            try processCookies(snapshot.cookies)
        }
        return summary
    }

    private func noteProblems(_ hashed: FileHasher.Hashed, into counts: inout ScanSummary) {
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
        // Objects the requests need.
        var identifiers = Set<String>()
        for (_, old) in batch.updates { if let id = old.assetIdentifier { identifiers.insert(id) } }
        for (from, _) in batch.moves { if let id = from.assetIdentifier { identifiers.insert(id) } }
        for file in batch.deletes { if let id = file.assetIdentifier { identifiers.insert(id) } }
        for file in batch.adoptions { if let id = file.assetIdentifier { identifiers.insert(id) } }
        var assets: [String: Asset] = [:]
        if !identifiers.isEmpty {
            let fetched = try library.fetchAssets(
                withLocalIdentifiers: Array(identifiers), options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
            for asset in fetched { assets[asset.localIdentifier] = asset }
        }
        let directoriesBefore = model.directories
        // Moved assets whose old directory has no album any more (renamed away earlier in this pass), and
        // assets moved to another directory than their own (not a renamed one): the albums they are in now,
        // from the library — a user may have taken one out of its directory's album, or put it in another's.
        var memberships: [String: Set<String>] = [:]
        var sameDirectory: [String: Bool] = [:]
        for (from, to) in batch.moves {
            guard let id = from.assetIdentifier, let asset = assets[id] else { continue }
            let (source, target) = (FileSystem.parent(of: from.relativePath), FileSystem.parent(of: to.relativePath))
            if let entry = directoriesBefore[source], entry.albumIdentifier != nil {
                let key = source + "\u{0}" + target
                let renamed = sameDirectory[key] ?? {
                    guard source != target else { return true }
                    guard let (stamp, _) = FileSystem.stamp(target.isEmpty ? self.root : self.root + "/" + target) else { return false }
                    return stamp.device == entry.device && stamp.inode == entry.inode
                }()
                sameDirectory[key] = renamed
                if renamed { continue }
            }
            memberships[id] = Set(try library.fetchAssetCollections(containing: asset)
                .filter { $0.assetCollectionType == .album }.map(\.localIdentifier))
        }
        for file in batch.adoptions {
            guard let id = file.assetIdentifier, let asset = assets[id] else { continue }
            memberships[id] = Set(try library.fetchAssetCollections(containing: asset)
                .filter { $0.assetCollectionType == .album }.map(\.localIdentifier))
        }
        // The file changes, on the model: they decide the albums and folders.
        var dirty = Set<String>()
        func touch(_ path: String) {
            var directory = FileSystem.parent(of: path)
            while dirty.insert(directory).inserted && !directory.isEmpty { directory = FileSystem.parent(of: directory) }
        }
        // A record gone from its path (deleted, or moved away) is forgotten only while the path still holds it:
        // a file moved over it earlier in the pass (`mv a.jpg b.jpg`: b.jpg's old record vanished, then
        // deleted) has its own record there by now.
        let forgotten = Set((batch.deletes + batch.moves.map(\.from)).filter { model[path: $0.relativePath] == $0 }.map(\.relativePath))
        for file in batch.deletes where forgotten.contains(file.relativePath) { model.remove(file.relativePath); touch(file.relativePath) }
        for (from, _) in batch.moves where forgotten.contains(from.relativePath) {
            model.remove(from.relativePath)
            touch(from.relativePath)
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
            let mirror = MirrorChangeRequest(rootPath: root)
            var tree = DirectoryTree(
                root: root, rootName: rootName, directories: directories, needs: needs, albums: collections.albums,
                folders: collections.folders)
            let ordered = dirty.sorted { ($0.depth, $0) < ($1.depth, $1) }
            tree.prepare(ordered)

            for file in batch.inserts {
                let request = AssetChangeRequest.creationRequestForAsset(
                    fromFileAt: URL(fileURLWithPath: root + "/" + file.path),
                    options: AssetCreationOptions(storage: .referenced, contentHash: file.hash, fileSize: file.stamp.size))
                request.apply(file.probe)
                live.mark(request, path: file.path)
                guard let placeholder = request.placeholderForCreatedAsset else { continue }
                inserted[file.path] = placeholder.localIdentifier
                tree.add(placeholder.localIdentifier, to: FileSystem.parent(of: file.path))
            }
            for (new, old) in batch.updates {
                let url = URL(fileURLWithPath: root + "/" + new.path)
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
                let oldAlbum = directoriesBefore[FileSystem.parent(of: from.relativePath)]?.albumIdentifier
                tree.move(id, fromAlbum: oldAlbum, memberOf: memberships[id], to: FileSystem.parent(of: to.relativePath))
            }
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

            // Mirror state: removals first (a path may be both the source of one move and the target of another).
            for path in forgotten { mirror.removeFile(path) }
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
