import Foundation
import GRDB

extension PhotoLibrary {
    /// Every root a sync worker mirrors into this library, by path.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    public func fetchMirrorRoots() throws(PhotoLibraryError) -> [MirrorRoot] {
        try read { db in try Row.fetchAll(db, sql: "SELECT * FROM mirror_root ORDER BY path").map(Self.mirrorRoot) }
    }

    /// The root recorded for this absolute path, or nil.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    public func fetchMirrorRoot(path: String) throws(PhotoLibraryError) -> MirrorRoot? {
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        return try read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM mirror_root WHERE path = ?", arguments: [path]).map(Self.mirrorRoot)
        }
    }

    /// Every file and directory recorded for a root, read in one consistent snapshot.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read; ``PhotoLibraryError/objectNotFound(localIdentifier:)``
    ///   when the root is no longer recorded.
    /// - Complexity: O(*n*) in the root's files; about 200 bytes of memory per file.
    public func fetchMirrorState(root: MirrorRoot) throws(PhotoLibraryError) -> MirrorState {
        try read { db in
            guard let current = try Row.fetchOne(db, sql: "SELECT * FROM mirror_root WHERE id = ?", arguments: [root.rowID]) else {
                throw PhotoLibraryError.objectNotFound(localIdentifier: "mirror root \(root.path)")
            }
            var files: [MirroredFile] = []
            let cursor = try Row.fetchCursor(
                db,
                sql: """
                    SELECT f.relativePath, f.device, f.inode, f.size, f.mtimeNs, f.ctimeNs, f.contentHash, a.localIdentifier
                    FROM mirror_file f LEFT JOIN asset a ON a.id = f.assetId
                    WHERE f.rootId = ? ORDER BY f.relativePath
                    """,
                arguments: [root.rowID])
            while let row = try cursor.next() {
                files.append(MirroredFile(
                    relativePath: row[0],
                    stamp: FileStamp(
                        device: UInt64(bitPattern: row[1]), inode: UInt64(bitPattern: row[2]), size: row[3], mtimeNs: row[4],
                        ctimeNs: row[5]),
                    contentHash: row[6], assetIdentifier: row[7]))
            }
            let directories = try Row.fetchAll(
                db,
                sql: """
                    SELECT d.relativePath, d.device, d.inode, c.localIdentifier, l.localIdentifier
                    FROM mirror_directory d
                    LEFT JOIN asset_collection c ON c.id = d.albumId
                    LEFT JOIN collection_list l ON l.id = d.folderId
                    WHERE d.rootId = ? ORDER BY d.relativePath
                    """,
                arguments: [root.rowID]
            ).map { row in
                MirroredDirectory(
                    relativePath: row[0], device: (row[1] as Int64?).map { UInt64(bitPattern: $0) },
                    inode: (row[2] as Int64?).map { UInt64(bitPattern: $0) }, albumIdentifier: row[3], folderIdentifier: row[4])
            }
            return MirrorState(root: Self.mirrorRoot(current), files: files, directories: directories)
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
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let generation = notifier.generation
            let recorded = try read { db in
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT 1 FROM mirror_sync_cookie JOIN mirror_root ON mirror_root.id = mirror_sync_cookie.rootId
                        WHERE mirror_root.path = ? AND mirror_sync_cookie.name = ?
                        """,
                    arguments: [path, cookie]) ?? false
            }
            if recorded { return true }
            if ContinuousClock.now >= deadline || Task.isCancelled { return false }
            await notifier.wait(afterGeneration: generation, until: deadline)
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
        try read { db in
            func keys(_ table: String, _ identifiers: some Collection<String>) throws -> [Int64] {
                guard !identifiers.isEmpty else { return [] }
                let marks = Array(repeating: "?", count: identifiers.count).joined(separator: ",")
                return try Int64.fetchAll(
                    db, sql: "SELECT id FROM \(table) WHERE localIdentifier IN (\(marks))", arguments: StatementArguments(Array(identifiers)))
            }
            let sequence = try Self.journalSequence(db)
            let albums = try ObjectLoading.collections(
                ArraySlice(try keys("asset_collection", albumIdentifiers)), sequence: sequence, library: self, db)
            let folders = try ObjectLoading.lists(ArraySlice(try keys("collection_list", folderIdentifiers)), sequence: sequence, db)
            return (
                Dictionary(albums.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { a, _ in a }),
                Dictionary(folders.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
            )
        }
    }

    static func mirrorRoot(_ row: Row) -> MirrorRoot {
        MirrorRoot(
            path: row["path"], device: (row["device"] as Int64?).map { UInt64(bitPattern: $0) },
            lastScanStart: (row["lastScanStart"] as Double?).map(Date.init(timeIntervalSince1970:)),
            lastScanEnd: (row["lastScanEnd"] as Double?).map(Date.init(timeIntervalSince1970:)),
            lastScanSummary: row["lastScanSummary"], lastSyncCookie: row["lastSyncCookie"], rowID: row["id"])
    }
}
