import Foundation
public import LibraryStorage

/// The transaction of the change block the caller runs in, as a client of the library writes its own
/// tables (see ``LibraryClientSchema``) in it: they commit with the block's changes, or — when the block
/// fails — roll back with them.
///
/// Get it inside ``PhotoLibrary/performChanges(author:_:)`` with ``current``, and use it as change requests
/// are used: in the block, on its thread. Used anywhere else it writes nothing and fails the block it is
/// used in with ``PhotoLibraryError/notInChangeBlock`` (see ``PhotoLibrary/performChanges(author:_:)``).
///
/// A client's writes are bookkeeping: they are never journaled, and a block that only writes client tables
/// commits without a transaction in the change history (no observer wakes, the change token stays). A client
/// whose waiters must wake says so with ``clientStateDidChange()``.
///
/// ```swift
/// try await library.performChanges {
///     let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: url)
///     let transaction = LibraryTransaction.current
///     transaction.enqueue { db in
///         try db.execute(sql: "INSERT INTO example_tag (assetId, tag) VALUES (?, 'new')",
///                        arguments: [transaction.assetRowID(of: request.placeholderForCreatedAsset!)])
///     }
/// }
/// ```
///
/// The steps, reads and queued writes are handed the block's connection of the library's storage engine
/// (``SQLConnection``), on SQLite and on PostgreSQL alike: SQL written with `execute(sql:arguments:)` and the
/// fetches of ``SQLConnection`` runs on both, where it is SQL both accept (`?` parameters, `INSERT … ON
/// CONFLICT`); ``SQLConnection/dialect`` says which engine runs it where the SQL must differ. On SQLite,
/// ``SQLConnection/sqliteDatabase`` is GRDB's `Database`, the door to SQLite's own fast paths (cached
/// statements, the C API); it is nil on PostgreSQL — and on SQLite when the library's fast paths are off —
/// so a fast path needs a twin written for every engine. The connection is valid only during the call it is
/// handed to.
public struct LibraryTransaction {
    let session: ChangeSession

    /// The transaction of the change block the caller runs in.
    ///
    /// Outside any change block the process traps naming ``PhotoLibraryError/notInChangeBlock``, as a change
    /// request made there does (PhotoKit raises an exception).
    public static var current: LibraryTransaction {
        guard let session = ChangeSession.current else { ChangeSession.trapOutsideBlock() }
        return LibraryTransaction(session: session)
    }

    /// Whether the block has failed (a request or a client step met an error): later steps are skipped, and
    /// the block will throw its first error and commit nothing.
    public var isFailed: Bool { session.isFailed }

    /// Runs `step` now, in the block's transaction. An error it throws fails the block (mapped to a
    /// ``PhotoLibraryError``; one it throws itself goes through unchanged). Skipped when the block has failed.
    ///
    /// Assets created in the block may not be in the database yet: to write rows that refer to them, use
    /// ``enqueue(_:)``.
    public func perform(_ step: (any SQLConnection) throws -> Void) {
        let session = session
        session.perform { try step(session.db) }
    }

    /// Reads a value now, in the block's transaction (it sees the block's writes so far). An error fails the
    /// block, and `fallback` is returned — as it is when the block has failed already.
    public func read<T>(default fallback: T, _ body: (any SQLConnection) throws -> T?) -> T {
        let session = session
        return session.read({ try body(session.db) }, default: fallback)
    }

    /// Queues `write` to run when the block ends, in the same transaction: after every asset the block creates
    /// or edits is written (so rows referring to them can be inserted), before the derived collections are
    /// maintained and the journal appended. Queued writes run in the order queued; an error fails the whole
    /// block, which then commits nothing.
    public func enqueue(_ write: @escaping (any SQLConnection) throws -> Void) {
        session.clientWrites.append(write)
    }

    /// The row id of an asset (the `id` of the core's `asset` table, never reused), or of one created in this
    /// block from its placeholder: what a client's table refers to. An unknown asset fails the block with
    /// ``PhotoLibraryError/objectNotFound(localIdentifier:)`` and gives nil.
    public func assetRowID(of asset: any LibraryObject) -> Int64? {
        let session = session
        var id: Int64?
        session.perform { id = try session.assetID(for: asset.localIdentifier) }
        return id
    }

    /// The row id of an asset collection (`asset_collection.id`), or of one created in this block from its
    /// placeholder. An unknown collection fails the block and gives nil.
    public func collectionRowID(of collection: any LibraryObject) -> Int64? {
        let session = session
        var id: Int64?
        session.perform { id = try session.collectionRow(for: collection.localIdentifier).id }
        return id
    }

    /// The row id of a collection list (`collection_list.id`), or of one created in this block from its
    /// placeholder. An unknown list fails the block and gives nil.
    public func collectionListRowID(of list: any LibraryObject) -> Int64? {
        let session = session
        var id: Int64?
        session.perform { id = try session.listRow(for: list.localIdentifier).id }
        return id
    }

    /// Attaches a client's tables (see ``PhotoLibrary/attach(_:)``) inside the block's transaction: for a
    /// client that writes its tables in a block of a handle it did not attach itself. Nothing happens when
    /// this handle attached the schema already; otherwise the migrations the library lacks run now, and roll
    /// back with the block if it fails. A problem (``PhotoLibraryError/clientSchemaTooNew(client:found:supported:)``
    /// and the others ``PhotoLibrary/attach(_:)`` throws) fails the block.
    public func attach(_ schema: LibraryClientSchema) {
        let session = session
        guard !session.library.attachedClients.contains(schema) else { return }
        session.perform {
            if let problem = schema.problem { throw PhotoLibraryError.invalidRequest(problem) }
            _ = try ClientSchemaMigrator.migrate(session.db, schema)
        }
    }

    /// Fails the block with a client's own error: nothing of the block commits, and the block throws `error`
    /// (unless it failed earlier: the first error wins).
    public func fail(_ error: PhotoLibraryError) {
        let session = session
        session.perform { throw error }
    }

    /// Says that the block changes state a client waits for: after the commit, waiters of
    /// ``PhotoLibrary/waitForClientState(timeout:until:)`` — in this process and others (the commit
    /// notification file is touched) — wake and re-check, also when the block journaled nothing.
    public func clientStateDidChange() {
        session.clientStateChanged = true
    }

    /// Registers `path` (absolute; standardized here) as a root of asset paths for `client`: an asset whose
    /// referenced file is under it has, as its `path` predicate key, the file's path relative to it (relative
    /// to the innermost root when roots nest). Idempotent.
    public func addAssetPathRoot(_ path: String, client: String) {
        let root = Self.standardized(path)
        let session = session
        session.perform {
            try session.db.execute(
                sql: "INSERT INTO asset_path_root (path, client) VALUES (?, ?) ON CONFLICT (path, client) DO NOTHING",
                arguments: [root, client])
        }
    }

    /// Removes a root of asset paths `client` registered (a root another client registered stays).
    public func removeAssetPathRoot(_ path: String, client: String) {
        let root = Self.standardized(path)
        let session = session
        session.perform {
            try session.db.execute(sql: "DELETE FROM asset_path_root WHERE path = ? AND client = ?", arguments: [root, client])
        }
    }

    private static func standardized(_ path: String) -> String { URL.standardizedFilePath(path) }
}
