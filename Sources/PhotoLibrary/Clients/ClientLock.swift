import Foundation
import PostgresStore

#if canImport(Glibc)
import Glibc
#endif

/// An exclusive lock a client of the library holds across every process using the library (see
/// ``PhotoLibrary/tryClientLock(_:)``): what a client whose state must have one writer — a sync worker —
/// holds while it writes.
///
/// The lock is released when it is deallocated, and whenever its holder's process ends, however it ends.
public final class ClientLock: Sendable {
    /// How the lock is held.
    private enum Hold: Sendable {
        /// An exclusive `flock(2)` on this open descriptor.
        case file(Int32)
        /// A session-level advisory lock of the library's PostgreSQL database.
        case postgres(PostgresSessionLock)
    }

    /// The lock's name.
    public let name: String
    private let hold: Hold

    private init(name: String, hold: Hold) {
        self.name = name
        self.hold = hold
    }

    deinit {
        // Closing the descriptor releases the flock (the file stays: removing it would race a new holder);
        // the PostgreSQL lock goes with its connection.
        if case .file(let descriptor) = hold { close(descriptor) }
    }

    /// The file a library on SQLite locks for `name`, in the library directory.
    static func fileURL(_ name: String, library: URL) -> URL { library.appending(path: "\(name).lock") }

    /// The advisory-lock key of `name` in a library's PostgreSQL database: FNV-1a (64 bits) of the name with a
    /// prefix of its own, apart from the library's own keys.
    static func postgresKey(_ name: String) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in "photosync.client-lock.\(name)".utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        return Int64(bitPattern: hash)
    }

    /// Tries once to flock the file of `name` in the library directory.
    static func tryFile(_ name: String, library: URL) throws(PhotoLibraryError) -> ClientLock? {
        let url = fileURL(name, library: library)
        let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw .storageUnavailable(path: url.path, reason: "can't open the lock: \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let failure = errno
            close(descriptor)
            if failure == EWOULDBLOCK { return nil }
            throw .storageUnavailable(path: url.path, reason: "can't lock: \(String(cString: strerror(failure)))")
        }
        return ClientLock(name: name, hold: .file(descriptor))
    }

    /// Tries once to take the advisory lock of `name` in the engine's database.
    static func tryPostgres(_ name: String, engine: PostgresEngine) throws -> ClientLock? {
        try PostgresSessionLock.tryAcquire(key: postgresKey(name), store: engine.store).map {
            ClientLock(name: name, hold: .postgres($0))
        }
    }
}

extension PhotoLibrary {
    /// Tries once, without waiting, to take the client lock `name`: an exclusive lock across every process
    /// using the library — on a library on PostgreSQL, every process on every machine sharing the database.
    ///
    /// On SQLite it is an advisory `flock(2)` on `<name>.lock` in the library directory (the database is a
    /// file there, on one machine). On PostgreSQL it is a session-level advisory lock of the database, held
    /// on a connection of its own (a lock file in a directory several machines mount would not exclude them
    /// reliably): the server releases it when the lock is deallocated, when the process ends, and when its
    /// connection is lost.
    ///
    /// - Parameter name: letters, digits, `.`, `-` and `_`; a client prefixes it with its own name.
    /// - Returns: the lock, or nil when another holder has it (another process, or another lock of this one).
    /// - Throws: ``PhotoLibraryError/invalidRequest(_:)`` for a malformed name,
    ///   ``PhotoLibraryError/storageUnavailable(path:reason:)`` when the lock file can't be used or the
    ///   database can't be reached.
    /// - Complexity: SQLite: an open and a non-blocking `flock`; PostgreSQL: a new connection and a round trip.
    public func tryClientLock(_ name: String) throws(PhotoLibraryError) -> ClientLock? {
        let allowed = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_")
        guard !name.isEmpty, name.allSatisfy(allowed.contains), !name.hasPrefix(".") else {
            throw .invalidRequest("a client lock's name is letters, digits, '.', '-' and '_' (not first '.'): \(name)")
        }
        guard let engine = storage as? PostgresEngine else { return try ClientLock.tryFile(name, library: url) }
        do { return try ClientLock.tryPostgres(name, engine: engine) } catch { throw Self.map(error) }
    }
}
