import Foundation
import PhotoLibrary
import PhotosyncWire
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How a pre-render tells other processes where it is: two files in the library directory, beside
/// `daemon.lock`.
///
/// - `prerender.lock` is held (`flock(2)`, exclusive) by the process pre-rendering, for as long as it runs:
///   one pre-render per library at a time, and the kernel releases it when the process exits or dies, so a
///   crash never leaves a pre-render that looks alive.
/// - `prerender.json` holds its progress (``Wire/Prerender``), replaced whole a few times a second (written
///   to a temporary file and renamed over it, so that a reader never sees half of it), and kept after the
///   run: `photosync status` shows the last pre-render, and whether its process still runs.
///
/// Both are derived data: deleting them loses nothing.
final class PrerenderPublisher: Sendable {
    static let lockFileName = "prerender.lock"
    static let stateFileName = "prerender.json"

    private let descriptor: Int32
    private let stateURL: URL
    /// Publications closer together than this are skipped (the last one is always written).
    private let interval: Duration
    private let lastPublished = Mutex<ContinuousClock.Instant?>(nil)

    private init(descriptor: Int32, stateURL: URL, interval: Duration) {
        self.descriptor = descriptor
        self.stateURL = stateURL
        self.interval = interval
    }

    deinit { close(descriptor) }

    /// Takes the pre-render lock of the library at `libraryURL`.
    ///
    /// - Throws: ``CommandFailure`` naming the process that pre-renders the library already.
    static func acquire(libraryURL: URL, interval: Duration = .milliseconds(250)) throws -> PrerenderPublisher {
        let lockURL = libraryURL.appending(path: lockFileName)
        let descriptor = open(lockURL.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure("can't open \(lockURL.path): \(String(cString: strerror(errno)))")
        }
        // A `status` probing the lock holds it shared for an instant: try a little longer than that.
        var attempts = 0
        while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
            let failure = errno
            attempts += 1
            if failure == EWOULDBLOCK && attempts < 25 {
                usleep(10_000)
                continue
            }
            close(descriptor)
            let holder = readState(libraryURL: libraryURL).map { " (pid \($0.pid))" } ?? ""
            throw CommandFailure(
                code: "busy",
                failure == EWOULDBLOCK
                    ? "another photosync process\(holder) is pre-rendering \(libraryURL.path): `photosync status` shows its progress"
                    : "can't lock \(lockURL.path): \(String(cString: strerror(failure)))")
        }
        return PrerenderPublisher(descriptor: descriptor, stateURL: libraryURL.appending(path: stateFileName), interval: interval)
    }

    /// Publishes `state` unless the last publication is more recent than the interval (`force` writes it
    /// anyway: the first and the last).
    func publish(_ state: Wire.Prerender, force: Bool = false) {
        let now = ContinuousClock.now
        // One publication at a time: they share the temporary file.
        lastPublished.withLock { last in
            if !force, let last, now - last < interval { return }
            last = now
            store(state)
        }
    }

    private func store(_ state: Wire.Prerender) {
        guard let data = try? Wire.makeEncoder().encode(state) else { return }
        let temporary = stateURL.deletingLastPathComponent().appending(path: ".\(Self.stateFileName).\(getpid())").path
        let written = data.withUnsafeBytes { bytes -> Bool in
            let file = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
            guard file >= 0 else { return false }
            defer { close(file) }
            return write(file, bytes.baseAddress, bytes.count) == bytes.count
        }
        // Progress that can't be published costs the readers a stale view, never the pre-render.
        if !written || rename(temporary, stateURL.path) != 0 { unlink(temporary) }
    }

    /// The last pre-render of the library at `libraryURL` as its process published it, with its state
    /// corrected by the lock: a run published as running whose process is gone was interrupted.
    ///
    /// - Complexity: one small read, one open and one non-blocking `flock` probe.
    static func readState(libraryURL: URL) -> Wire.Prerender? {
        guard let data = FileManager.default.contents(atPath: libraryURL.appending(path: stateFileName).path),
            var state = try? Wire.makeDecoder().decode(Wire.Prerender.self, from: data)
        else { return nil }
        if state.state == "running" && !isHeld(libraryURL: libraryURL) { state.state = "interrupted" }
        return state
    }

    /// Whether a process holds the pre-render lock now.
    static func isHeld(libraryURL: URL) -> Bool {
        let descriptor = open(libraryURL.appending(path: lockFileName).path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        // A shared lock can be had exactly when no one holds the exclusive one.
        guard flock(descriptor, LOCK_SH | LOCK_NB) == 0 else { return true }
        _ = flock(descriptor, LOCK_UN)
        return false
    }
}
