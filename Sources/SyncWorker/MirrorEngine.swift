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
