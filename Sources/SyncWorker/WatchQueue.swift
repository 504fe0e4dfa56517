import FolderWatch
import MediaProbe
import Synchronization

/// What the watcher's event reader hands the watch loop: the pending paths (``PendingPaths``), sync cookies,
/// rescans, and the watcher's state.
final class WatchQueue: Sendable {
    struct State {
        var pending = PendingPaths()
        /// Cookie files seen, in order.
        var cookies: [String] = []
        /// Subtrees to rescan, with why.
        var rescans: [(path: String, reason: String)] = []
        var ignoreRulesChanged = false
        var rootGone = false
        var finished = false
        var watchLimit: String?
        /// The last marker received (``FolderWatcher/requestMarker()``), with the sequence number of the pending
        /// work then: every event about a change made before it was asked for has that number or a lower one.
        var lastMarker: (id: UInt64, sequence: UInt64)?
    }

    /// What one tick of the watch loop takes from the queue.
    struct Taken {
        /// The paths of the groups that are ready (every pending path, when a cookie came).
        var ready: [String]
        var round: WatchRound
        var cookies: [String]
        var rescans: [(path: String, reason: String)]
        var ignoreRulesChanged: Bool
        var rootGone: Bool
        var finished: Bool
        var watchLimit: String?
        /// Nothing is pending any more (besides what was taken).
        var isIdle: Bool { round.stillPending.isEmpty }
    }

    let state = Mutex(State())

    func add(_ event: FolderWatchEvent, at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            func noteIgnoreFile(_ path: String) {
                if FileSystem.name(of: path) == IgnoreRules.fileName { state.ignoreRulesChanged = true }
            }
            func isCookie(_ path: String) -> Bool {
                FileSystem.parent(of: path).isEmpty && path.hasPrefix(DiskWalker.cookiePrefix)
            }
            switch event {
            case .fileChanged(let path) where isCookie(path):
                state.cookies.append(path)
            case .fileChanged(let path), .fileWritten(let path), .fileClosed(let path), .removed(let path):
                // (A cookie's own writes and removal are not work.)
                guard !isCookie(path) else { break }
                noteIgnoreFile(path)
                switch event {
                case .fileWritten: state.pending.written(path, at: now)
                case .fileClosed: state.pending.closed(path, at: now)
                case .removed: state.pending.removed(path, at: now)
                default: state.pending.touch(path, at: now)
                }
            case .moved(let from, let to, let isDirectory):
                noteIgnoreFile(from)
                noteIgnoreFile(to)
                state.pending.moved(from: from, to: to, isDirectory: isDirectory, at: now)
            case .directoryAppeared(let path):
                state.pending.touch(path, at: now)
            case .rescanNeeded(let path, let reason):
                state.rescans.append((path, reason))
            case .rootGone:
                state.rootGone = true
            case .watchLimitReached(_, let message):
                state.watchLimit = message
            case .marker(let id):
                state.lastMarker = (id, state.pending.sequence)
            }
        }
    }

    /// Takes what is ready: the groups that settled, or everything when a cookie came (a barrier).
    ///
    /// A cookie whose file is gone is dropped, and makes no barrier: a pass already recorded it (a scan's walk
    /// meets the cookies in the root, and the pass removes them once recorded), or its waiter gave up. Taking
    /// everything then would judge a file that left the tree a moment ago gone at once, with no hold — and
    /// the barrier its waiter asked for was given by that pass.
    ///
    /// - Parameters:
    ///   - settle: how long a group must be quiet (``FolderMirrorOptions/settleInterval``).
    ///   - openLimit: how long a file written and not closed must be quiet
    ///     (``FolderMirrorOptions/openFileSettleInterval``).
    ///   - requestMarker: asks the watcher for a marker (``FolderWatcher/requestMarker()``).
    ///   - cookieExists: whether a cookie's file is still in the root.
    func take(
        at now: ContinuousClock.Instant, settle: Duration, openLimit: Duration, requestMarker: @escaping @Sendable () -> UInt64,
        cookieExists: (String) -> Bool
    ) -> Taken {
        state.withLock { state in
            if !state.cookies.isEmpty { state.cookies.removeAll { !cookieExists($0) } }
            let isBarrier = !state.cookies.isEmpty
            let taken = isBarrier ? state.pending.takeAll() : state.pending.takeReady(at: now, settle: settle, openLimit: openLimit)
            let round = WatchRound(
                pendingFloor: state.pending.floor, stillPending: state.pending.isEmpty ? [] : state.pending.paths,
                taken: Dictionary(taken.lazy.map { ($0.path, $0.sequence) }, uniquingKeysWith: min),
                lastMarker: state.lastMarker, requestMarker: requestMarker, isBarrier: isBarrier, now: now)
            defer {
                state.cookies = []
                state.rescans = []
                state.ignoreRulesChanged = false
                state.watchLimit = nil
            }
            return Taken(
                ready: taken.map(\.path), round: round, cookies: state.cookies, rescans: state.rescans,
                ignoreRulesChanged: state.ignoreRulesChanged, rootGone: state.rootGone, finished: state.finished,
                watchLimit: state.watchLimit)
        }
    }

    /// Whether anything waits: pending paths, cookies, rescans.
    var hasWork: Bool {
        state.withLock { !$0.pending.isEmpty || !$0.cookies.isEmpty || !$0.rescans.isEmpty || $0.ignoreRulesChanged }
    }

    /// Whether the marker (or a later one) has arrived, or the watcher's stream has ended.
    func hasReceived(marker: UInt64) -> Bool {
        state.withLock { ($0.lastMarker?.id ?? 0) >= marker || $0.finished }
    }

    /// Marks paths again, to be reconciled once quiet (files that were still being written), each with the
    /// sequence number of the path `round` took it with (``PendingPaths/retry(_:sequence:at:)``).
    func retry(_ paths: [String], of round: WatchRound, at now: ContinuousClock.Instant = .now) {
        guard !paths.isEmpty else { return }
        state.withLock { state in
            for path in paths { state.pending.retry(path, sequence: round.sequence(takenWith: path), at: now) }
        }
    }
}
