import Foundation
import FolderWatch
import LibraryStorage
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Wakes waiters when a transaction commits, in this process or in another one that opened the same library.
///
/// A writer, after each commit, rewrites the tiny file `.commits` in the library directory; every process
/// that has waiters watches the directory with inotify and wakes them on `IN_CLOSE_WRITE` of that file. A
/// commit made through this handle wakes its waiters directly. Waiters always re-check the database, so a
/// notification is only a hint: a missed one (a writer killed between its commit and its notification, a
/// file system without inotify) costs at most ``pollInterval`` of latency, never a missed change.
///
/// On an engine that carries commit hints itself (``CommitSignaling``: PostgreSQL's `LISTEN`/`NOTIFY`,
/// which reaches processes on other machines, where the file's inotify events don't), the writer also
/// publishes a hint inside its transaction (``willCommit(in:)``), and the notifier subscribes to the hints of
/// other processes, next to watching the file: whichever arrives first wakes the waiters.
///
/// The watch (and the subscription) start with the first waiter or listener, before the waiter first reads
/// the database (``generation`` starts them), and once in place they signal once: a commit that came
/// between a reader's check and the watch is re-checked for. A subscription whose connection broke signals
/// once it is back, for the same reason.
final class CommitNotifier: Sendable {
    /// The default of ``pollInterval``.
    static let defaultPollInterval: Duration = .seconds(1)
    static let fileName = ".commits"

    /// How often waiters re-check the database when no notification arrives; nil: only notifications wake
    /// them (tests proving that notifications arrive).
    let pollInterval: Duration?

    private struct Waiter {
        let generation: UInt64
        let continuation: CheckedContinuation<Void, Never>
    }

    private struct State {
        var generation: UInt64 = 0
        var waiters: [UInt64: Waiter] = [:]
        var nextWaiterID: UInt64 = 0
        var listeners: [UInt64: @Sendable () -> Void] = [:]
        var watcherStarted = false
        var subscription: (any CommitSignalSubscription)?
    }

    private let directory: URL
    private let signals: (any CommitSignaling)?
    private let state = Mutex(State())
    private let stopPipe: (read: Int32, write: Int32)

    /// Makes the notifier of the library in `libraryDirectory`, whose engine carries commit hints when
    /// `signals` is not nil.
    init(
        libraryDirectory: URL, pollInterval: Duration? = CommitNotifier.defaultPollInterval,
        signals: (any CommitSignaling)? = nil
    ) {
        directory = libraryDirectory
        self.pollInterval = pollInterval
        self.signals = signals
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) != 0 { fds = [-1, -1] }
        stopPipe = (fds[0], fds[1])
    }

    deinit {
        state.withLock { $0.subscription }?.cancel()
        if stopPipe.write >= 0 {
            var byte: UInt8 = 1
            _ = write(stopPipe.write, &byte, 1)
            close(stopPipe.write)
        }
        // The watcher thread closes the read end when it sees the stop byte.
        if !state.withLock({ $0.watcherStarted }), stopPipe.read >= 0 { close(stopPipe.read) }
    }

    /// The current generation: it increases on every notification received. A waiter reads it before it
    /// checks the database; the first read starts the watch (and the subscription), so that every commit
    /// after the check is notified.
    var generation: UInt64 {
        startWatcherIfNeeded()
        return state.withLock { $0.generation }
    }

    /// The number of waiters suspended now (tests wait for a waiter to be in place).
    var waiterCount: Int { state.withLock { $0.waiters.count } }

    /// Publishes a commit hint inside the write transaction `db` runs, on an engine that carries them (see
    /// ``CommitSignaling/publishCommitSignal(in:)``); nothing on others. Called before the transaction
    /// commits, when it journaled something or changed a client's state.
    ///
    /// - Throws: the engine's error.
    func willCommit(in db: any SQLConnection) throws {
        try signals?.publishCommitSignal(in: db)
    }

    /// Tells this process's waiters and, through the notification file, every other process's waiters that
    /// a transaction committed. Called after the commit returned.
    func didCommit(sequence: Int64) {
        let path = directory.appending(path: Self.fileName).path
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        if fd >= 0 {
            var value = sequence.littleEndian
            _ = pwrite(fd, &value, 8, 0)
            close(fd)
        }
        signal()
    }

    /// Wakes every waiter and listener.
    func signal() {
        let (waiters, listeners) = state.withLock { state -> ([Waiter], [@Sendable () -> Void]) in
            state.generation &+= 1
            let waiters = Array(state.waiters.values)
            state.waiters.removeAll()
            return (waiters, Array(state.listeners.values))
        }
        for waiter in waiters { waiter.continuation.resume() }
        for listener in listeners { listener() }
    }

    /// Registers a callback run (on the watcher thread or the committing thread) after every notification.
    ///
    /// The listener is in place before the watch starts, so it gets the signal the watch sends once it is in
    /// place: a listener that read the journal's position before registering catches up on what came between.
    func addListener(_ listener: @escaping @Sendable () -> Void) -> UInt64 {
        let id = state.withLock { state in
            state.nextWaiterID += 1
            state.listeners[state.nextWaiterID] = listener
            return state.nextWaiterID
        }
        startWatcherIfNeeded()
        return id
    }

    func removeListener(_ id: UInt64) {
        _ = state.withLock { $0.listeners.removeValue(forKey: id) }
    }

    /// Suspends until the generation moves past `generation`, or until `deadline`, or cancellation.
    func wait(afterGeneration generation: UInt64, until deadline: ContinuousClock.Instant) async {
        startWatcherIfNeeded()
        let id = state.withLock { state -> UInt64 in
            state.nextWaiterID += 1
            return state.nextWaiterID
        }
        let remaining = ContinuousClock.now.duration(to: deadline)
        let wake = pollInterval.map { min(remaining, $0) } ?? remaining
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let registered = state.withLock { state -> Bool in
                    guard state.generation == generation, !Task.isCancelled else { return false }
                    state.waiters[id] = Waiter(generation: generation, continuation: continuation)
                    return true
                }
                guard registered else {
                    continuation.resume()
                    return
                }
                // At most a day at a time (no overflow for a far deadline; the waiter then just re-checks).
                let seconds = min(wake.components.seconds, 86_400)
                let nanoseconds = max(0, seconds * 1_000_000_000 + wake.components.attoseconds / 1_000_000_000)
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
                    resume(id)
                }
            }
        } onCancel: {
            resume(id)
        }
    }

    private func resume(_ id: UInt64) {
        let waiter = state.withLock { $0.waiters.removeValue(forKey: id) }
        waiter?.continuation.resume()
    }

    private func startWatcherIfNeeded() {
        let start = state.withLock { state -> Bool in
            if state.watcherStarted { return false }
            state.watcherStarted = true
            return true
        }
        guard start else { return }
        let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_MODIFY)
        var inotify = try? InotifyReader()
        if let reader = inotify, (try? reader.addWatch(directory.path, mask: mask)) == nil {
            reader.close()
            inotify = nil
        }
        startPolling(inotify)
        if let signals {
            let subscription = signals.subscribeToCommitSignals { [weak self] in self?.signal() }
            state.withLock { $0.subscription = subscription }
        }
        // In place: whoever checked the database before (another thread's first waiter, which found the watch
        // starting; a listener that read the journal's position) re-checks.
        signal()
    }

    /// The watcher thread: blocks in poll(2) on the inotify descriptor; wakes waiters on a notification and,
    /// as a safety net, once per ``pollInterval`` when nothing arrives (without inotify: only then).
    private func startPolling(_ inotify: InotifyReader?) {
        let stopFD = stopPipe.read
        let timeout = pollInterval.map { interval in
            Int32(clamping: max(1, interval.components.seconds * 1000 + interval.components.attoseconds / 1_000_000_000_000_000))
        } ?? -1
        let thread = Thread { [weak self] in
            defer {
                inotify?.close()
                if stopFD >= 0 { close(stopFD) }
            }
            var fds = [
                pollfd(fd: inotify?.descriptor ?? -1, events: Int16(POLLIN), revents: 0),
                pollfd(fd: stopFD, events: Int16(POLLIN), revents: 0),
            ]
            var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 8)
            defer { buffer.deallocate() }
            while true {
                fds[0].revents = 0
                fds[1].revents = 0
                let ready = poll(&fds, 2, timeout)
                if fds[1].revents != 0 { return }
                guard let self else { return }
                if ready > 0, fds[0].revents != 0, let inotify {
                    if Self.readNotifications(inotify, into: &buffer) { self.signal() }
                } else if ready == 0 {
                    self.signal()  // Safety net: waiters re-check the database.
                }
            }
        }
        thread.name = "photosync.commit-notifier"
        thread.start()
    }

    /// Reads every waiting inotify record; whether one concerned the notification file.
    private static func readNotifications(_ inotify: InotifyReader, into buffer: inout UnsafeMutableRawBufferPointer) -> Bool {
        var relevant = false
        while inotify.read(into: &buffer, { if $0.name == fileName { relevant = true } }) != .empty {}
        return relevant
    }
}
