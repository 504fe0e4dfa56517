import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// One writer of a library's mirror at a time: the daemon (`photosync watch`) or a one-pass `photosync scan`.
///
/// The lock is an advisory `flock(2)` on `daemon.lock` in the library directory, held for the life of the
/// process: the kernel releases it when the process exits or is killed, so a crash never leaves a stale
/// lock. The file says who holds it (pid, the watched folder, since when, the command), so that a second
/// process can name the running one.
final class DaemonLock {
    /// What the holder of the lock wrote about itself.
    struct Holder: Codable, Equatable {
        var pid: Int32
        /// The folder it mirrors (absolute).
        var root: String
        /// `watch` or `scan`.
        var mode: String
        var since: Date

        /// For messages: `pid 1234, watch of /home/me/Pictures since 2026-11-23T16:44:44Z`.
        var summary: String { "pid \(pid), \(mode) of \(root) since \(since.formatted(.iso8601))" }
    }

    static let fileName = "daemon.lock"

    private let descriptor: Int32
    let url: URL

    private init(descriptor: Int32, url: URL) {
        self.descriptor = descriptor
        self.url = url
    }

    deinit {
        // Closing the descriptor releases the lock; the file stays (removing it would race a new holder).
        close(descriptor)
    }

    /// Takes the lock of the library at `libraryURL`, or throws naming the process that holds it.
    ///
    /// - Throws: ``CommandFailure`` with exit code 1: held by another process (its pid, folder and mode in
    ///   the message), or the lock file can't be opened.
    static func acquire(libraryURL: URL, root: String, mode: String) throws -> DaemonLock {
        let url = libraryURL.appending(path: fileName)
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw CommandFailure(code: 1, name: "error", message: "can't open \(url.path): \(String(cString: strerror(errno)))")
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
            if failure == EWOULDBLOCK, let holder = readHolder(at: url) {
                throw CommandFailure(
                    code: 1, name: "error",
                    message: "another photosync process (\(holder.summary)) already mirrors into \(libraryURL.path); stop it first")
            }
            throw CommandFailure(
                code: 1, name: "error",
                message: "another photosync process holds \(url.path): \(String(cString: strerror(failure)))")
        }
        let lock = DaemonLock(descriptor: descriptor, url: url)
        let holder = Holder(pid: getpid(), root: root, mode: mode, since: Date())
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let data = (try? encoder.encode(holder)) ?? Data()
        _ = ftruncate(descriptor, 0)
        _ = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return lock
    }

    /// The process holding the lock of the library at `libraryURL`, or nil when none does.
    ///
    /// - Complexity: one open, one non-blocking `flock` probe and one small read.
    static func currentHolder(libraryURL: URL) -> Holder? {
        let url = libraryURL.appending(path: fileName)
        let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        // A shared lock can be had exactly when no one holds the exclusive one.
        if flock(descriptor, LOCK_SH | LOCK_NB) == 0 {
            _ = flock(descriptor, LOCK_UN)
            return nil
        }
        // Held: the holder writes who it is right after taking the lock.
        for _ in 0..<50 {
            if let holder = readHolder(at: url) { return holder }
            usleep(10_000)
        }
        return Holder(pid: 0, root: "?", mode: "unknown", since: Date())
    }

    private static func readHolder(at url: URL) -> Holder? {
        guard let data = try? Data(contentsOf: url), !data.isEmpty else { return nil }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try? decoder.decode(Holder.self, from: data)
    }
}
