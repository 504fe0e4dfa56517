import Foundation
import MediaProbe
import PhotoLibrary

/// What a pass does with the recorded files it found gone and nobody claimed.
enum VanishedPolicy {
    /// Delete them: the pass saw everything that could claim them (a scan).
    case delete
    /// A watch round: hold them while paths pending when they vanished are still to come (``HeldFiles``).
    case hold(WatchRound)
}

/// A pass under way: its batch, its summary, and the claims made so far.
struct ReconcilePass {
    /// A file replacing a recorded one, read and waiting for the end of the pass to be decided.
    enum HeldRead {
        case media(FileHasher.Hashed)
        case notMedia(String)
    }

    var summary = ScanSummary()
    var batch = Batch()
    var batchStart = ContinuousClock.now
    var sources: MoveSources
    var deferredMoves: [Reconciler.StampMove]
    var report: ScanProgress
    var held: [HeldRead] = []
    var retry: [String] = []

    init(plan: borrowing Reconciler.Plan, filesFound: Int) {
        sources = plan.sources
        deferredMoves = plan.deferredMoves
        report = ScanProgress(phase: .hashing, filesFound: filesFound, filesToHash: plan.toHash.count)
        report.totalBytesToHash = plan.toHash.reduce(0) { $0 + $1.stamp.size }
        summary.unchanged = plan.unchanged
    }
}

extension MirrorEngine {
    typealias BatchHandler = @Sendable (ScanSummary, ChangeToken?) -> Void

    /// One pass of the rules over a scope (``Reconciler``): commits moves, updates, inserts and deletes in
    /// batches, in an order that leaves the library consistent after each commit.
    ///
    /// The commits: (1) the moves recognised by stamp, together (a renamed directory is one change); (2) the
    /// files read, in batches; (3) the files that replace a recorded one at its path, decided together once
    /// every other file is known, in one transaction with the deletion of any recorded file a move replaced;
    /// (4) the deletions of what vanished (after the mass-deletion check), or, for a watch round, what it
    /// no longer holds (``HeldFiles``); (5) sync cookies.
    func reconcile(
        scope: [String], snapshot: inout DiskSnapshot, rootStamp: FileStamp, isFullScan: Bool,
        progress: (@Sendable (ScanProgress) -> Void)?, onBatch: BatchHandler?
    ) throws(SyncError) -> ScanSummary {
        var retry: [String] = []
        return try reconcile(
            scope: scope, snapshot: &snapshot, rootStamp: rootStamp, isFullScan: isFullScan, progress: progress,
            onBatch: onBatch, retry: &retry)
    }

    /// - Parameters:
    ///   - retry: receives the paths still being written (to try again later).
    ///   - extraSources: recorded files outside the scope that left their path (a watch round's held files).
    ///   - reservedInodes: inodes of files left to later rounds: sources with them are not claimed by content.
    ///   - findsOutside: a file at a new path may be a move of a file recorded outside the scope (a watch round,
    ///     whose events may lag behind the disk); needs the model's inode index.
    ///   - isKept: recorded paths the pass leaves alone besides those under unreadable directories (a watch
    ///     round's paths pending for later rounds).
    ///   - vanished: delete what vanished, or hold it (a watch round).
    func reconcile(
        scope: [String], snapshot: inout DiskSnapshot, rootStamp: FileStamp, isFullScan: Bool,
        progress: (@Sendable (ScanProgress) -> Void)?, onBatch: BatchHandler?, retry: inout [String],
        extraSources: [MirroredFile] = [], reservedInodes: Set<FileInode> = [], findsOutside: Bool = false,
        isKept: ((String) -> Bool)? = nil, vanished policy: VanishedPolicy = .delete
    ) throws(SyncError) -> ScanSummary {
        let filesFound = snapshot.files.count
        let (plan, mirroredCount) = try makePlan(
            scope: scope, snapshot: &snapshot, rootStamp: rootStamp, isFullScan: isFullScan, extraSources: extraSources,
            reservedInodes: reservedInodes, findsOutside: findsOutside, isKept: isKept)
        var pass = ReconcilePass(plan: plan, filesFound: filesFound)
        pass.summary.skipped = snapshot.skipped
        try commitStampMoves(plan.stampMoves, &pass, onBatch: onBatch)
        reserveRoom(forFiles: plan.toHash.count)
        progress?(ScanProgress(phase: .walking, filesFound: filesFound, filesToHash: plan.toHash.count))
        let interrupted = try readFiles(plan.toHash, &pass, progress: progress, onBatch: onBatch)
        try commitBatch(&pass, onBatch: onBatch)
        retry.append(contentsOf: pass.retry)
        // An interrupted pass has not read every file: what looks vanished may reappear among the files it did
        // not hash, so it deletes nothing (and decides nothing it held); the next pass continues from here.
        if interrupted {
            pass.summary.interrupted = true
            return pass.summary
        }
        try commitReplacingFiles(&pass, onBatch: onBatch)
        let deletions = resolveVanished(pass.sources.unclaimedGone, policy: policy, retried: pass.retry, clearsHeld: isFullScan && scope == [""])
        var summary = pass.summary
        try commitDeletions(
            deletions, mirroredCount: mirroredCount, filesFound: filesFound, into: &summary, progress: progress, onBatch: onBatch)
        // Cookies last: everything before them is now in the library.
        if !snapshot.cookies.isEmpty {
            try processCookies(snapshot.cookies)
        }
        return summary
    }

    /// The safety checks of a full scan, then the plan against the state before the pass.
    private func makePlan(
        scope: [String], snapshot: inout DiskSnapshot, rootStamp: FileStamp, isFullScan: Bool, extraSources: [MirroredFile],
        reservedInodes: Set<FileInode>, findsOutside: Bool, isKept: ((String) -> Bool)?
    ) throws(SyncError) -> (Reconciler.Plan, mirroredCount: Int) {
        // The plan is made against the state before the pass; the state itself is not held meanwhile, so the
        // batches committed below update it in place (no copy of a large dictionary per batch).
        let model = try loadedModel()
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
        let kept: (String) -> Bool = { path in snapshot.isUnderUnreadableDirectory(path) || isKept?(path) == true }
        let root = self.root
        let outside: ((FileStamp, String) -> MirroredFile?)? = !findsOutside ? nil : { stamp, path in
            guard let other = model.path(ofInode: FileInode(stamp)), other != path, let file = model[path: other] else { return nil }
            // Still at its recorded path (a hard link): not a move.
            if let (now, _) = FileSystem.stamp(root + "/" + other), FileInode(now) == FileInode(stamp) { return nil }
            return file
        }
        // The plan takes the disk snapshot's files over (they become its list of files to hash).
        var files: [(path: String, stamp: FileStamp)] = []
        swap(&files, &snapshot.files)
        if scope == [""] {
            let plan = Reconciler.plan(
                disk: consume files, recorded: model, extraSources: extraSources, reservedInodes: reservedInodes,
                outside: outside, isKept: kept)
            return (plan, model.count)
        }
        var recorded: [String: MirroredFile] = [:]
        for path in scope { recorded.merge(model.files(within: path)) { a, _ in a } }
        let plan = Reconciler.plan(
            disk: consume files, recorded: recorded, extraSources: extraSources, reservedInodes: reservedInodes,
            outside: outside, isKept: kept)
        return (plan, model.count)
    }

    /// Renames recognised by their stamps (no file read) commit together, whatever their number: a renamed
    /// directory is one change, its album renamed with all its files at once, never an intermediate tree where
    /// half of its files are in each place.
    private func commitStampMoves(_ moves: [Reconciler.StampMove], _ pass: inout ReconcilePass, onBatch: BatchHandler?) throws(SyncError) {
        for move in moves {
            let record = MirroredFile(
                relativePath: move.to, stamp: move.stamp, contentHash: move.from.contentHash,
                assetIdentifier: move.from.assetIdentifier)
            pass.batch.moves.append((move.from, record))
            pass.batch.counts.moved += 1
        }
        try commitBatch(&pass, onBatch: onBatch)
    }

    /// Room in the model for every file to hash, made once: its table does not double (holding the old and the
    /// new table at once) while the batches commit.
    private func reserveRoom(forFiles count: Int) {
        if var model = self.model, count > options.batchFileLimit {
            self.model = nil
            model.reserveCapacity(model.count + count)
            self.model = model
        }
    }

    /// Rule 3: reads the files and decides each one, except those replacing a recorded file, which are held
    /// for ``commitReplacingFiles(_:onBatch:)``.
    ///
    /// The files are read (probed and hashed) ahead, by ``FolderMirrorOptions/fileReaders`` threads
    /// (``ReadAhead``), and decided here one by one in the order of `toHash`: the batches, their order and what
    /// they hold are those of reading each file when it comes.
    ///
    /// - Returns: whether the pass was cancelled (the current batch is then still to commit).
    private func readFiles(
        _ toHash: [(path: String, stamp: FileStamp)], _ pass: inout ReconcilePass,
        progress: (@Sendable (ScanProgress) -> Void)?, onBatch: BatchHandler?
    ) throws(SyncError) -> Bool {
        // Files known not to be media, unchanged since: not read again. (Only this loop changes `notMedia`, and
        // only for its own file: leaving them out first is the same as skipping them as they come.)
        let files = toHash.filter { candidate in notMedia[candidate.path].map { $0 != candidate.stamp } ?? true }
        guard !files.isEmpty else { return false }
        let (root, timeZone, quiet) = (root, library.momentTimeZone, options.openFileSettleInterval)
        let readAhead = options.fileReaders > 1 && files.count > 1
            ? ReadAhead(
                files: files, root: root, timeZone: timeZone, openFileQuiet: quiet, readers: options.fileReaders,
                window: min(max(options.batchFileLimit, 4 * options.fileReaders), 1024))
            : nil
        defer { readAhead?.stop() }
        let buffer = readAhead == nil ? ProbeBuffer() : nil
        for candidate in files {
            pass.report.currentPath = candidate.path
            progress?(pass.report)
            let outcome = readAhead?.next() ?? FileHasher.hash(
                root: root, path: candidate.path, stamp: candidate.stamp, timeZone: timeZone, openFileQuiet: quiet,
                buffer: buffer!)
            decide(candidate, outcome, &pass)
            if pass.batch.fileCount >= options.batchFileLimit
                || (pass.batch.fileCount > 0 && ContinuousClock.now - pass.batchStart >= options.batchTimeLimit)
            {
                try commitBatch(&pass, onBatch: onBatch)
            }
            // Cancelled (SIGINT/SIGTERM): the current batch is committed by the caller, and the pass ends there.
            if Task.isCancelled { return true }
        }
        return false
    }

    /// Decides one file read by ``readFiles(_:_:progress:onBatch:)``: into the batch, held, or skipped.
    private func decide(_ candidate: (path: String, stamp: FileStamp), _ outcome: FileHasher.Outcome, _ pass: inout ReconcilePass) {
        let kind = Reconciler.Kind(stamp: candidate.stamp, recorded: model?[path: candidate.path])
        switch outcome {
        case .hashed(let hashed):
            notMedia[candidate.path] = nil
            pass.report.filesHashed += 1
            pass.report.bytesHashed += hashed.stamp.size
            pass.batch.counts.filesHashed += 1
            pass.batch.counts.bytesHashed += hashed.stamp.size
            if case .replacing = kind {
                pass.held.append(.media(hashed))
            } else {
                record(hashed, Reconciler.decide(hashed.path, stamp: hashed.stamp, hash: hashed.hash, kind: kind, sources: &pass.sources), in: &pass.batch)
            }
        case .notMedia:
            notMedia[candidate.path] = candidate.stamp
            switch kind {
            case .new: break
            // A mirrored file replaced by something that is not media is gone as a photo.
            case .sameFile(let old): pass.sources.add(old, origin: .gone)
            case .replacing: pass.held.append(.notMedia(candidate.path))
            }
        case .stillBeingWritten:
            pass.summary.skipped.append(SkippedFile(path: candidate.path, reason: "still being written"))
            pass.retry.append(candidate.path)
        case .vanished:
            pass.summary.skipped.append(SkippedFile(path: candidate.path, reason: "vanished while being read"))
        case .unreadable(let reason):
            pass.summary.skipped.append(SkippedFile(path: candidate.path, reason: "unreadable: \(reason)"))
        }
    }

    /// Puts a decided file into the batch.
    private func record(_ hashed: FileHasher.Hashed, _ action: Reconciler.Action, in batch: inout Batch) {
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
    }

    /// Commits the pass's current batch, if it holds anything.
    private func commitBatch(_ pass: inout ReconcilePass, onBatch: BatchHandler?) throws(SyncError) {
        guard pass.batch.fileCount > 0 else { return }
        pass.summary.add(pass.batch.counts)
        try commit(pass.batch, onBatch: onBatch)
        pass.summary.batches += 1
        pass.batch = Batch()
        pass.batchStart = ContinuousClock.now
    }

    /// Decides, together, the files that replace a recorded one at its path and the moves by stamp onto such
    /// paths, once every other file of the pass is known; commits them in one transaction, with the deletion
    /// of every recorded file whose path another file took (a rename over it).
    ///
    /// Together, because their claims depend on one another: a file renamed over another may be the third of
    /// a rotation of names, or half of a swap. (Their reads wait for this in memory, one probe each: a pass
    /// holds as many as files were renamed over others, atomic saves included.)
    private func commitReplacingFiles(_ pass: inout ReconcilePass, onBatch: BatchHandler?) throws(SyncError) {
        guard !pass.held.isEmpty || !pass.deferredMoves.isEmpty else { return }
        // (The model is read in place, never held in a local: the commit below changes it, and a second
        // reference would make that change copy every table.)
        var replacing: [Reconciler.Replacing] = []
        var notMediaPaths: [String] = []
        for read in pass.held {
            switch read {
            case .media(let hashed):
                replacing.append(Reconciler.Replacing(path: hashed.path, stamp: hashed.stamp, hash: hashed.hash, recorded: self.model?[path: hashed.path]))
            case .notMedia(let path):
                notMediaPaths.append(path)
            }
        }
        let hashedByPath = Dictionary(pass.held.compactMap { if case .media(let hashed) = $0 { (hashed.path, hashed) } else { nil } }) { a, _ in a }
        let decisions = Reconciler.decide(replacing: replacing, sources: &pass.sources)
        for (path, action) in decisions {
            guard let hashed = hashedByPath[path] else { continue }
            record(hashed, action, in: &pass.batch)
        }
        for move in pass.deferredMoves {
            pass.batch.moves.append((move.from, MirroredFile(
                relativePath: move.to, stamp: move.stamp, contentHash: move.from.contentHash, assetIdentifier: move.from.assetIdentifier)))
            pass.batch.counts.moved += 1
        }
        // The recorded files whose path now holds another file and that did not move away: a rename over
        // them (or something that is not media any more) took their place. Deleted in this same transaction,
        // since the path's mirror state is rewritten here.
        let targets = decisions.compactMap { if case .move = $0.action { $0.path } else { nil } }
            + pass.deferredMoves.map(\.to) + notMediaPaths
        for path in targets where !pass.sources.isClaimed(path: path) {
            guard let displaced = self.model?[path: path] else { continue }
            pass.batch.deletes.append(displaced)
            pass.batch.counts.deleted += 1
        }
        try commitBatch(&pass, onBatch: onBatch)
    }

    /// What to delete now of the files that vanished: all of them for a scan; for a watch round, those
    /// ``HeldFiles`` no longer holds.
    ///
    /// - Parameter retried: the paths the pass could not reconcile (still being written): pending again for a
    ///   watch round, and counted as such by the hold.
    private func resolveVanished(_ vanished: [MirroredFile], policy: VanishedPolicy, retried: [String], clearsHeld: Bool) -> [MirroredFile] {
        switch policy {
        case .delete:
            if clearsHeld { heldFiles = HeldFiles() }
            return vanished
        case .hold(let taken):
            guard let model else { return vanished }
            let round = taken.retrying(retried)
            return heldFiles.settle(
                vanished: vanished, round: round, model: model, root: root, limit: heldFileLimit,
                pendingInodes: { pendingInodes(round) })
        }
    }

    /// Rule 4: deletes what vanished, after the mass-deletion check.
    func commitDeletions(
        _ deletions: [MirroredFile], mirroredCount: Int, filesFound: Int, into summary: inout ScanSummary,
        progress: (@Sendable (ScanProgress) -> Void)?, onBatch: BatchHandler?
    ) throws(SyncError) {
        guard !deletions.isEmpty else { return }
        let limit = Int((Double(mirroredCount) * options.maximumDeletionShare).rounded(.down))
        if !options.allowMassDeletion && deletions.count > limit && deletions.count >= options.minimumMassDeletion {
            let message = "refusing to delete \(deletions.count) of the \(mirroredCount) assets mirrored from \(root) (the limit is \(limit)); nothing was deleted. Check the folder, then confirm with allowMassDeletion"
            throw SyncError(.massDeletionRefused(wouldDelete: deletions.count, mirrored: mirroredCount, limit: limit), message)
        }
        progress?(ScanProgress(phase: .deleting, filesFound: filesFound, filesHashed: summary.filesHashed, bytesHashed: summary.bytesHashed))
        for chunk in stride(from: 0, to: deletions.count, by: max(1, options.batchFileLimit)) {
            var deleting = Batch()
            deleting.deletes = Array(deletions[chunk..<min(deletions.count, chunk + options.batchFileLimit)])
            deleting.counts.deleted = deleting.deletes.count
            summary.add(deleting.counts)
            try commit(deleting, onBatch: onBatch)
            summary.batches += 1
        }
    }
}
