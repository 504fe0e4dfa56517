public import Foundation
import GRDB
import LibraryStorage
import PostgresStore
import Synchronization

/// A photo library kept in SQLite: the entry point for fetching, changing and following changes.
///
/// On disk a library is a directory: `Photos.sqlite` (WAL mode, foreign keys on, `synchronous=FULL` so a
/// change token handed out survives a power loss) and `originals/`, the content-addressed store of imported
/// files. Open as many handles as you like, in this process or others: reads run concurrently with the one
/// writer, and SQLite serialises writers across processes.
///
/// There is no shared library: create a handle for the library you mean.
///
/// ```swift
/// let library = try PhotoLibrary(url: PhotoLibrary.defaultURL)
/// try await library.performChanges {
///     let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: photoURL)
///     request.isFavorite = true
/// }
/// let favorites = try library.fetchAssets(options: FetchOptions(predicate: "isFavorite"))
/// ```
public final class PhotoLibrary: Sendable {
    /// How to open a library.
    public struct Options: Sendable {
        /// Create the library when the directory doesn't exist or is empty. Default true.
        public var createIfNeeded: Bool
        /// The history retention policy, applied automatically after commits.
        public var retention: RetentionPolicy?
        /// Whether commits append to the change journal. Only benchmarks switch this off: without the journal
        /// there are no change tokens nor observation of the changes made.
        @_spi(Benchmarks) public var journaling: Bool
        /// Whether commits wait for the disk (`synchronous=FULL`). Only benchmark set-up switches this off, to
        /// build large fixtures fast; a library opened so may lose its last commits on a power loss.
        @_spi(Benchmarks) public var durableCommits: Bool
        /// Whether SQLite's fast paths are taken (binding and reading through SQLite's C API). Tests switch
        /// them off to run the suites through the paths every storage engine takes. Default true.
        @_spi(Testing) public var sqliteFastPaths: Bool
        /// How long a write waits for another process's write transaction before failing. Default 30 s.
        public var busyTimeout: TimeInterval
        /// The largest share of a fetch result that may be removed, inserted or moved for its change details
        /// to stay incremental (``FetchResultChangeDetails/hasIncrementalChanges``). Default 0.5.
        public var incrementalChangeLimit: Double
        /// How often ``PhotoLibrary/waitForChanges(after:timeout:excludedAuthors:)`` and observers re-check the
        /// library when no commit notification arrives: the safety net for a writer killed between its commit
        /// and its notification, or a file system without inotify. Default 1 s; nil never re-checks (only
        /// notifications wake them — what tests of the notifications set).
        public var commitPollInterval: Duration?

        /// Makes options. A nil `retention` uses the policy stored in the library (30 days and 1,000,000
        /// transactions unless set otherwise); `busyTimeout` is in seconds. Journaling and durable commits are on,
        /// ``incrementalChangeLimit`` is 0.5 and ``commitPollInterval`` 1 s.
        public init(createIfNeeded: Bool = true, retention: RetentionPolicy? = nil, busyTimeout: TimeInterval = 30) {
            self.createIfNeeded = createIfNeeded
            self.retention = retention
            self.journaling = true
            self.durableCommits = true
            self.sqliteFastPaths = true
            self.busyTimeout = busyTimeout
            self.incrementalChangeLimit = 0.5
            self.commitPollInterval = CommitNotifier.defaultPollInterval
        }
    }

    /// The library's directory.
    public let url: URL
    /// The library's identity: random, made when the library was created, carried by its change tokens.
    public let identity: UUID
    /// The time zone moments are computed in for assets whose capture offset is unknown.
    public let momentTimeZone: TimeZone

    /// The engine the library's SQL runs through (the storage boundary).
    let storage: any StorageEngine
    /// The SQLite pool under ``storage``: for what only SQLite does (its file's checks, tests that write it
    /// directly). Stops the process on a library of another engine.
    var database: DatabasePool {
        guard let engine = storage as? SQLiteEngine else { preconditionFailure("not a SQLite library") }
        return engine.pool
    }
    /// Where errors say the library is: the SQLite file, or the PostgreSQL database.
    let location: String
    let originalsStore: OriginalsStore
    let journaling: Bool
    let notifier: CommitNotifier
    let observation: ObservationCenter
    let retentionOverride: RetentionPolicy?
    /// Where ``performChanges(author:_:)`` runs its commits, one at a time: they wait there for the writer
    /// without holding a thread each.
    let commitQueue = DispatchQueue(label: "photosync.library.commits", qos: .userInitiated)
    /// The client schemas this handle attached (``attach(_:)``).
    let attachedClients = AttachedClients()

    /// The file name of the database inside the library directory.
    public static let databaseFileName = "Photos.sqlite"

    /// Where a library lives when none is named: the one rule the `photosync` command shares.
    ///
    /// 1. `$PHOTOSYNC_LIBRARY`, when set and not empty (a relative path is taken from the current directory);
    /// 2. else `$XDG_DATA_HOME/photosync/Library.photosync`, when `XDG_DATA_HOME` is an absolute path (the XDG
    ///    base directory specification ignores a relative one);
    /// 3. else `~/.local/share/photosync/Library.photosync` (`~` is `$HOME`, else the user's home directory).
    ///
    /// Read from this process's environment each time it is asked for; see ``defaultURL(environment:)``.
    public static var defaultURL: URL { defaultURL(environment: ProcessInfo.processInfo.environment) }

    /// The library ``defaultURL`` names for an environment: the same rule, applied to `environment` instead of
    /// this process's.
    public static func defaultURL(environment: [String: String]) -> URL {
        if let path = environment["PHOTOSYNC_LIBRARY"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true).standardizedFileURL
        }
        let dataHome: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            dataHome = URL(fileURLWithPath: xdg, isDirectory: true)
        } else if let home = environment["HOME"], home.hasPrefix("/") {
            dataHome = URL(fileURLWithPath: home, isDirectory: true).appending(path: ".local/share", directoryHint: .isDirectory)
        } else {
            dataHome = FileManager.default.homeDirectoryForCurrentUser.appending(path: ".local/share", directoryHint: .isDirectory)
        }
        return dataHome.appending(path: "photosync/Library.photosync", directoryHint: .isDirectory).standardizedFileURL
    }

    /// Opens the library at `url`, creating it when the directory is missing or empty, and applies pending
    /// schema migrations in one transaction.
    ///
    /// - Throws: ``PhotoLibraryError/notALibrary(path:reason:)`` for a file or a non-empty folder that isn't a
    ///   library, ``PhotoLibraryError/corruptLibrary(path:reason:)`` for a damaged database,
    ///   ``PhotoLibraryError/schemaTooNew(found:supported:)`` for a library written by a newer photosync,
    ///   ``PhotoLibraryError/storageUnavailable(path:reason:)`` when the directory can't be created or
    ///   written. In every case the files found are left untouched.
    public convenience init(url: URL = PhotoLibrary.defaultURL, options: Options = Options()) throws(PhotoLibraryError) {
        let url = url.standardizedFileURL
        let fileManager = FileManager.default
        let databaseURL = url.appending(path: Self.databaseFileName)

        var isDirectory: ObjCBool = false
        if fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw .notALibrary(path: url.path, reason: "it is a file; a library is a directory")
            }
            if !fileManager.fileExists(atPath: databaseURL.path) {
                let contents: [String]
                do { contents = try fileManager.contentsOfDirectory(atPath: url.path) } catch {
                    throw .storageUnavailable(path: url.path, reason: Self.reason(error))
                }
                guard contents.isEmpty else {
                    throw .notALibrary(
                        path: url.path, reason: "the folder is not empty and holds no \(Self.databaseFileName)")
                }
                guard options.createIfNeeded else {
                    throw .storageUnavailable(path: url.path, reason: "no library here")
                }
            } else {
                try Self.validateExistingDatabase(at: databaseURL, busyTimeout: options.busyTimeout)
            }
        } else {
            guard options.createIfNeeded else {
                throw .storageUnavailable(path: url.path, reason: "no library here")
            }
            do { try fileManager.createDirectory(at: url, withIntermediateDirectories: true) } catch {
                throw .storageUnavailable(path: url.path, reason: Self.reason(error))
            }
        }

        let synchronous = options.durableCommits ? "FULL" : "OFF"
        let checkpointer = WALCheckpointer(path: databaseURL.path, synchronous: synchronous)
        let pool = try Self.openPool(at: databaseURL, synchronous: synchronous, checkpointer: checkpointer, options: options)
        try self.init(
            storage: SQLiteEngine(pool: pool, fastPaths: options.sqliteFastPaths, checkpointer: checkpointer), directory: url,
            location: databaseURL.path, options: options)
    }

    /// Opens the SQLite pool of a library's database file, every connection with the library's settings; the
    /// writer's log is checkpointed by `checkpointer`, which the pool's connections keep alive.
    private static func openPool(
        at databaseURL: URL, synchronous: String, checkpointer: WALCheckpointer, options: Options
    ) throws(PhotoLibraryError) -> DatabasePool {
        var configuration = Configuration()
        configuration.busyMode = .timeout(options.busyTimeout)
        configuration.maximumReaderCount = 4
        configuration.prepareDatabase { db in
            // The writer's commits leave checkpoints to a connection of their own (WALCheckpointer).
            if !db.configuration.readonly, let connection = db.sqliteConnection { checkpointer.install(on: connection) }
            // The writer's temporary files in memory: a statement that writes many rows (the batches of a scan:
            // MultiRowInsert) keeps a statement journal — the page images it would restore should it fail
            // midway — which outgrows SQLite's 64 KiB and spilled to a temporary file, some seven writes per
            // file scanned. Readers keep the default (their sorts may spill to disk).
            if !db.configuration.readonly { try db.execute(sql: "PRAGMA temp_store = MEMORY") }
            LibraryFunctions.register(in: db)
        }
        do {
            let pool = try DatabasePool(path: databaseURL.path, configuration: configuration)
            // A token handed out must survive a power loss: fsync the WAL on every commit. Set on the writer
            // once the pool is open: the pool's WAL set-up, after `prepareDatabase`, sets `synchronous = NORMAL`,
            // under which a commit waits for no disk and a power loss can take back tokens handed out.
            try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = \(synchronous)") }
            return pool
        } catch {
            throw map(error, path: databaseURL.path)
        }
    }

    /// Opens the library whose tables `storage` holds (migrated, on SQLite, here; on other engines by the
    /// engine's opening) and whose originals and notifications live in `directory`.
    init(storage: any StorageEngine, directory: URL, location: String, options: Options) throws(PhotoLibraryError) {
        self.url = directory
        self.storage = storage
        self.location = location
        self.journaling = options.journaling
        self.retentionOverride = options.retention
        do {
            try storage.write { db in
                if db.dialect == .sqlite { try LibrarySchema.migrate(db) }
                try db.execute(
                    sql: """
                        INSERT INTO library (id, identity, createdAt, timeZoneIdentifier) VALUES (1, ?, ?, ?)
                        ON CONFLICT (id) DO NOTHING
                        """,
                    arguments: [UUID().uuidString, Date().timeIntervalSince1970, TimeZone.current.identifier])
                // Retention by age also applies to libraries that see few commits.
                try ChangeJournal.applyRetention(
                    db, policy: try ChangeJournal.retention(db, override: options.retention), now: Date().timeIntervalSince1970)
            }
            let info = try storage.read { db in
                try db.fetchRow(sql: "SELECT identity, timeZoneIdentifier FROM library WHERE id = 1")
            }
            guard let info, let identity = UUID(uuidString: info["identity"]) else {
                throw PhotoLibraryError.corruptLibrary(path: location, reason: "the library row is missing")
            }
            self.identity = identity
            self.momentTimeZone = TimeZone(identifier: info["timeZoneIdentifier"]) ?? .gmt
        } catch {
            throw Self.map(error, path: location)
        }
        originalsStore = OriginalsStore(directory: directory.appending(path: "originals", directoryHint: .isDirectory))
        do { try originalsStore.prepare() } catch {
            throw .storageUnavailable(path: originalsStore.directory.path, reason: Self.reason(error))
        }
        notifier = CommitNotifier(
            libraryDirectory: directory, pollInterval: options.commitPollInterval, signals: storage as? any CommitSignaling)
        observation = ObservationCenter(
            storage: storage, identity: identity, notifier: notifier, incrementalLimit: options.incrementalChangeLimit)
    }

    /// Opens an existing database read-only to check, before anything writes to it, that it is a photosync
    /// library this build can open.
    ///
    /// It waits for locks like every other connection (`busyTimeout`): another process closing the library
    /// checkpoints and removes the WAL under an exclusive lock for an instant, and opening must not fail then.
    private static func validateExistingDatabase(at databaseURL: URL, busyTimeout: TimeInterval) throws(PhotoLibraryError) {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .timeout(busyTimeout)
        do {
            let queue = try DatabaseQueue(path: databaseURL.path, configuration: configuration)
            defer { try? queue.close() }
            try queue.read { db in
                let applicationID = try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0
                let version = try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0
                let tableCount = try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0
                if applicationID == 0 && version == 0 && tableCount == 0 {
                    return  // An empty database: a creation that never committed. It will be initialised.
                }
                guard applicationID == LibrarySchema.applicationID else {
                    throw PhotoLibraryError.notALibrary(
                        path: databaseURL.path, reason: "the SQLite database belongs to another program")
                }
                guard version <= LibrarySchema.currentVersion else {
                    throw PhotoLibraryError.schemaTooNew(found: version, supported: LibrarySchema.currentVersion)
                }
            }
        } catch {
            throw map(error, path: databaseURL.path)
        }
    }

    // MARK: Errors

    /// Maps any error met while working on the database to a ``PhotoLibraryError``.
    static func map(_ error: any Error, path: String? = nil) -> PhotoLibraryError {
        if let error = error as? PhotoLibraryError { return error }
        if let error = error as? DatabaseError {
            let message = error.message ?? "\(error)"
            switch error.resultCode {
            case .SQLITE_FULL: return .notEnoughSpace
            case .SQLITE_NOTADB, .SQLITE_CORRUPT:
                return .corruptLibrary(path: path ?? "library", reason: message)
            case .SQLITE_READONLY, .SQLITE_CANTOPEN, .SQLITE_PERM, .SQLITE_IOERR:
                return .storageUnavailable(path: path ?? "library", reason: message)
            default:
                return .database(code: error.extendedResultCode.rawValue, message: message)
            }
        }
        if let error = error as? PostgresStoreError { return map(error) }
        return .database(code: -1, message: reason(error))
    }

    /// Maps a PostgreSQL engine's error: the server or database unreachable is ``PhotoLibraryError/storageUnavailable(path:reason:)``.
    private static func map(_ error: PostgresStoreError) -> PhotoLibraryError {
        switch error {
        case .invalidURL(let url, _), .databaseDoesNotExist(let url):
            return .storageUnavailable(path: url, reason: error.description)
        case .connectionRefused(let address), .connectionFailed(let address, _):
            return .storageUnavailable(path: address, reason: error.description)
        case .authenticationFailed(let user, _):
            return .storageUnavailable(path: user, reason: error.description)
        case .schemaTooNew(let found, let known):
            return .schemaTooNew(found: found, supported: known)
        default:
            return .database(code: -1, message: error.description)
        }
    }

    static func reason(_ error: any Error) -> String {
        if let error = error as? CocoaError, let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError,
            underlying.domain == NSPOSIXErrorDomain, let code = POSIXErrorCode(rawValue: Int32(underlying.code))
        {
            return String(cString: strerror(code.rawValue))
        }
        return (error as NSError).localizedDescription
    }

    var databasePath: String { location }

    /// Runs a read on the library's storage engine (one snapshot of the committed data), mapping errors.
    ///
    /// - Throws: a ``PhotoLibraryError`` when the library can't be read; what `body` throws, mapped.
    func read<T>(_ body: (any SQLConnection) throws -> T) throws(PhotoLibraryError) -> T {
        do { return try storage.read(body) } catch { throw Self.map(error, path: databasePath) }
    }
}
