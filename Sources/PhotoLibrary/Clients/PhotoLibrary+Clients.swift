import Foundation
public import LibraryStorage
import Synchronization

/// The client schemas attached to one library handle, by name, with the version attached: attaching again
/// is then a lookup, not a transaction.
final class AttachedClients: Sendable {
    private let versions = Mutex<[String: Int]>([:])

    func contains(_ schema: LibraryClientSchema) -> Bool { versions.withLock { $0[schema.name] == schema.version } }
    func insert(_ schema: LibraryClientSchema) { versions.withLock { $0[schema.name] = schema.version } }
}

extension PhotoLibrary {
    /// Attaches a client's tables to the library: applies the migrations of `schema` the library has not
    /// applied yet, in one transaction, and records the version reached for the client (see
    /// ``LibraryClientSchema``). Idempotent: attaching again — with this handle, another one, or from another
    /// process — applies nothing.
    ///
    /// - Throws: ``PhotoLibraryError/invalidRequest(_:)`` for a malformed schema (no name, repeated versions…),
    ///   ``PhotoLibraryError/clientSchemaTooNew(client:found:supported:)`` when a newer series of the client
    ///   migrated the library, ``PhotoLibraryError/clientSchemaConflict(client:reason:)`` when the library holds
    ///   only part of the tables the schema adopts, ``PhotoLibraryError/database(code:message:)`` when a
    ///   migration's SQL fails. In every case nothing of the series is applied.
    /// - Complexity: a dictionary lookup once this handle has attached the schema; otherwise one write
    ///   transaction.
    public func attach(_ schema: LibraryClientSchema) throws(PhotoLibraryError) {
        if attachedClients.contains(schema) { return }
        if let problem = schema.problem { throw .invalidRequest(problem) }
        do {
            _ = try storage.write { db in try ClientSchemaMigrator.migrate(db, schema) }
        } catch {
            throw Self.map(error, path: databasePath)
        }
        attachedClients.insert(schema)
    }

    /// The version of a client's series the library has reached (0 when the client never attached).
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    public func clientSchemaVersion(of client: String) throws(PhotoLibraryError) -> Int {
        try read { db in
            try db.fetchValue(Int.self, sql: "SELECT version FROM library_client_schema WHERE client = ?", arguments: [client]) ?? 0
        }
    }

    /// Runs `body` in a read transaction: one consistent snapshot of the library, for a client to read its
    /// tables (joined with the core's when it needs). Writes are refused (the connection is read-only): a
    /// client writes inside a change block, through ``LibraryTransaction``.
    ///
    /// The connection is the library's storage engine's: its SQL is the one ``SQLConnection/dialect`` names
    /// (SQLite or PostgreSQL), and the connection is valid only during `body`.
    ///
    /// - Returns: what `body` returns.
    /// - Throws: ``PhotoLibraryError`` when the database can't be read; an error `body` throws, mapped to a
    ///   ``PhotoLibraryError`` (one it throws itself goes through unchanged).
    public func readClientState<T>(_ body: (any SQLConnection) throws -> T) throws(PhotoLibraryError) -> T {
        try read(body)
    }

    /// Waits until `isSatisfied` holds for the library's state, or until `timeout`: a client waiting for a
    /// record of its own that a writer — in this process or another one — commits.
    ///
    /// `isSatisfied` is evaluated at once, then again after every commit notification: every journaled commit,
    /// and every change block that called ``LibraryTransaction/clientStateDidChange()`` (even when it
    /// journaled nothing). Without a notification (a writer killed before notifying), it is re-evaluated every
    /// ``Options/commitPollInterval``. Any number of waiters may wait at once.
    ///
    /// - Returns: whether it held before the deadline (false on timeout or cancellation).
    /// - Throws: ``PhotoLibraryError`` when the database can't be read, or what `isSatisfied` throws.
    public func waitForClientState(
        timeout: Duration, until isSatisfied: (any SQLConnection) throws -> Bool
    ) async throws(PhotoLibraryError) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let generation = notifier.generation
            if try read(isSatisfied) { return true }
            if ContinuousClock.now >= deadline || Task.isCancelled { return false }
            await notifier.wait(afterGeneration: generation, until: deadline)
        }
    }
}
