import Foundation
import PhotoLibrary
import Synchronization

/// The mirror writer lock as one ``FolderMirror`` holds it: taken by the first of its passes to start,
/// shared by the passes that overlap it (a ``FolderMirror/scan(progress:)`` during its own
/// ``FolderMirror/watch(progress:onEvent:)``: the engine serialises them), released when the last one ends.
final class WriterLease: Sendable {
    private struct State {
        var passes = 0
        var lock: MirrorWriterLock?
        /// Attempts that found another holder (for tests that wait for a pass to be waiting).
        var refusals = 0
    }

    private let state = Mutex(State())

    init() {}

    /// Joins the lease, taking the library's lock when no pass of this mirror holds it.
    ///
    /// Each attempt runs under the lease's mutex and never blocks (`LOCK_NB`), so that two passes of this
    /// mirror starting at once never lock each other out; waits happen between attempts, outside it.
    ///
    /// - Throws: ``SyncError/Kind/mirrorWriterBusy(holder:)`` when another writer still holds the lock after
    ///   `timeout` (at least ``MirrorWriterLock/probeGrace``) or when the task is cancelled meanwhile;
    ///   ``SyncError/Kind/library(_:)`` when the lock file can't be used.
    func enter(library: PhotoLibrary, root: String, mode: String, timeout: Duration) async throws(SyncError) {
        let deadline = ContinuousClock.now.advanced(by: max(timeout, MirrorWriterLock.probeGrace))
        var pause = Duration.milliseconds(10)
        while true {
            let holder: MirrorWriterLock.Holder?? = try state.withLock { state throws(SyncError) in
                if state.passes > 0 {
                    state.passes += 1
                    return .none
                }
                switch try MirrorWriterLock.attempt(library: library, root: root, mode: mode) {
                case .acquired(let lock):
                    state.lock = lock
                    state.passes = 1
                    return .none
                case .held(let holder):
                    state.refusals += 1
                    return .some(holder)
                }
            }
            guard let holder else { return }
            if ContinuousClock.now >= deadline || Task.isCancelled {
                throw MirrorWriterLock.busy(holder ?? MirrorWriterLock.currentHolder(libraryURL: library.url), libraryURL: library.url)
            }
            try? await Task.sleep(for: pause)
            pause = min(pause * 2, .milliseconds(100))
        }
    }

    /// How many attempts found another holder so far.
    var refusals: Int { state.withLock { $0.refusals } }

    /// Leaves the lease; the last pass to leave releases the lock.
    func leave() {
        let released = state.withLock { state -> MirrorWriterLock? in
            state.passes -= 1
            guard state.passes == 0 else { return nil }
            defer { state.lock = nil }
            return state.lock
        }
        // Closed outside the mutex.
        withExtendedLifetime(released) {}
    }
}

extension FolderMirror {
    /// Starts a pass as the library's mirror writer (see ``MirrorWriterLock``); pair with ``endWriting()``.
    ///
    /// - Parameter mode: `scan` or `watch`, recorded for other processes to read.
    /// - Throws: ``SyncError/Kind/mirrorWriterBusy(holder:)`` when another writer holds the library past
    ///   ``FolderMirrorOptions/mirrorWriterWait``.
    func beginWriting(mode: String) async throws(SyncError) {
        try await writer.enter(library: library, root: root.path, mode: mode, timeout: options.mirrorWriterWait)
    }

    /// Ends a pass started with ``beginWriting(mode:)``.
    func endWriting() {
        writer.leave()
    }

    /// Whether ``sync()`` is a barrier through a watcher's cookie rather than a scan: a watch of this mirror
    /// runs, or the library's mirror writer is a watcher of this root elsewhere (another process, or another
    /// mirror of this one), which a scan could not join.
    var syncUsesCookie: Bool {
        if watching.withLock({ $0 }) > 0 { return true }
        guard let holder = MirrorWriterLock.currentHolder(libraryURL: library.url) else { return false }
        return holder.mode == "watch" && holder.root == root.path
    }
}
