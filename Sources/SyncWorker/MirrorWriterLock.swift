public import Foundation
import PhotoLibrary

#if canImport(Glibc)
import Glibc
#endif

/// The one writer of a library's mirror state: whichever process or ``FolderMirror`` runs a pass (a scan, a
/// watch, the scan of a ``FolderMirror/sync()``) holds this lock for the length of the pass.
///
/// Two writers with separate in-memory states would both insert an asset for the same new file, and the
/// mirror's record of the path, overwritten by the second, would leave the first asset a duplicate that no
/// pass ever deletes. So there is one writer per library, whatever root each one mirrors: the daemon
/// (`photosync watch`), a `photosync scan`, or an app embedding ``FolderMirror``.
///
/// The lock is an advisory `flock(2)` on `daemon.lock` in the library directory, and the library's client
/// lock `photosync.sync.writer` (``PhotoLibrary/tryClientLock(_:)``), taken in that order and both held.
/// The file says who holds the lock (``Holder``), so that a refused writer, `photosync status` and
/// ``FolderMirror/sync()`` can name the running one, and excludes writers of builds that knew only the file;
/// the client lock is what excludes writers on other machines when the library is on PostgreSQL — there it
/// is an advisory lock of the database, where a `flock` on a directory several machines mount may not be
/// seen by them all (on SQLite it is a second file lock beside the first: the database is a file of one
/// machine). Both kinds belong to what opened them, so two ``FolderMirror`` instances of one process exclude
/// each other as two processes do, while the passes of one instance share its lock (its engine serialises
/// them). The kernel, and PostgreSQL when the holder's connection ends, release the locks when the holder
/// exits or is killed: a crash never leaves a stale lock.
///
/// On PostgreSQL, who holds the lock is known from the file: on another machine than the holder's it can be
/// read (a shared mount) but its `flock` may not show as held there, so ``currentHolder(libraryURL:)`` — a
/// probe of the file — sees a writer of its own machine only; a writer refused by the database lock names
/// the holder the file records.
public final class MirrorWriterLock: Sendable {
    /// Who holds a library's mirror writer lock, as the holder wrote it.
    public struct Holder: Sendable, Codable, Hashable, CustomStringConvertible {
        /// The holder's process id.
        public var pid: Int32
        /// The folder it mirrors (absolute, symbolic links resolved).
        public var root: String
        /// What it runs: `watch` (a ``FolderMirror/watch(progress:onEvent:)`` loop, such as the daemon) or
        /// `scan` (one pass: ``FolderMirror/scan(progress:)`` or the scan of ``FolderMirror/sync()``).
        public var mode: String
        /// When it took the lock.
        public var since: Date

        /// Makes a holder record.
        public init(pid: Int32, root: String, mode: String, since: Date) {
            self.pid = pid
            self.root = root
            self.mode = mode
            self.since = since
        }

        /// For messages: `pid 1234, watch of /home/me/Pictures since 2026-11-23T16:44:44Z`.
        public var summary: String { "pid \(pid), \(mode) of \(root) since \(since.formatted(.iso8601))" }

        public var description: String { summary }
    }

    /// The lock file's name in the library directory (the name the daemon has always used).
    static let fileName = "daemon.lock"
    /// The name of the library's client lock the writer holds (``PhotoLibrary/tryClientLock(_:)``).
    static let clientLockName = "photosync.sync.writer"

    /// How long an attempt retries a lock held for an instant: a ``currentHolder(libraryURL:)`` probe holds
    /// it shared for a few microseconds.
    static let probeGrace: Duration = .milliseconds(250)

    private let descriptor: Int32
    /// The library's client lock, held with the file's.
    private let clientLock: ClientLock
    /// What this lock wrote about its holder.
    let holder: Holder

    private init(descriptor: Int32, clientLock: ClientLock, holder: Holder) {
        self.descriptor = descriptor
        self.clientLock = clientLock
        self.holder = holder
    }

    deinit {
        // Closing the descriptor releases the lock; the file stays (removing it would race a new holder).
        close(descriptor)
    }

    /// The outcome of one attempt.
    enum Attempt {
        case acquired(MirrorWriterLock)
        /// Held by someone else (nil when the holder has not said who it is yet).
        case held(Holder?)
    }

    /// One non-blocking attempt to take the lock of `library`.
    ///
    /// - Throws: ``SyncError/Kind/library(_:)`` with ``PhotoLibraryError/storageUnavailable(path:reason:)`` when
    ///   the lock file can't be opened or locked for another reason than another holder, or the library's
    ///   database can't be reached for its lock.
    static func attempt(library: PhotoLibrary, root: String, mode: String) throws(SyncError) -> Attempt {
        let url = library.url.appending(path: fileName)
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = "can't open the mirror writer lock: \(String(cString: strerror(errno)))"
            throw SyncError(.library(.storageUnavailable(path: url.path, reason: reason)), "\(url.path): \(reason)")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            close(descriptor)
            guard failure == EWOULDBLOCK else {
                let reason = "can't lock the mirror writer lock: \(String(cString: strerror(failure)))"
                throw SyncError(.library(.storageUnavailable(path: url.path, reason: reason)), "\(url.path): \(reason)")
            }
            return .held(readHolder(at: url))
        }
        let clientLock: ClientLock
        do {
            guard let lock = try library.tryClientLock(clientLockName) else {
                close(descriptor)
                return .held(readHolder(at: url))
            }
            clientLock = lock
        } catch {
            close(descriptor)
            throw .library(error)
        }
        let holder = Holder(pid: getpid(), root: root, mode: mode, since: Date())
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        let data = (try? encoder.encode(holder)) ?? Data()
        _ = ftruncate(descriptor, 0)
        _ = data.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        return .acquired(MirrorWriterLock(descriptor: descriptor, clientLock: clientLock, holder: holder))
    }

    static func busy(_ holder: Holder?, libraryURL: URL) -> SyncError {
        let holder = holder ?? Holder(pid: 0, root: "?", mode: "unknown", since: Date())
        return SyncError(
            .mirrorWriterBusy(holder: holder),
            "another mirror writer (\(holder.summary)) already mirrors into \(libraryURL.path); stop it first")
    }

    /// The writer holding the mirror writer lock of the library at `libraryURL`, or nil when none does
    /// (`photosync status` shows it as the running daemon).
    ///
    /// - Complexity: one open, one non-blocking `flock` probe and one small read.
    public static func currentHolder(libraryURL: URL) -> Holder? {
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
