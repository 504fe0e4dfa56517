public import Foundation
import GRDB
import LibraryStorage
public import PhotoLibrary

/// Records a sync worker's mirror state inside ``PhotoLibrary/performChanges(author:_:)``: the stat cache of
/// a root's files, the albums and folders its directories became, its scans and sync cookies.
///
/// Mirror state is the sync worker's own tables in the library (``SyncSchema``), written through the block's
/// ``LibraryTransaction``: it commits in the same transaction as the asset and album changes of the block, on
/// SQLite and on PostgreSQL, so after a crash the library and its mirror state always agree. It is bookkeeping: it is never
/// journaled, and a block holding only mirror requests commits them without appending a transaction to the
/// change history (no observer wakes, the change token stays).
///
/// Assets, albums and folders are linked by object or by placeholder of one created in the same block.
/// Problems (an unknown object) fail the whole block with a typed error, like every other request.
public final class MirrorChangeRequest {
    private let transaction: LibraryTransaction
    private var rootID: Int64?

    /// A request for the root at `rootPath` (absolute; standardized here), recording it when it is new (and
    /// registering it as a root of asset paths: the `path` predicate key of its assets is relative to it).
    ///
    /// Outside a change block the process traps, as for every change request.
    public init(rootPath: String) {
        transaction = LibraryTransaction.current
        transaction.attach(SyncSchema.schema)
        let path = URL(fileURLWithPath: rootPath).standardizedFileURL.path
        var id: Int64?
        transaction.perform { db in
            try db.execute(
                sql: "INSERT INTO mirror_root (path) VALUES (?) ON CONFLICT (path) DO NOTHING", arguments: [path])
            id = try db.fetchValue(Int64.self, sql: "SELECT id FROM mirror_root WHERE path = ?", arguments: [path])
        }
        transaction.addAssetPathRoot(path, client: SyncSchema.clientName)
        rootID = id
    }

    /// Deletes a root's record and all its mirror state (its assets, albums and folders stay).
    public static func deleteRoot(path: String) {
        let transaction = LibraryTransaction.current
        transaction.attach(SyncSchema.schema)
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        transaction.perform { db in try db.execute(sql: "DELETE FROM mirror_root WHERE path = ?", arguments: [path]) }
        transaction.removeAssetPathRoot(path, client: SyncSchema.clientName)
    }

    private func write(_ body: @escaping (any SQLConnection, Int64) throws -> Void) {
        guard let rootID else { return }
        transaction.enqueue { db in try body(db, rootID) }
    }

    /// Records the device the root is on.
    public func setRootDevice(_ device: UInt64) {
        write { db, root in
            try db.execute(sql: "UPDATE mirror_root SET device = ? WHERE id = ?", arguments: [Int64(bitPattern: device), root])
        }
    }

    /// Records (or replaces) a file's stat cache entry and the asset it is mirrored as.
    ///
    /// - Parameter asset: the asset, or the placeholder of one created in this block; nil for none.
    public func setFile(_ relativePath: String, stamp: FileStamp, contentHash: String, asset: (any LibraryObject)?) {
        setFiles([MirroredFileRecord(relativePath: relativePath, stamp: stamp, contentHash: contentHash, asset: asset)])
    }

    /// Records (or replaces) files' stat cache entries and the assets they are mirrored as, as many calls of
    /// ``setFile(_:stamp:contentHash:asset:)`` in their order would (the last entry of a path wins), with a
    /// few statements of many rows: what a scan records for each batch of files.
    public func setFiles(_ records: [MirroredFileRecord]) {
        var rows: [MirrorFileRows.Row] = []
        rows.reserveCapacity(records.count)
        for record in records {
            var assetID: Int64?
            if let asset = record.asset {
                assetID = transaction.assetRowID(of: asset)
                guard assetID != nil else { return }  // The block has failed.
            }
            rows.append(MirrorFileRows.Row(
                relativePath: record.relativePath, stamp: record.stamp, contentHash: record.contentHash, assetID: assetID))
        }
        guard !rows.isEmpty else { return }
        write { db, root in try MirrorFileRows.write(rows, root: root, into: db) }
    }

    /// Forgets a file (its asset is not touched).
    public func removeFile(_ relativePath: String) {
        write { db, root in
            try db.executeRepeated(
                sql: "DELETE FROM mirror_file WHERE rootId = ? AND relativePath = ?", arguments: [root, relativePath])
        }
    }

    /// Records (or replaces) a directory with the album and folder it became.
    ///
    /// - Parameters:
    ///   - album: a user album, or the placeholder of one created in this block; nil for none.
    ///   - folder: a folder, or the placeholder of one created in this block; nil for none.
    public func setDirectory(
        _ relativePath: String, device: UInt64?, inode: UInt64?, album: (any LibraryObject)?, folder: (any LibraryObject)?
    ) {
        let albumID = album.flatMap(transaction.collectionRowID(of:))
        let folderID = folder.flatMap(transaction.collectionListRowID(of:))
        if transaction.isFailed { return }
        write { db, root in
            try db.executeRepeated(
                sql: """
                    INSERT INTO mirror_directory (rootId, relativePath, device, inode, albumId, folderId)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (rootId, relativePath) DO UPDATE SET device = excluded.device, inode = excluded.inode,
                        albumId = excluded.albumId, folderId = excluded.folderId
                    """,
                arguments: [
                    root, relativePath, device.map { Int64(bitPattern: $0) }, inode.map { Int64(bitPattern: $0) }, albumID,
                    folderID,
                ])
        }
    }

    /// Forgets a directory (its album and folder are not touched).
    public func removeDirectory(_ relativePath: String) {
        write { db, root in
            try db.executeRepeated(
                sql: "DELETE FROM mirror_directory WHERE rootId = ? AND relativePath = ?", arguments: [root, relativePath])
        }
    }

    /// Records a finished scan: when it ran and its summary (JSON, as the caller encodes it).
    public func recordScan(start: Date, end: Date, summary: String?) {
        write { db, root in
            try db.execute(
                sql: "UPDATE mirror_root SET lastScanStart = ?, lastScanEnd = ?, lastScanSummary = ? WHERE id = ?",
                arguments: [start.timeIntervalSince1970, end.timeIntervalSince1970, summary, root])
        }
    }

    /// Records that every change made to the folder before `cookie` was written is in the library.
    ///
    /// After the commit, waiters of ``PhotoLibrary/waitForMirrorSyncCookie(_:rootPath:timeout:)`` in this and
    /// other processes wake at once (``LibraryTransaction/clientStateDidChange()``).
    ///
    /// Processed cookies are kept for an hour (``PhotoLibrary/syncCookieRetention``, in seconds), older ones are dropped
    /// here.
    public func recordSyncCookie(_ cookie: String) {
        transaction.clientStateDidChange()
        write { db, root in
            let now = Date().timeIntervalSince1970
            try db.execute(sql: "UPDATE mirror_root SET lastSyncCookie = ? WHERE id = ?", arguments: [cookie, root])
            try db.execute(
                sql: """
                    INSERT INTO mirror_sync_cookie (rootId, name, recordedAt) VALUES (?, ?, ?)
                    ON CONFLICT (rootId, name) DO UPDATE SET recordedAt = excluded.recordedAt
                    """,
                arguments: [root, cookie, now])
            try db.execute(
                sql: "DELETE FROM mirror_sync_cookie WHERE rootId = ? AND recordedAt < ?",
                arguments: [root, now - PhotoLibrary.syncCookieRetention])
        }
    }
}
