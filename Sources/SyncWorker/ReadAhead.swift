import Foundation
import MediaProbe
import PhotoLibrary
import Synchronization

/// Reads (probes and hashes, ``FileHasher``) the files of a pass ahead of the engine, on threads of its own,
/// and hands the outcomes back one by one in the order of the list: the engine decides and commits exactly
/// as if it had read each file itself when it came to it, while the next files are being read.
///
/// ## Bounds
/// At most ``window`` files are read and not yet taken: a reader waits for the engine before it starts the
/// file `window` places past the one the engine waits for. Memory is one ``ProbeBuffer`` (1 MiB) per reader
/// and `window` outcomes (each one file's metadata), whatever the number of files.
///
/// ## Helpers park while the readers are ahead
/// The first reader reads whenever the window has room. The others (helpers) wait while the files read and not
/// taken fill at least half the window: then one reader keeps the engine fed, and the other cores go to the
/// engine's commits — with as many reader threads as cores, every reader competed with the engine's thread,
/// which bounds a pass over files in the page cache (a scan of 20,000 images took 10–15 % longer). Each time the
/// engine has to wait for a file (files slow to come: read from a disk), a parked helper is woken, and reads
/// overlap again.
///
/// ## Stopping
/// ``stop()`` (the engine stops taking outcomes: the pass is cancelled, or it failed) lets each reader finish
/// the file it is reading, starts none, and waits for the readers to end; outcomes not taken are dropped —
/// their files are read again by the next pass, like files a serial pass had not reached.
///
/// The readers are threads, not tasks: they block in system calls, and the engine waits for them from its
/// actor (a task waiting for tasks on a two-thread cooperative pool could wait for ever).
final class ReadAhead: Sendable {
    typealias Candidate = (path: String, stamp: FileStamp)

    private struct State {
        /// The next file a reader takes.
        var nextToRead = 0
        /// The file whose outcome the engine takes next.
        var nextToTake = 0
        /// Outcomes read and not taken, by index modulo the window.
        var slots: [FileHasher.Outcome?]
        var stopped = false
        /// Helpers waiting on `unpark` because the window was at least half full.
        var parked = 0
    }

    let files: [Candidate]
    let window: Int
    private let root: String
    private let timeZone: TimeZone
    private let openFileQuiet: Duration?
    private let state: Mutex<State>
    /// One signal per outcome stored, by slot: the engine waits on the slot of the file it takes next.
    private let filled: [DispatchSemaphore]
    /// Free places in the window: a reader takes one before it starts a file; the engine gives one back for
    /// each outcome it takes.
    private let room: DispatchSemaphore
    /// One signal per reader that ended.
    private let ended = DispatchSemaphore(value: 0)
    /// Parked helpers wait here: one is signalled each time the engine has to wait for an outcome, all of them
    /// at ``stop()``.
    private let unpark = DispatchSemaphore(value: 0)
    private let readers: Int

    /// Starts `readers` threads reading `files`, at most `window` ahead of the engine.
    init(
        files: [Candidate], root: String, timeZone: TimeZone, openFileQuiet: Duration?, readers: Int, window: Int
    ) {
        precondition(readers >= 1 && window >= readers)
        self.files = files
        self.window = window
        self.root = root
        self.timeZone = timeZone
        self.openFileQuiet = openFileQuiet
        self.readers = readers
        self.state = Mutex(State(slots: Array(repeating: nil, count: window)))
        self.filled = (0..<window).map { _ in DispatchSemaphore(value: 0) }
        // Made empty and given its places: libdispatch traps when a semaphore is freed holding less than its
        // initial value, which a stopped read-ahead's window may.
        self.room = DispatchSemaphore(value: 0)
        for _ in 0..<window { room.signal() }
        for number in 0..<readers {
            let thread = Thread { [self] in read(helper: number > 0) }
            thread.name = "photosync-read-\(number)"
            thread.start()
        }
    }

    /// A reader's loop: take the next file when the window has room (a helper: and is less than half full),
    /// read it, store its outcome.
    private func read(helper: Bool) {
        let buffer = ProbeBuffer()
        while true {
            if helper { parkWhileAhead() }
            room.wait()
            let index: Int? = state.withLock { state in
                guard !state.stopped, state.nextToRead < files.count else { return nil }
                defer { state.nextToRead += 1 }
                return state.nextToRead
            }
            guard let index else { break }
            let file = files[index]
            let outcome = FileHasher.hash(
                root: root, path: file.path, stamp: file.stamp, timeZone: timeZone, openFileQuiet: openFileQuiet, buffer: buffer)
            state.withLock { $0.slots[index % window] = outcome }
            filled[index % window].signal()
        }
        // Let the next reader see the end (or the stop) too.
        room.signal()
        ended.signal()
    }

    /// A helper waits here while the files read or being read, and not taken, fill half the window or more
    /// (and files remain, and the read-ahead is not stopped).
    private func parkWhileAhead() {
        let park = state.withLock { state in
            guard !state.stopped, state.nextToRead < files.count, state.nextToRead - state.nextToTake >= window / 2
            else { return false }
            state.parked += 1
            return true
        }
        if park { unpark.wait() }
    }

    /// The outcome of the next file of the list, in order; waits for a reader to finish it. Nil after the last.
    func next() -> FileHasher.Outcome? {
        let index = state.withLock { $0.nextToTake }
        guard index < files.count else { return nil }
        if filled[index % window].wait(timeout: .now()) == .timedOut {
            // The engine waits for the readers: a parked helper reads again.
            let wake = state.withLock { state in
                guard state.parked > 0 else { return false }
                state.parked -= 1
                return true
            }
            if wake { unpark.signal() }
            filled[index % window].wait()
        }
        let outcome = state.withLock { state in
            defer {
                state.slots[index % window] = nil
                state.nextToTake += 1
            }
            return state.slots[index % window]
        }
        room.signal()
        return outcome
    }

    /// How many helpers are parked (waiting while the readers are ahead).
    var parkedHelpers: Int { state.withLock { $0.parked } }

    /// How many files readers have started (read, or being read).
    var filesStarted: Int { state.withLock { $0.nextToRead } }

    /// Stops the readers after the files they are reading, and waits for them to end. Safe to call more than
    /// once; the engine calls it when it leaves the list, whether it took every outcome or not.
    func stop() {
        let (first, parked) = state.withLock { state in
            defer {
                state.stopped = true
                state.parked = 0
            }
            return (!state.stopped, state.parked)
        }
        guard first else { return }
        for _ in 0..<parked { unpark.signal() }
        // Wake readers waiting for room; each one that ends passes the signal on.
        room.signal()
        for _ in 0..<readers { ended.wait() }
    }
}
