public import Foundation
import FolderWatch
import Logging
import MediaProbe
public import PhotoLibrary
import Synchronization

/// The ignore rules the watcher consults from its reader thread; replaced after every full scan.
final class SharedIgnoreRules: Sendable {
    private let rules: Mutex<IgnoreRules>

    init(_ rules: IgnoreRules) { self.rules = Mutex(rules) }

    func set(_ new: IgnoreRules) { rules.withLock { $0 = new } }

    func isIgnored(_ path: String, isDirectory: Bool) -> Bool {
        let name = FileSystem.name(of: path)
        // Cookie files and ignore files must reach the mirror even though they are hidden.
        if name == IgnoreRules.fileName { return false }
        if FileSystem.parent(of: path).isEmpty && name.hasPrefix(DiskWalker.cookiePrefix) { return false }
        return rules.withLock { $0.isIgnored(relativePath: path, isDirectory: isDirectory) }
    }
}

extension FolderMirror {
    /// Scans the folder, then mirrors every change as it happens until the calling task is cancelled.
    ///
    /// Events from inotify (see `FolderWatcher`) mark paths; once they have been quiet for
    /// ``FolderMirrorOptions/settleInterval`` they are reconciled with the same rules as a scan. A lost event
    /// (queue overflow, a watch that could not be added) rescans the subtree concerned; a full rescan also runs
    /// every ``FolderMirrorOptions/rescanInterval`` (±10 %, when nothing is pending, or at most a tenth of the
    /// interval later), for file systems that send no events. An exhausted watch limit is logged once, with
    /// the sysctl that raises it; periodic rescans then cover what is not watched.
    ///
    /// ## Identity, whatever the timing
    /// A renamed or moved file keeps its identifier, also in a renamed directory, also when it was touched,
    /// however the renames, moves and touches interleave with the settle interval:
    /// - Before a round takes what settled, the watcher's events are caught up with (a marker's round trip):
    ///   no path is read while its latest event is still on its way.
    /// - The two paths of a rename settle together, as one group; a renamed directory carries the paths
    ///   pending below it to its new name and joins them to its group. A group is reconciled in one round, so
    ///   the source and the destination of a move are judged together (see ``PendingPaths``).
    /// - A file found at a new path is matched, by inode, against every mirrored file, not only those of the
    ///   round: a move whose other half is still pending (or whose event came late) keeps its identifier.
    /// - A round leaves the paths still pending for later rounds alone: it neither reads them nor judges them
    ///   gone (a path below one still pending waits for that path's round).
    /// - A recorded file a round finds gone is not deleted while paths that were pending when it vanished
    ///   remain: it is held (memory only; it stays in the library) and offered to every later round as the
    ///   source of a move, by stamp identity and by content. It is deleted once those paths are reconciled,
    ///   at a barrier, by a full rescan, and at the latest ten settle intervals (at least 10 s) after it
    ///   vanished, so that a busy tree cannot hold a deletion forever (see ``HeldFiles``). Deletions so
    ///   delayed count in the mass-deletion check of the round that commits them.
    ///
    /// Renames and moves inside the tree never depend on the hold (their two halves are judged in one round,
    /// and a file at a new path is also found by its inode): their identity holds whatever the timing. The
    /// hold is for what no event pairs — a file moved out of the tree and back in, a rename whose halves the
    /// kernel could not pair —, and only there can the bound cost an identifier: when the file comes back
    /// after its deletion was released, which in a tree that settles is once every path pending when it
    /// vanished has been reconciled.
    ///
    /// ## Files being written
    /// A file written and not closed since is not read on quiet alone: the watcher waits for its writer's
    /// close (inotify IN_CLOSE_WRITE), then for the settle interval; a writer that never closes its file holds
    /// it until it has been quiet for ``FolderMirrorOptions/openFileSettleInterval``. A file changed while it
    /// is read (stat before and after) is read again later. No file is read before it has been quiet for the
    /// settle interval, so content that a later event in the same settle window replaces (a file written,
    /// then a new version renamed over it) is never inserted; barriers and rescans read what is there.
    ///
    /// Sync cookies (``sync()``, ``requestSync(library:root:timeout:)``) are barriers: everything pending
    /// when a cookie appears is reconciled and committed at once, held files are resolved, then the cookie
    /// is recorded.
    ///
    /// On cancellation the batch being committed is finished, then the call returns normally.
    ///
    /// - Parameters:
    ///   - progress: the initial scan's progress.
    ///   - onEvent: what the mirror does as it goes (batches committed with their token, rescans, refusals).
    /// - Throws: ``SyncError``: another mirror writer holds the library
    ///   (``SyncError/Kind/mirrorWriterBusy(holder:)``; held by this watch until it returns otherwise), the
    ///   root is missing, unreadable, looks unmounted or went away (nothing is deleted), the watch could not
    ///   start, or the library failed. A refused mass deletion is reported
    ///   through `onEvent` and the log, and watching goes on.
    public func watch(
        progress: (@Sendable (ScanProgress) -> Void)? = nil, onEvent: (@Sendable (MirrorEvent) -> Void)? = nil
    ) async throws(SyncError) {
        try await beginWriting(mode: "watch")
        defer { endWriting() }
        let rules = SharedIgnoreRules((try? IgnoreRules.load(root: root.path, includeDefaults: options.includeDefaultIgnoreRules))
            ?? IgnoreRules(includeDefaults: options.includeDefaultIgnoreRules))
        let watcher = try startWatcher(rules)
        defer { watcher.stop() }
        let queue = WatchQueue()
        let reader = Task {
            for await event in watcher.events { queue.add(event) }
            queue.state.withLock { $0.finished = true }
        }
        defer { reader.cancel() }
        watching.withLock { $0 += 1 }
        defer { watching.withLock { $0 -= 1 } }

        var loop = WatchLoop(rules: rules, onEvent: onEvent, nextRescan: nextPeriodicRescan())
        try await fullScan(nil, progress: progress, loop: loop)
        let tick = min(options.settleInterval / 4, .milliseconds(50))
        while !Task.isCancelled {
            try? await Task.sleep(for: tick)
            await catchUp(with: watcher, queue: queue)
            let taken = queue.take(
                at: .now, settle: options.settleInterval, openLimit: options.openFileSettleInterval,
                requestMarker: { watcher.requestMarker() }, cookieExists: { [root = root.path] in FileSystem.stamp(root + "/" + $0) != nil })
            try report(taken, &loop)
            if let reason = fullRescanReason(taken, loop) {
                try await fullScan(reason, progress: nil, loop: loop)
                loop.nextRescan = nextPeriodicRescan()
            } else {
                try await reconcile(taken, queue: queue, loop: loop)
            }
            try await processCookies(taken.cookies, loop: loop)
            if taken.finished { break }
        }
    }

    /// What the watch loop carries from one tick to the next.
    private struct WatchLoop {
        let rules: SharedIgnoreRules
        let onEvent: (@Sendable (MirrorEvent) -> Void)?
        var nextRescan: ContinuousClock.Instant
        var limitLogged = false

        var onBatch: @Sendable (ScanSummary, ChangeToken?) -> Void {
            let onEvent = self.onEvent
            return { summary, token in onEvent?(.batchCommitted(summary, token: token)) }
        }
    }

    private func startWatcher(_ rules: SharedIgnoreRules) throws(SyncError) -> FolderWatcher {
        do {
            var watchOptions = FolderWatchOptions(isIgnored: { [libraries = engine.libraries] in
                rules.isIgnored($0, isDirectory: $1) || libraries.isExcluded($0)
            })
            hooks.configure(&watchOptions)
            let watcher = try FolderWatcher(root: root.path, options: watchOptions)
            hooks.started(watcher)
            return watcher
        } catch {
            throw SyncError(.watchFailed, "cannot watch \(root.path): \(error)")
        }
    }

    /// A full pass (the initial scan when `reason` is nil); then the ignore rules the watcher consults.
    private func fullScan(_ reason: String?, progress: (@Sendable (ScanProgress) -> Void)?, loop: WatchLoop) async throws(SyncError) {
        if let reason {
            options.logger.info("rescanning \(root.path): \(reason)")
            loop.onEvent?(.rescanStarted(reason: reason))
        }
        do {
            _ = try await engine.scan(progress: progress, onBatch: loop.onBatch)
        } catch {
            try handle(error, onEvent: loop.onEvent)
        }
        loop.rules.set(await engine.ignore)
    }

    /// While work is pending, waits until every event about a change made before now has reached the queue (a
    /// marker's round trip through the watcher, a millisecond or so): a round then never reads a path whose
    /// latest event is still on its way (a file written a moment ago in a folder that settles now, the far
    /// half of a move). Bounded by the settle interval, so that a watcher that holds its events cannot stop
    /// the loop.
    private func catchUp(with watcher: FolderWatcher, queue: WatchQueue) async {
        guard queue.hasWork else { return }
        let marker = watcher.requestMarker()
        let deadline = ContinuousClock.now + max(options.settleInterval, .milliseconds(100))
        while !queue.hasReceived(marker: marker) && ContinuousClock.now < deadline && !Task.isCancelled {
            try? await Task.sleep(for: .milliseconds(1))
        }
    }

    /// Logs an exhausted watch limit once; throws when the root is gone.
    private func report(_ taken: WatchQueue.Taken, _ loop: inout WatchLoop) throws(SyncError) {
        if let limit = taken.watchLimit, !loop.limitLogged {
            loop.limitLogged = true
            options.logger.error("\(limit) Until then, changes in unwatched folders of \(root.path) are found by the periodic rescans.")
            loop.onEvent?(.watchLimitReached(message: limit))
        }
        if taken.rootGone {
            let reason = "the folder \(root.path) was deleted, moved or unmounted; nothing was deleted from the library"
            loop.onEvent?(.rootUnavailable(reason: reason))
            throw SyncError(.rootMissing, reason)
        }
    }

    /// Why this tick rescans the whole tree, if it does: a changed ignore file, lost events at the root, or the
    /// periodic rescan (when nothing is pending, or at most a tenth of the interval late).
    private func fullRescanReason(_ taken: WatchQueue.Taken, _ loop: WatchLoop) -> String? {
        if let whole = taken.rescans.first(where: { $0.path.isEmpty }) { return whole.reason }
        if taken.ignoreRulesChanged { return "an ignore file changed" }
        guard let interval = options.rescanInterval, interval > .zero else { return nil }
        let now = taken.round.now
        let due = now >= loop.nextRescan && (taken.isIdle || now >= loop.nextRescan + interval / 10)
        return due ? "periodic rescan" : nil
    }

    /// One round over the ready paths and the subtrees to rescan; with nothing ready, the release of the held
    /// files that nothing pending can claim any more.
    private func reconcile(_ taken: WatchQueue.Taken, queue: WatchQueue, loop: WatchLoop) async throws(SyncError) {
        var paths = Set(taken.ready)
        for rescan in taken.rescans {
            loop.onEvent?(.rescanStarted(reason: "\(rescan.path): \(rescan.reason)"))
            paths.insert(rescan.path)
        }
        do {
            if !paths.isEmpty {
                let (_, retry) = try await engine.reconcile(paths: paths, round: taken.round, onBatch: loop.onBatch)
                queue.retry(retry, of: taken.round)
            } else if await engine.holdsFiles {
                _ = try await engine.releaseHeldFiles(round: taken.round, onBatch: loop.onBatch)
            }
        } catch {
            try handle(error, onEvent: loop.onEvent)
        }
    }

    /// Records the cookies still present (each has its waiter) once everything before them is committed.
    private func processCookies(_ cookies: [String], loop: WatchLoop) async throws(SyncError) {
        guard !cookies.isEmpty else { return }
        let present = cookies.filter { FileSystem.stamp(root.path + "/" + $0) != nil }
        guard !present.isEmpty else { return }
        do { try await engine.processCookies(present) } catch { try handle(error, onEvent: loop.onEvent) }
        for cookie in present { loop.onEvent?(.syncCookieProcessed(cookie)) }
    }

    /// Reports refusals that leave watching possible; rethrows the rest.
    private func handle(_ error: SyncError, onEvent: (@Sendable (MirrorEvent) -> Void)?) throws(SyncError) {
        switch error.kind {
        case .massDeletionRefused(let wouldDelete, let mirrored, _):
            onEvent?(.massDeletionRefused(wouldDelete: wouldDelete, of: mirrored))
        case .rootMissing, .rootUnreadable, .rootEmptied:
            onEvent?(.rootUnavailable(reason: error.message))
            throw error
        default:
            throw error
        }
    }

    private func nextPeriodicRescan() -> ContinuousClock.Instant {
        guard let interval = options.rescanInterval else { return .now.advanced(by: .seconds(86_400 * 365)) }
        return .now.advanced(by: interval * Double.random(in: 0.9...1.1))
    }

    /// The barrier: returns once every change made to the folder before the call is in the library.
    ///
    /// While ``watch(progress:onEvent:)`` runs on this mirror — or the library's mirror writer is a watcher
    /// of the same root elsewhere (the daemon, another mirror) — a cookie file is written into the root and
    /// the call waits until the watcher has committed everything before it; otherwise a full scan runs.
    ///
    /// - Throws: ``SyncError`` from the scan, ``SyncError/Kind/syncTimedOut`` when the watcher did not
    ///   process the cookie within an hour (it may be busy with the initial scan of a large tree).
    public func sync() async throws(SyncError) {
        if syncUsesCookie {
            try await Self.requestSync(library: library, root: root, timeout: .seconds(3600))
        } else {
            try await scan()
        }
    }

    /// The cross-process barrier, for a process that is not the watcher (`photosync changes --sync DIR`):
    /// writes a cookie file `.photosync-sync-<uuid>` into the root and waits until the watcher of this root
    /// (in another process) has committed everything before it and recorded the cookie.
    ///
    /// - Throws: ``SyncError/Kind/syncTimedOut`` when no watcher recorded the cookie within `timeout` (the
    ///   cookie file is then removed), ``SyncError/Kind/cookieUnwritable`` when the root is not writable.
    public static func requestSync(library: PhotoLibrary, root: URL, timeout: Duration) async throws(SyncError) {
        let path = root.standardizedFileURL.resolvingSymlinksInPath().path
        let name = DiskWalker.cookiePrefix + UUID().uuidString
        let file = path + "/" + name
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw SyncError(.cookieUnwritable, "cannot write the sync cookie into \(path): \(String(cString: strerror(errno)))")
        }
        close(fd)
        let recorded: Bool
        do {
            recorded = try await library.waitForMirrorSyncCookie(name, rootPath: path, timeout: timeout)
        } catch {
            unlink(file)
            throw .library(error)
        }
        guard recorded else {
            unlink(file)
            throw SyncError(.syncTimedOut, "no watcher of \(path) processed the sync cookie within \(timeout)")
        }
    }
}
