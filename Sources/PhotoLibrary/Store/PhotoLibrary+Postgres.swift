public import Foundation
import LibraryStorage
import PostgresStore

extension PhotoLibrary {
    /// Opens a library kept in a PostgreSQL database, creating its tables (`Schema/postgres/`) when the
    /// database has none, and migrating them to this build's version.
    ///
    /// The database holds the objects, the journal and the change tokens; `directory` holds the originals
    /// imported into the library (`originals/`). Every process sharing the library must see the same
    /// `directory` (a mount every server has). Writers of every process are serialised by the database (see
    /// `PostgresEngine`); a commit wakes waiters of this process at once and those of other processes, on
    /// any machine, through PostgreSQL's `LISTEN`/`NOTIFY` (each handle with waiters or observers holds one
    /// listening connection more), with ``Options/commitPollInterval`` as the safety net.
    ///
    /// The same API, semantics and guarantees as a library in SQLite; the library's, the client API's and the
    /// sync worker's suites run on both engines. Commits cost more than on SQLite (a round trip per
    /// statement: see the README's benchmarks). Clients attach their tables with the PostgreSQL SQL of their
    /// migrations (``ClientMigration/postgresSQL``).
    ///
    /// - Throws: ``PhotoLibraryError/storageUnavailable(path:reason:)`` when the server can't be reached, the
    ///   database doesn't exist or the credentials are refused, or `directory` can't be created;
    ///   ``PhotoLibraryError/schemaTooNew(found:supported:)`` for a database a newer photosync migrated.
    public convenience init(postgres url: URL, directory: URL, options: Options = Options()) throws(PhotoLibraryError) {
        let directory = directory.standardizedFileURL
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw .storageUnavailable(path: directory.path, reason: Self.reason(error))
        }
        let engine: PostgresEngine
        do { engine = try PostgresEngine(url: url) } catch { throw Self.map(error) }
        let configuration = engine.store.configuration
        try self.init(
            storage: engine, directory: directory, location: "\(configuration.address)/\(configuration.database)",
            options: options)
    }
}
