public import Foundation
import GRDB

/// Records a sync worker's mirror state inside ``PhotoLibrary/performChanges(author:_:)``: the stat cache of
/// a root's files, the albums and folders its directories became, its scans and sync cookies.
///
/// Mirror state commits in the same SQLite transaction as the asset and album changes of the block, so
/// after a crash the library and its mirror state always agree. It is bookkeeping: it is never journaled,
/// and a block holding only mirror requests commits them without appending a transaction to the change
/// history (no observer wakes, the change token stays).
///
/// Assets, albums and folders are linked by object or by placeholder of one created in the same block.
/// Problems (an unknown object) fail the whole block with a typed error, like every other request.
public final class MirrorChangeRequest {
    private let session: ChangeSession?
    private var rootID: Int64?

    /// A request for the root at `rootPath` (absolute; standardized here), recording it when it is new.
    public init(rootPath: String) {
        session = ChangeSession.current
        guard let session else {
            AssetChangeRequest.outsideBlock()
            return
        }
        let path = URL(fileURLWithPath: rootPath).standardizedFileURL.path
        var id: Int64?
        session.perform {
            try session.db.execute(sql: "INSERT OR IGNORE INTO mirror_root (path) VALUES (?)", arguments: [path])
            id = try Int64.fetchOne(session.db, sql: "SELECT id FROM mirror_root WHERE path = ?", arguments: [path])
        }
        rootID = id
    }

    /// Deletes a root's record and all its mirror state (its assets, albums and folders stay).
    public static func deleteRoot(path: String) {
        guard let session = ChangeSession.current else { return AssetChangeRequest.outsideBlock() }
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        session.perform { try session.db.execute(sql: "DELETE FROM mirror_root WHERE path = ?", arguments: [path]) }
    }

    private func write(_ body: @escaping (Database, Int64) throws -> Void) {
        guard let session, let rootID else { return }
        session.mirrorWrites.append { db in try body(db, rootID) }
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
        guard let session else { return }
        var assetID: Int64?
        if let asset {
            session.perform { assetID = try session.assetID(for: asset.localIdentifier) }
            guard assetID != nil else { return }
        }
        write { db, root in
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO mirror_file (rootId, relativePath, device, inode, size, mtimeNs, ctimeNs, contentHash, assetId)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                root, relativePath, Int64(bitPattern: stamp.device), Int64(bitPattern: stamp.inode), stamp.size, stamp.mtimeNs,
                stamp.ctimeNs, contentHash, assetID,
            ])
        }
    }

    /// Forgets a file (its asset is not touched).
    public func removeFile(_ relativePath: String) {
        write { db, root in
            try db.cachedStatement(sql: "DELETE FROM mirror_file WHERE rootId = ? AND relativePath = ?")
                .execute(arguments: [root, relativePath])
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
        guard let session else { return }
        var albumID: Int64?
        var folderID: Int64?
        session.perform {
            if let album { albumID = try session.collectionRow(for: album.localIdentifier).id }
            if let folder { folderID = try session.listRow(for: folder.localIdentifier).id }
        }
        if session.isFailed { return }
        write { db, root in
            try db.cachedStatement(
                sql: """
                    INSERT OR REPLACE INTO mirror_directory (rootId, relativePath, device, inode, albumId, folderId)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                root, relativePath, device.map { Int64(bitPattern: $0) }, inode.map { Int64(bitPattern: $0) }, albumID, folderID,
            ])
        }
    }

    /// Forgets a directory (its album and folder are not touched).
    public func removeDirectory(_ relativePath: String) {
        write { db, root in
            try db.cachedStatement(sql: "DELETE FROM mirror_directory WHERE rootId = ? AND relativePath = ?")
                .execute(arguments: [root, relativePath])
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
    /// After the commit, the library's commit notification file is touched so that waiters of
    /// ``PhotoLibrary/waitForMirrorSyncCookie(_:rootPath:timeout:)`` in other processes wake at once.
    ///
    /// Processed cookies are kept for an hour (``PhotoLibrary/syncCookieRetention``, in seconds), older ones are dropped
    /// here.
    public func recordSyncCookie(_ cookie: String) {
        session?.mirrorCookieRecorded = true
        write { db, root in
            let now = Date().timeIntervalSince1970
            try db.execute(sql: "UPDATE mirror_root SET lastSyncCookie = ? WHERE id = ?", arguments: [cookie, root])
            try db.execute(
                sql: "INSERT OR REPLACE INTO mirror_sync_cookie (rootId, name, recordedAt) VALUES (?, ?, ?)",
                arguments: [root, cookie, now])
            try db.execute(
                sql: "DELETE FROM mirror_sync_cookie WHERE rootId = ? AND recordedAt < ?",
                arguments: [root, now - PhotoLibrary.syncCookieRetention])
        }
    }
}
