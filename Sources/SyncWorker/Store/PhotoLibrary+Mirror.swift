import Foundation
import GRDB
import GRDBSQLite
public import PhotoLibrary

extension PhotoLibrary {
    /// Every root a sync worker mirrors into this library, by path.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    public func fetchMirrorRoots() throws(PhotoLibraryError) -> [MirrorRoot] {
        try readMirror { db in try Row.fetchAll(db, sql: "SELECT * FROM mirror_root ORDER BY path").map(Self.mirrorRoot) }
    }

    /// The root recorded for this absolute path, or nil.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    public func fetchMirrorRoot(path: String) throws(PhotoLibraryError) -> MirrorRoot? {
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        return try readMirror { db in
            try Row.fetchOne(db, sql: "SELECT * FROM mirror_root WHERE path = ?", arguments: [path]).map(Self.mirrorRoot)
        }
    }

    /// Every file and directory recorded for a root, read in one consistent snapshot.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read; ``PhotoLibraryError/objectNotFound(localIdentifier:)``
    ///   when the root is no longer recorded.
    /// - Complexity: O(*n*) in the root's files; about 200 bytes of memory per file. To load a large root into
    ///   a structure of your own, ``forEachMirroredFile(root:_:)`` avoids the intermediate array and strings.
    public func fetchMirrorState(root: MirrorRoot) throws(PhotoLibraryError) -> MirrorState {
        var files: [MirroredFile] = []
        let (current, directories) = try readMirrorState(root: root) { row in files.append(row.file) }
        return MirrorState(root: current, files: files, directories: directories)
    }

    /// How many files are recorded for a root (0 when the root is no longer recorded): a capacity to reserve
    /// before ``forEachMirroredFile(root:_:)``.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    /// - Complexity: O(*n*) in the root's files (a count over the primary key), without making a row.
    public func countMirroredFiles(root: MirrorRoot) throws(PhotoLibraryError) -> Int {
        try readMirror { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM mirror_file WHERE rootId = ?", arguments: [root.rowID]) ?? 0 }
    }

    /// Reads a root's mirror state in one consistent snapshot without building a list of its files: hands
    /// every file to `body`, in path order, as a view of the database row (its hash and asset identifier as
    /// UTF-8 bytes, no strings made for them), then returns the root's directories.
    ///
    /// - Parameter body: called once per file; the row's byte buffers are valid only during the call.
    /// - Returns: every mirrored directory of the root, by path order.
    /// - Throws: ``PhotoLibraryError`` when the database can't be read; ``PhotoLibraryError/objectNotFound(localIdentifier:)``
    ///   when the root is no longer recorded.
    /// - Complexity: O(*n*) in the root's files; memory O(1) besides the directories and what `body` keeps.
    @discardableResult
    public func forEachMirroredFile(
        root: MirrorRoot, _ body: (borrowing MirroredFileRow) -> Void
    ) throws(PhotoLibraryError) -> [MirroredDirectory] {
        try readMirrorState(root: root, body).directories
    }

    /// The directories recorded for a root, without reading its files (what an album's directory needs).
    ///
    /// - Returns: every mirrored directory of the root, by path order.
    /// - Throws: ``PhotoLibraryError`` when the database can't be read; ``PhotoLibraryError/objectNotFound(localIdentifier:)``
    ///   when the root is no longer recorded.
    /// - Complexity: O(*d*) in the root's directories.
    public func fetchMirroredDirectories(root: MirrorRoot) throws(PhotoLibraryError) -> [MirroredDirectory] {
        try readMirror { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM mirror_root WHERE id = ?", arguments: [root.rowID]) != nil else {
                throw PhotoLibraryError.objectNotFound(localIdentifier: "mirror root \(root.path)")
            }
            return try Self.mirroredDirectories(db, rootID: root.rowID)
        }
    }

    private static func mirroredDirectories(_ db: Database, rootID: Int64) throws -> [MirroredDirectory] {
        try Row.fetchAll(
            db,
            sql: """
                SELECT d.relativePath, d.device, d.inode, c.localIdentifier, l.localIdentifier
                FROM mirror_directory d
                LEFT JOIN asset_collection c ON c.id = d.albumId
                LEFT JOIN collection_list l ON l.id = d.folderId
                WHERE d.rootId = ? ORDER BY d.relativePath
                """,
            arguments: [rootID]
        ).map { row in
            MirroredDirectory(
                relativePath: row[0], device: (row[1] as Int64?).map { UInt64(bitPattern: $0) },
                inode: (row[2] as Int64?).map { UInt64(bitPattern: $0) }, albumIdentifier: row[3], folderIdentifier: row[4])
        }
    }

    private func readMirrorState(
        root: MirrorRoot, _ body: (borrowing MirroredFileRow) -> Void
    ) throws(PhotoLibraryError) -> (root: MirrorRoot, directories: [MirroredDirectory]) {
        try readMirror { db in
            guard let current = try Row.fetchOne(db, sql: "SELECT * FROM mirror_root WHERE id = ?", arguments: [root.rowID]) else {
                throw PhotoLibraryError.objectNotFound(localIdentifier: "mirror root \(root.path)")
            }
            let statement = try db.makeStatement(sql: """
                SELECT f.relativePath, f.device, f.inode, f.size, f.mtimeNs, f.ctimeNs, f.contentHash, a.localIdentifier,
                    a.filePath
                FROM mirror_file f LEFT JOIN asset a ON a.id = f.assetId
                WHERE f.rootId = ? ORDER BY f.relativePath
                """)
            // The cursor steps the statement; the columns of its current row are read through the C API.
            let prefix = Array((current["path"] as String + "/").utf8)
            let cursor = try Row.fetchCursor(statement, arguments: [root.rowID])
            let sqlite = statement.sqliteStatement
            func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
                // sqlite3_column_text before sqlite3_column_bytes: the count is that of the text form.
                guard let text = sqlite3_column_text(sqlite, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
                return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(sqlite, column)))
            }
            while try cursor.next() != nil {
                let path = bytes(0)
                let row = MirroredFileRow(
                    relativePath: String(decoding: path, as: UTF8.self),
                    stamp: FileStamp(
                        device: UInt64(bitPattern: sqlite3_column_int64(sqlite, 1)),
                        inode: UInt64(bitPattern: sqlite3_column_int64(sqlite, 2)),
                        size: sqlite3_column_int64(sqlite, 3), mtimeNs: sqlite3_column_int64(sqlite, 4),
                        ctimeNs: sqlite3_column_int64(sqlite, 5)),
                    contentHashUTF8: bytes(6),
                    assetIdentifierUTF8: sqlite3_column_type(sqlite, 7) == SQLITE_NULL ? nil : bytes(7),
                    assetReferencesFile: Self.isPath(bytes(8), prefix, path))
                body(row)
            }
            return (Self.mirrorRoot(current), try Self.mirroredDirectories(db, rootID: root.rowID))
        }
    }

    /// Whether `whole` is `prefix` followed by `path`, compared in place.
    private static func isPath(_ whole: UnsafeBufferPointer<UInt8>, _ prefix: [UInt8], _ path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard whole.count == prefix.count + path.count, let start = whole.baseAddress else { return false }
        return prefix.withUnsafeBufferPointer { prefix in
            memcmp(start, prefix.baseAddress!, prefix.count) == 0
                && (path.isEmpty || memcmp(start + prefix.count, path.baseAddress!, path.count) == 0)
        }
    }

    /// How long a processed sync cookie stays recorded: a waiter that looks later than this after its cookie
    /// was processed does not find it (and times out).
    public static let syncCookieRetention: Double = 3600

    /// Waits until `cookie` is among the root's processed sync cookies (a watcher, in this process or another
    /// one, processed it), or until `timeout`. Any number of waiters may wait at once, each for its own cookie.
    ///
    /// A watcher recording a cookie touches the library's commit notification file, so waiters wake at once;
    /// without a notification they re-check the database once a second.
    ///
    /// - Returns: whether the cookie was recorded in time.
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    public func waitForMirrorSyncCookie(_ cookie: String, rootPath: String, timeout: Duration) async throws(PhotoLibraryError) -> Bool {
        let path = URL(fileURLWithPath: rootPath).standardizedFileURL.path
        try attachSyncWorker()
        return try await waitForClientState(timeout: timeout) { db in
            try db.fetchValue(
                Bool.self,
                sql: """
                    SELECT 1 FROM mirror_sync_cookie JOIN mirror_root ON mirror_root.id = mirror_sync_cookie.rootId
                    WHERE mirror_root.path = ? AND mirror_sync_cookie.name = ?
                    """,
                arguments: [path, cookie]) ?? false
        }
    }

    /// The albums and folders a mirror links directories to, by local identifier, so that a sync worker can
    /// make change requests for them. Identifiers of deleted objects are left out.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    /// - Complexity: O(*k*) in the identifiers given.
    public func fetchMirroredCollections(
        albumIdentifiers: some Collection<String>, folderIdentifiers: some Collection<String>
    ) throws(PhotoLibraryError) -> (albums: [String: AssetCollection], folders: [String: CollectionList]) {
        try fetchCollections(albumIdentifiers: albumIdentifiers, folderIdentifiers: folderIdentifiers)
    }

    static func mirrorRoot(_ row: Row) -> MirrorRoot {
        MirrorRoot(
            path: row["path"], device: (row["device"] as Int64?).map { UInt64(bitPattern: $0) },
            lastScanStart: (row["lastScanStart"] as Double?).map(Date.init(timeIntervalSince1970:)),
            lastScanEnd: (row["lastScanEnd"] as Double?).map(Date.init(timeIntervalSince1970:)),
            lastScanSummary: row["lastScanSummary"], lastSyncCookie: row["lastSyncCookie"], rowID: row["id"])
    }
}
