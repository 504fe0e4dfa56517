import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What a ``FolderWatcher`` and its reader thread share: the stop, resume and marker requests, the wake-up
/// descriptor that interrupts the reader's poll(2), and the number of watched directories.
///
/// Held by both the watcher and the reader thread; the wake-up descriptor is closed when the last of them lets
/// go, so a late ``requestStop()`` never writes to a descriptor number that was closed and reused.
final class WatcherControl: Sendable {
    struct State {
        var stopRequested = false
        var resumeRequested = false
        /// Markers asked for and not yet taken by the reader thread.
        var markers: [UInt64] = []
        /// The last marker number handed out.
        var lastMarker: UInt64 = 0
    }

    let state = Mutex(State())
    let watchedDirectories = Atomic<Int>(0)
    /// The read end of a pipe: readable when the reader thread has a request to look at.
    let wakeDescriptor: Int32
    /// The write end of that pipe.
    private let wakeWriteDescriptor: Int32

    init?() {
        var descriptors: [Int32] = [-1, -1]
        guard pipe(&descriptors) == 0 else { return nil }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        }
        wakeDescriptor = descriptors[0]
        wakeWriteDescriptor = descriptors[1]
    }

    deinit {
        close(wakeDescriptor)
        close(wakeWriteDescriptor)
    }

    /// Asks the reader thread to stop. Idempotent.
    func requestStop() {
        let first = state.withLock { state -> Bool in
            defer { state.stopRequested = true }
            return !state.stopRequested
        }
        if first { wake() }
    }

    /// Lets a reader that holds events (``FolderWatchOptions/holdsEventsUntilResumed``) start reading.
    func requestResume() {
        state.withLock { $0.resumeRequested = true }
        wake()
    }

    /// Asks the reader thread for a marker event after everything the kernel has queued so far.
    func requestMarker() -> UInt64 {
        let marker = state.withLock { state in
            state.lastMarker += 1
            state.markers.append(state.lastMarker)
            return state.lastMarker
        }
        wake()
        return marker
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWriteDescriptor, &byte, 1)
    }
}
