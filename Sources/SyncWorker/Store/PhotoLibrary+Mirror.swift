import Foundation
import GRDB
import LibraryStorage
public import PhotoLibrary

extension PhotoLibrary {
    /// Every root a sync worker mirrors into this library, by path.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    public func fetchMirrorRoots() throws(PhotoLibraryError) -> [MirrorRoot] {
        try readMirror { db in try Self.fetchRoots(db, where: "TRUE") }
    }

    /// The root recorded for this absolute path, or nil.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    public func fetchMirrorRoot(path: String) throws(PhotoLibraryError) -> MirrorRoot? {
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        return try readMirror { db in try Self.fetchRoots(db, where: "path = ?", arguments: [path]).first }
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
        try readMirror { db in
            try db.fetchValue(Int.self, sql: "SELECT count(*) FROM mirror_file WHERE rootId = ?", arguments: [root.rowID]) ?? 0
        }
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
            guard try db.fetchValue(Int64.self, sql: "SELECT 1 FROM mirror_root WHERE id = ?", arguments: [root.rowID]) != nil else {
                throw PhotoLibraryError.objectNotFound(localIdentifier: "mirror root \(root.path)")
            }
            return try Self.mirroredDirectories(db, rootID: root.rowID)
        }
    }

    private static func mirroredDirectories(_ db: any SQLConnection, rootID: Int64) throws -> [MirroredDirectory] {
        var directories: [MirroredDirectory] = []
        try db.forEachRow(
            sql: """
                SELECT d.relativePath, d.device, d.inode, c.localIdentifier, l.localIdentifier
                FROM mirror_directory d
                LEFT JOIN asset_collection c ON c.id = d.albumId
                LEFT JOIN collection_list l ON l.id = d.folderId
                WHERE d.rootId = ? ORDER BY d.relativePath
                """,
            arguments: [rootID], cached: false
        ) { columns in
            directories.append(MirroredDirectory(
                relativePath: columns.text(0), device: columns.optionalInt64(1).map { UInt64(bitPattern: $0) },
                inode: columns.optionalInt64(2).map { UInt64(bitPattern: $0) }, albumIdentifier: columns.optionalText(3),
                folderIdentifier: columns.optionalText(4)))
            return true
        }
        return directories
    }

    private func readMirrorState(
        root: MirrorRoot, _ body: (borrowing MirroredFileRow) -> Void
    ) throws(PhotoLibraryError) -> (root: MirrorRoot, directories: [MirroredDirectory]) {
        try readMirror { db in
            guard let current = try Self.fetchRoots(db, where: "id = ?", arguments: [root.rowID]).first else {
                throw PhotoLibraryError.objectNotFound(localIdentifier: "mirror root \(root.path)")
            }
            try MirroredFileReader(rootID: root.rowID, rootPath: current.path).forEachFile(db, body)
            return (current, try Self.mirroredDirectories(db, rootID: root.rowID))
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

    /// The columns ``mirrorRoot(_:)`` reads, in its order.
    private static let rootColumns = "id, path, device, lastScanStart, lastScanEnd, lastScanSummary, lastSyncCookie"

    /// The recorded roots matching `condition` (SQL over `mirror_root`), by path.
    static func fetchRoots(_ db: any SQLConnection, where condition: String, arguments: StatementArguments = []) throws -> [MirrorRoot] {
        var roots: [MirrorRoot] = []
        try db.forEachRow(
            sql: "SELECT \(rootColumns) FROM mirror_root WHERE \(condition) ORDER BY path", arguments: arguments, cached: false
        ) { columns in
            roots.append(mirrorRoot(columns))
            return true
        }
        return roots
    }

    /// A root from the columns of ``rootColumns``.
    private static func mirrorRoot(_ columns: any SQLColumns) -> MirrorRoot {
        MirrorRoot(
            path: columns.text(1), device: columns.optionalInt64(2).map { UInt64(bitPattern: $0) },
            lastScanStart: columns.optionalDouble(3).map(Date.init(timeIntervalSince1970:)),
            lastScanEnd: columns.optionalDouble(4).map(Date.init(timeIntervalSince1970:)),
            lastScanSummary: columns.optionalText(5), lastSyncCookie: columns.optionalText(6), rowID: columns.int64(0))
    }
}
