public import Foundation
import FolderWatch
import Logging
import MediaProbe
public import PhotoLibrary
import Synchronization

/// What the watcher's event reader hands the watch loop: paths waiting for quiet, and the rest.
final class WatchQueue: Sendable {
    struct State {
        /// Paths touched, with when they were last touched.
        var pending: [String: ContinuousClock.Instant] = [:]
        /// Cookie files seen, in order.
        var cookies: [String] = []
        /// Subtrees to rescan, with why.
        var rescans: [(path: String, reason: String)] = []
        var ignoreRulesChanged = false
        var rootGone = false
        var finished = false
        var watchLimit: String?
    }

    let state = Mutex(State())

    func add(_ event: FolderWatchEvent, at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            func touch(_ path: String) {
                if FileSystem.name(of: path) == IgnoreRules.fileName { state.ignoreRulesChanged = true }
                state.pending[path] = now
            }
            switch event {
            case .fileChanged(let path):
                if FileSystem.parent(of: path).isEmpty && path.hasPrefix(DiskWalker.cookiePrefix) {
                    state.cookies.append(path)
                } else {
                    touch(path)
                }
            case .removed(let path):
                if !(FileSystem.parent(of: path).isEmpty && path.hasPrefix(DiskWalker.cookiePrefix)) { touch(path) }
            case .moved(let from, let to, _):
                touch(from)
                touch(to)
            case .directoryAppeared(let path):
                touch(path)
            case .rescanNeeded(let path, let reason):
                state.rescans.append((path, reason))
            case .rootGone:
                state.rootGone = true
            case .watchLimitReached(_, let message):
                state.watchLimit = message
            }
        }
    }
}

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
    /// Events from inotify (see `FolderWatcher`) mark paths; once a path has been quiet for
    /// ``FolderMirrorOptions/settleInterval`` it is reconciled with the same rules as a scan (a file still
    /// being written is retried after the next quiet window). A rename is reconciled as one pass over its
    /// two paths, so it is a move. A lost event (queue overflow, a watch that could not be added) rescans
    /// the subtree concerned; a full rescan also runs every ``FolderMirrorOptions/rescanInterval`` (±10 %),
    /// for file systems that send no events. An exhausted watch limit is logged once, with the sysctl that
    /// raises it; periodic rescans then cover what is not watched.
    ///
    /// Sync cookies (``sync()``, ``requestSync(library:root:timeout:)``) are barriers: everything pending
    /// when a cookie appears is reconciled and committed at once, then the cookie is recorded.
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
        let logger = options.logger
        try await beginWriting(mode: "watch")
        defer { endWriting() }
        let rules = SharedIgnoreRules((try? IgnoreRules.load(root: root.path, includeDefaults: options.includeDefaultIgnoreRules))
            ?? IgnoreRules(includeDefaults: options.includeDefaultIgnoreRules))
        let watcher: FolderWatcher
        do {
            var watchOptions = FolderWatchOptions(isIgnored: { [libraries = engine.libraries] in
                rules.isIgnored($0, isDirectory: $1) || libraries.isExcluded($0)
            })
            hooks.configure(&watchOptions)
            watcher = try FolderWatcher(root: root.path, options: watchOptions)
            hooks.started(watcher)
        } catch {
            throw SyncError(.watchFailed, "cannot watch \(root.path): \(error)")
        }
        defer { watcher.stop() }
        let queue = WatchQueue()
        let reader = Task {
            for await event in watcher.events { queue.add(event) }
            queue.state.withLock { $0.finished = true }
        }
        defer { reader.cancel() }
        watching.withLock { $0 += 1 }
        defer { watching.withLock { $0 -= 1 } }

        let onBatch: @Sendable (ScanSummary, ChangeToken?) -> Void = { summary, token in
            onEvent?(.batchCommitted(summary, token: token))
        }
        func fullScan(_ reason: String?) async throws(SyncError) {
            if let reason {
                logger.info("rescanning \(root.path): \(reason)")
                onEvent?(.rescanStarted(reason: reason))
            }
            do {
                _ = try await engine.scan(progress: reason == nil ? progress : nil, onBatch: onBatch)
            } catch {
                try handle(error, onEvent: onEvent)
            }
            rules.set(await engine.ignore)
        }

        try await fullScan(nil)
        var nextRescan = nextPeriodicRescan()
        var limitLogged = false
        let tick = min(options.settleInterval / 4, .milliseconds(50))
        while !Task.isCancelled {
            try? await Task.sleep(for: tick)
            let now = ContinuousClock.now
            let settle = options.settleInterval
            let (ready, cookies, rescans, ignoreChanged, rootGone, finished, limit) = queue.state.withLock { state in
                let cookies = state.cookies
                var ready: [String] = []
                for (path, touched) in state.pending where !cookies.isEmpty || now - touched >= settle { ready.append(path) }
                for path in ready { state.pending[path] = nil }
                defer {
                    state.cookies = []
                    state.rescans = []
                    state.ignoreRulesChanged = false
                    state.watchLimit = nil
                }
                return (ready, cookies, state.rescans, state.ignoreRulesChanged, state.rootGone, state.finished, state.watchLimit)
            }
            if let limit, !limitLogged {
                limitLogged = true
                logger.error("\(limit) Until then, changes in unwatched folders of \(root.path) are found by the periodic rescans.")
                onEvent?(.watchLimitReached(message: limit))
            }
            if rootGone {
                let reason = "the folder \(root.path) was deleted, moved or unmounted; nothing was deleted from the library"
                onEvent?(.rootUnavailable(reason: reason))
                throw SyncError(.rootMissing, reason)
            }
            var fullReason: String?
            if ignoreChanged { fullReason = "an ignore file changed" }
            if let whole = rescans.first(where: { $0.path.isEmpty }) { fullReason = whole.reason }
            if fullReason == nil, let interval = options.rescanInterval, now >= nextRescan, interval > .zero {
                fullReason = "periodic rescan"
            }
            if let fullReason {
                try await fullScan(fullReason)
                nextRescan = nextPeriodicRescan()
            } else {
                var paths = Set(ready)
                for rescan in rescans {
                    onEvent?(.rescanStarted(reason: "\(rescan.path): \(rescan.reason)"))
                    paths.insert(rescan.path)
                }
                if !paths.isEmpty {
                    do {
                        let (_, retry) = try await engine.reconcile(paths: paths, onBatch: onBatch)
                        if !retry.isEmpty {
                            let later = ContinuousClock.now
                            queue.state.withLock { state in for path in retry { state.pending[path] = later } }
                        }
                    } catch {
                        try handle(error, onEvent: onEvent)
                    }
                }
            }
            if !cookies.isEmpty {
                let present = cookies.filter { FileSystem.stamp(root.path + "/" + $0) != nil }
                if !present.isEmpty {
                    do { try await engine.processCookies(present) } catch { try handle(error, onEvent: onEvent) }
                    for cookie in present { onEvent?(.syncCookieProcessed(cookie)) }
                }
            }
            if finished { break }
        }
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
