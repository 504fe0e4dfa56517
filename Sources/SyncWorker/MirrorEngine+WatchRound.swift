import Foundation
import MediaProbe
import PhotoLibrary

extension MirrorEngine {
    /// How long a watch round holds a file it found gone (``HeldFiles/limit(settle:)``).
    var heldFileLimit: Duration { options.heldFileLimit ?? HeldFiles.limit(settle: options.settleInterval) }

    /// Whether files found gone are held, waiting for the paths still pending.
    var holdsFiles: Bool { !heldFiles.isEmpty }

    /// A watch round: reconciles a set of paths (files or directories, present or gone) against the mirror.
    ///
    /// Paths still pending for later rounds (``WatchRound/stillPending``), and everything below them, are left
    /// out: neither read here nor judged gone. A path taken by this round that lies below a still pending one
    /// is left to that path's round, which covers it. The files the round finds gone are offered, with those
    /// held by earlier rounds, to the files it reads as sources of moves; the ones nobody claims are held
    /// (``HeldFiles``) or deleted.
    ///
    /// - Returns: the round's summary and the paths to retry (still being written).
    /// - Throws: ``SyncError``: the root is missing or unreadable, a mass deletion was refused, the library
    ///   failed.
    func reconcile(
        paths: Set<String>, round: WatchRound, onBatch: BatchHandler?
    ) throws(SyncError) -> (summary: ScanSummary, retry: [String]) {
        let rootStamp = try checkRoot()
        // Only the outermost paths: a directory's walk covers what is inside it. A path in a library is its
        // library's directory: the walk leaves it out, and what was mirrored from there goes.
        let candidates = Set(paths.map { libraries.enclosingLibrary(of: $0) ?? $0 }).sorted()
        var scope: [String] = []
        for path in candidates where !scope.contains(where: { FileSystem.isWithin(path, $0) }) && !round.isPending(path) {
            scope.append(path)
        }
        var snapshot = snapshot(of: scope, leavingOut: round)
        _ = try loadedModel()
        model?.indexInodes()
        let held = heldSources(outside: scope, round: round)
        var retry: [String] = []
        let summary = try reconcile(
            scope: scope, snapshot: &snapshot, rootStamp: rootStamp, isFullScan: false, progress: nil, onBatch: onBatch,
            retry: &retry, extraSources: held, reservedInodes: held.isEmpty ? [] : pendingInodes(round), findsOutside: true,
            isKept: round.isPending, vanished: .hold(round))
        logger.debug("""
            watch round over \(scope.count) paths (\(paths.count - scope.count) left to pending ones), \
            \(round.stillPending.count) still pending, \(held.count) held offered: \(summary.inserted) inserted, \
            \(summary.updated) updated, \(summary.moved) moved, \(summary.deleted) deleted, \(heldFiles.entries.count) held
            """, metadata: ["scope": "\(scope)"])
        return (summary, retry)
    }

    /// Deletes the held files that no pending path can claim any more (see ``HeldFiles``), when no path is
    /// ready: the round that would release them may never come while other paths stay busy.
    func releaseHeldFiles(round: WatchRound, onBatch: BatchHandler?) throws(SyncError) -> ScanSummary {
        var summary = ScanSummary()
        guard !heldFiles.isEmpty else { return summary }
        _ = try loadedModel()
        guard let model = self.model else { return summary }
        let deletions = heldFiles.settle(
            vanished: [], round: round, model: model, root: root, limit: heldFileLimit, pendingInodes: { pendingInodes(round) })
        let mirroredCount = model.count
        _ = consume model  // (not held across the commit, which changes the engine's model)
        try commitDeletions(deletions, mirroredCount: mirroredCount, filesFound: 0, into: &summary, progress: nil, onBatch: onBatch)
        return summary
    }

    /// The held files this round may claim besides those of its scope.
    private func heldSources(outside scope: [String], round: WatchRound) -> [MirroredFile] {
        guard !heldFiles.isEmpty, let model else { return [] }
        return heldFiles.sources(outside: scope, isKept: round.isPending, model: model, root: root)
    }

    /// The inodes of the files still pending for later rounds: a held file found there is theirs to claim (the
    /// file itself, renamed and touched), never a copy's in this round.
    ///
    /// - Complexity: one `lstat` per pending path; only asked when files are held.
    func pendingInodes(_ round: WatchRound) -> Set<FileInode> {
        var inodes = Set<FileInode>()
        for path in round.stillPending {
            if let (stamp, mode) = FileSystem.stamp(root + "/" + path), mode == S_IFREG { inodes.insert(FileInode(stamp)) }
        }
        return inodes
    }

    /// What the disk shows under the round's scope, without the paths still pending for other rounds.
    private func snapshot(of scope: [String], leavingOut round: WatchRound) -> DiskSnapshot {
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
        if !round.stillPending.isEmpty {
            snapshot.files.removeAll { round.isPending($0.path) }
            snapshot.skipped.removeAll { round.isPending($0.path) }
        }
        return snapshot
    }

    private func ancestorIgnored(_ path: String, isDirectory: Bool, _ rules: IgnoreRules) -> Bool {
        if FileSystem.parent(of: path).isEmpty && FileSystem.name(of: path).hasPrefix(DiskWalker.cookiePrefix) { return false }
        return rules.isIgnored(relativePath: path, isDirectory: isDirectory)
    }
}
