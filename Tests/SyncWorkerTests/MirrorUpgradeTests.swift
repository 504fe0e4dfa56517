import Foundation
import GRDB
import PhotoLibrary
import Testing
@testable import SyncWorker

/// A library whose mirror state was the core's (Schema/0003_mirror.sql, schema version 6), made by the
/// `photosync` of the main branch before the mirror moved to SyncWorker (`Fixtures/upgrade/make-fixture.sh`),
/// opened by this build: the sync worker adopts its tables with every row, and mirrored files keep their
/// identity.
// SQLite only: the subject is a SQLite library file made by an earlier build (Fixtures/upgrade), whose mirror
// tables were the core's; PostgreSQL libraries never had them in the core.
@Suite("Sync worker: libraries of earlier builds")
struct MirrorUpgradeTests {
    /// The fixture's library and the folder it mirrored, copied into a temporary directory.
    struct Fixture {
        let base: URL
        let library: URL
        let root: URL

        /// The mirrored files, by path relative to the root, and the fixture media they are copies of.
        static let files = [
            "2023/camera.jpg": "camera.jpg", "2023/trip/portrait.jpg": "portrait.jpg", "2023/trip/clip.mov": "clip.mov",
            "screens/plain.png": "plain.png", "screens/screenshot.png": "screenshot.png",
        ]

        /// Copies the library, recreates the folder, and moves the recorded root to where the folder is now
        /// (its path and device are in the fixture: the user's folder, wherever the fixture was made).
        init() throws {
            let manager = FileManager.default
            base = manager.temporaryDirectory.appending(path: "photosync-upgrade-\(UUID().uuidString)", directoryHint: .isDirectory)
            library = base.appending(path: "Library.photosync", directoryHint: .isDirectory)
            root = base.appending(path: "Photos", directoryHint: .isDirectory)
            try manager.createDirectory(at: library, withIntermediateDirectories: true)
            try manager.copyItem(at: Self.resource("upgrade/main-library.sqlite"), to: library.appending(path: PhotoLibrary.databaseFileName))
            for (path, media) in Self.files {
                let file = root.appending(path: path)
                try manager.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                try manager.copyItem(at: Self.resource(media), to: file)
            }
            let oldRoot = try String(contentsOf: Self.resource("upgrade/main-library.root"), encoding: .utf8)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            var status = stat()
            guard stat(root.path, &status) == 0 else { throw CocoaError(.fileReadUnknown) }
            let queue = try DatabaseQueue(path: library.appending(path: PhotoLibrary.databaseFileName).path)
            try queue.write { db in
                try db.execute(
                    sql: "UPDATE mirror_root SET path = ?, device = ? WHERE path = ?",
                    arguments: [root.path, Int64(bitPattern: UInt64(status.st_dev)), oldRoot])
                try db.execute(
                    sql: "UPDATE asset SET filePath = ? || substr(filePath, length(?) + 1) WHERE substr(filePath, 1, length(?) + 1) = ? || '/'",
                    arguments: [root.path, oldRoot, oldRoot, oldRoot])
            }
            try queue.close()
        }

        static func resource(_ name: String) -> URL {
            Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")!
        }

        func remove() { try? FileManager.default.removeItem(at: base) }
    }

    /// Every mirror row, root ids and asset, album and folder ids included, as text, in a stable order.
    static func mirrorRows(_ db: Database) throws -> [String] {
        var rows: [String] = []
        for (table, order) in [
            ("mirror_root", "id"), ("mirror_file", "rootId, relativePath"), ("mirror_directory", "rootId, relativePath"),
            ("mirror_sync_cookie", "rootId, name"),
        ] {
            for row in try Row.fetchAll(db, sql: "SELECT * FROM \(table) ORDER BY \(order)") {
                let values = row.columnNames.map { name in "\(name)=\((row[name] as DatabaseValue).description)" }
                rows.append("\(table): \(values.joined(separator: " "))")
            }
        }
        return rows
    }

    /// The mirror rows, the mirror tables' definitions and the schema version of a database file.
    static func snapshot(_ path: String) throws -> (rows: [String], schema: [String], version: Int?) {
        let queue = try DatabaseQueue(path: path)
        defer { try? queue.close() }
        return try queue.read { db in
            (try mirrorRows(db), try mirrorSchema(db), try Int.fetchOne(db, sql: "PRAGMA user_version"))
        }
    }

    /// The definitions of the mirror tables and their indexes, as SQLite keeps them.
    static func mirrorSchema(_ db: Database) throws -> [String] {
        try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE name LIKE 'mirror%' AND sql IS NOT NULL ORDER BY name")
    }

    /// A schema of main's without the two indexes no statement reads, which the series' migration 3 drops.
    static func withoutUnreadIndexes(_ schema: [String]) -> [String] {
        schema.filter { !$0.hasPrefix("CREATE INDEX mirror_file_by_contentHash ") && !$0.hasPrefix("CREATE INDEX mirror_file_by_inode ") }
    }

    @Test("The sync worker adopts the mirror tables of a library main's photosync made: every row kept, identities kept by a rescan")
    func adoptsTheCoreMirror() async throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let databasePath = fixture.library.appending(path: PhotoLibrary.databaseFileName).path
        let (rowsBefore, schemaBefore, versionBefore) = try Self.snapshot(databasePath)
        #expect(versionBefore == 6)
        #expect(rowsBefore.filter { $0.hasPrefix("mirror_file") }.count == Fixture.files.count)

        let library = try PhotoLibrary(url: fixture.library)
        let assetsBefore = Dictionary(uniqueKeysWithValues: try library.fetchAssets().map { ($0.filePath!, $0.localIdentifier) })
        let albumsBefore = try library.fetchAssetCollections(with: .album).map(\.localIdentifier).sorted()
        try library.attachSyncWorker()
        #expect(try library.clientSchemaVersion(of: SyncSchema.clientName) == SyncSchema.schema.version)
        let (rowsAfter, schemaAfter) = try library.readClientState { db in
            (try Self.mirrorRows(db.unmovedDatabase), try Self.mirrorSchema(db.unmovedDatabase))
        }
        #expect(rowsAfter == rowsBefore)
        #expect(schemaAfter == Self.withoutUnreadIndexes(schemaBefore))
        #expect(schemaAfter.count == schemaBefore.count - 2)
        // The recorded root is a root of asset paths now: `path` in predicates and the sync worker's paths.
        let plain = try library.fetchAssets(options: FetchOptions(predicate: FetchFilter(Asset.path == "screens/plain.png")))
        #expect(plain.firstObject?.filePath == fixture.root.path + "/screens/plain.png")
        #expect(try MirrorPaths(library: library, includeDirectories: true).relativePath(ofFile: fixture.root.path + "/2023/camera.jpg") == "2023/camera.jpg")

        // A rescan (new inodes: every file is hashed) finds every file as the asset it was.
        let summary = try await FolderMirror(library: library, root: fixture.root).scan()
        #expect(summary.inserted == 0)
        #expect(summary.deleted == 0)
        let assetsAfter = Dictionary(uniqueKeysWithValues: try library.fetchAssets().map { ($0.filePath!, $0.localIdentifier) })
        #expect(assetsAfter == assetsBefore)
        #expect(try library.fetchAssetCollections(with: .album).map(\.localIdentifier).sorted() == albumsBefore)
        // Reopening attaches nothing again.
        let reopened = try PhotoLibrary(url: fixture.library)
        try reopened.attachSyncWorker()
        #expect(try reopened.fetchMirrorRoots().map(\.path) == [fixture.root.path])
    }

    @Test("A new library gets the mirror tables through the sync worker's series, defined as main's core migration defined them, less the two indexes migration 3 drops")
    func freshLibrariesGetTheSameTables() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let queue = try DatabaseQueue(path: fixture.library.appending(path: PhotoLibrary.databaseFileName).path)
        let old = try queue.read { db in try Self.mirrorSchema(db) }
        try queue.close()
        let library = try PhotoLibrary(url: fixture.base.appending(path: "New.photosync"))
        #expect(try library.readClientState { db in try Self.mirrorSchema(db.unmovedDatabase) }.isEmpty)  // The core alone has none.
        try library.attachSyncWorker()
        #expect(try library.readClientState { db in try Self.mirrorSchema(db.unmovedDatabase) } == Self.withoutUnreadIndexes(old))
        #expect(old.count == 7)  // Four tables, three indexes; one index after migration 3.
        #expect(Self.withoutUnreadIndexes(old).count == 5)
    }

    @Test("A library with part of the mirror tables is refused, and left as it was")
    func partialMirrorIsRefused() throws {
        let fixture = try Fixture()
        defer { fixture.remove() }
        let databasePath = fixture.library.appending(path: PhotoLibrary.databaseFileName).path
        let queue = try DatabaseQueue(path: databasePath)
        try queue.write { db in try db.execute(sql: "DROP TABLE mirror_sync_cookie") }
        try queue.close()
        let library = try PhotoLibrary(url: fixture.library)
        do {
            try library.attachSyncWorker()
            Issue.record("a library with part of the mirror tables was attached")
        } catch {
            guard case .clientSchemaConflict(let client, _) = error else { throw error }
            #expect(client == SyncSchema.clientName)
        }
        #expect(try library.clientSchemaVersion(of: SyncSchema.clientName) == 0)
        #expect(try library.readClientState { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM mirror_file") } == Fixture.files.count)
    }
}
