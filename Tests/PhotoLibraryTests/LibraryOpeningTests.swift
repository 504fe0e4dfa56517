import Foundation
import GRDB
import Testing
@testable import PhotoLibrary

@Suite struct LibraryOpeningTests {
    @Test func creatingALibraryMakesTheDirectoryLayoutAndSmartAlbums() throws {
        let test = try TestLibrary()
        let url = test.library.url
        #expect(FileManager.default.fileExists(atPath: url.appending(path: "Photos.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: url.appending(path: "originals").path))
        let smart = try test.library.fetchAssetCollections(with: .smartAlbum)
        #expect(smart.map(\.assetCollectionSubtype) == [
            .smartAlbumUserLibrary, .smartAlbumFavorites, .smartAlbumVideos, .smartAlbumRecentlyAdded,
            .smartAlbumPanoramas, .smartAlbumScreenshots, .smartAlbumBursts, .smartAlbumAllHidden,
        ])
    }

    @Test func reopeningKeepsIdentityAndData() throws {
        let directory = TemporaryDirectory()
        let url = directory.url.appending(path: "L")
        let identity: UUID
        let token: ChangeToken
        do {
            let library = try PhotoLibrary(url: url)
            identity = library.identity
            try library.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip") }
            token = try library.currentChangeToken
        }
        let again = try PhotoLibrary(url: url)
        #expect(again.identity == identity)
        #expect(try again.currentChangeToken == token)
        #expect(try again.fetchAssetCollections(with: .album).map(\.localizedTitle) == ["Trip"])
    }

    @Test func databaseIsDurableWALWithForeignKeys() throws {
        let test = try TestLibrary()
        let (mode, synchronous, foreignKeys, version) = try test.library.database.read { db in
            (try String.fetchOne(db, sql: "PRAGMA journal_mode"), try Int.fetchOne(db, sql: "PRAGMA synchronous"),
             try Int.fetchOne(db, sql: "PRAGMA foreign_keys"), try Int.fetchOne(db, sql: "PRAGMA user_version"))
        }
        #expect(mode == "wal")
        #expect(synchronous == 2)  // FULL
        #expect(foreignKeys == 1)
        #expect(version == LibrarySchema.currentVersion)
        // The connection that commits: GRDB's WAL set-up sets NORMAL on it after the library's own settings,
        // and this test once read only a reader's, so commits went without a sync unnoticed.
        let writer = try test.library.database.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(writer == 2, "the writer's commits do not wait for the disk (synchronous = \(writer.map(String.init) ?? "nil"))")
    }

    @Test("The writer keeps its temporary files (a multi-row statement's journal) in memory; readers keep the default")
    func writerTemporaryFilesInMemory() throws {
        let test = try TestLibrary()
        let writer = try test.library.database.write { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") }
        let reader = try test.library.database.read { db in try Int.fetchOne(db, sql: "PRAGMA temp_store") }
        #expect(writer == 2)  // MEMORY
        #expect(reader == 0)  // DEFAULT: this SQLite's compile-time choice (files)
    }

    @Test func pendingMigrationsAreAppliedWhenOpening() throws {
        let directory = TemporaryDirectory()
        let url = directory.url.appending(path: "L")
        do {
            // A library at schema version 1: the journal's, the adjustments' and the client tables' migrations
            // not applied yet.
            let library = try PhotoLibrary(url: url)
            try library.database.write { db in
                try db.execute(sql: "DROP TABLE asset_adjustment; DROP INDEX asset_adjustedContentHash")
                try db.execute(sql: "ALTER TABLE asset DROP COLUMN adjustedContentHash")
                try db.execute(sql: "DROP TABLE change_record; DROP TABLE change_transaction; DROP TABLE change_journal")
                try db.execute(sql: "DROP TABLE library_client_schema; DROP TABLE asset_path_root")
                try db.execute(sql: "PRAGMA user_version = 1")
            }
        }
        let library = try PhotoLibrary(url: url)
        let (version, tables) = try library.database.read { db in
            (try Int.fetchOne(db, sql: "PRAGMA user_version"),
             try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND (name LIKE 'change_%' OR name IN ('library_client_schema', 'asset_path_root')) ORDER BY name"))
        }
        #expect(version == LibrarySchema.currentVersion)
        #expect(tables == ["asset_path_root", "change_journal", "change_record", "change_transaction", "library_client_schema"])
        #expect(try library.clientSchemaVersion(of: "any client") == 0)
        try library.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "after migration") }
        #expect(try library.historyStatus().transactionCount == 1)
    }

    @Test func aFileIsNotALibrary() throws {
        let directory = TemporaryDirectory()
        let file = directory.file("notes.txt", bytes: Array("hello".utf8))
        #expect(throws: PhotoLibraryError.notALibrary(path: file.path, reason: "it is a file; a library is a directory")) {
            try PhotoLibrary(url: file)
        }
        #expect(try Data(contentsOf: file) == Data("hello".utf8))
    }

    @Test func aNonEmptyFolderWithoutDatabaseIsRefusedAndLeftAlone() throws {
        let directory = TemporaryDirectory()
        _ = directory.file("photos/a.jpg", seed: 1)
        #expect {
            try PhotoLibrary(url: directory.url.appending(path: "photos"))
        } throws: { error in
            guard case PhotoLibraryError.notALibrary = error else { return false }
            return true
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.appending(path: "photos").path) == ["a.jpg"])
    }

    @Test func aCorruptDatabaseIsReportedAndLeftUntouched() throws {
        let directory = TemporaryDirectory()
        let garbage = (0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 37) }
        let database = directory.file("L/Photos.sqlite", bytes: garbage)
        #expect {
            try PhotoLibrary(url: directory.url.appending(path: "L"))
        } throws: { error in
            guard case PhotoLibraryError.corruptLibrary = error else { return false }
            return true
        }
        #expect(try Data(contentsOf: database) == Data(garbage))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.appending(path: "L").path) == ["Photos.sqlite"])
    }

    @Test func anotherProgramsDatabaseIsRefusedAndLeftUntouched() throws {
        let directory = TemporaryDirectory()
        let path = directory.url.appending(path: "L/Photos.sqlite")
        try FileManager.default.createDirectory(at: path.deletingLastPathComponent(), withIntermediateDirectories: true)
        do {
            let queue = try DatabaseQueue(path: path.path)
            try queue.write { db in try db.execute(sql: "CREATE TABLE notes (body TEXT); INSERT INTO notes VALUES ('keep me')") }
        }
        let before = try Data(contentsOf: path)
        #expect {
            try PhotoLibrary(url: directory.url.appending(path: "L"))
        } throws: { error in
            guard case PhotoLibraryError.notALibrary = error else { return false }
            return true
        }
        #expect(try Data(contentsOf: path) == before)
    }

    @Test func aLibraryFromANewerPhotosyncIsRefusedAndLeftUntouched() throws {
        let directory = TemporaryDirectory()
        let url = directory.url.appending(path: "L")
        do {
            let library = try PhotoLibrary(url: url)
            try library.database.write { db in try db.execute(sql: "PRAGMA user_version = 999") }
        }
        let path = url.appending(path: "Photos.sqlite")
        let before = try Data(contentsOf: path)
        #expect(throws: PhotoLibraryError.schemaTooNew(found: 999, supported: LibrarySchema.currentVersion)) {
            try PhotoLibrary(url: url)
        }
        #expect(try Data(contentsOf: path) == before)
    }

    @Test func missingLibraryWithoutCreateIsAnError() {
        let directory = TemporaryDirectory()
        #expect {
            try PhotoLibrary(url: directory.url.appending(path: "nope"), options: .init(createIfNeeded: false))
        } throws: { error in
            guard case PhotoLibraryError.storageUnavailable = error else { return false }
            return true
        }
    }

    @Test("The default location: $PHOTOSYNC_LIBRARY, else $XDG_DATA_HOME when absolute, else ~/.local/share")
    func defaultLocationRule() {
        func path(_ environment: [String: String]) -> String { PhotoLibrary.defaultURL(environment: environment).path }
        let home = ["HOME": "/home/u"]
        #expect(path(home) == "/home/u/.local/share/photosync/Library.photosync")
        #expect(path(home.merging(["XDG_DATA_HOME": "/data"]) { $1 }) == "/data/photosync/Library.photosync")
        #expect(path(home.merging(["XDG_DATA_HOME": "relative/data"]) { $1 }) == "/home/u/.local/share/photosync/Library.photosync")
        #expect(path(home.merging(["XDG_DATA_HOME": ""]) { $1 }) == "/home/u/.local/share/photosync/Library.photosync")
        #expect(path(home.merging(["XDG_DATA_HOME": "/data", "PHOTOSYNC_LIBRARY": "/libs/Mine.photosync"]) { $1 }) == "/libs/Mine.photosync")
        #expect(path(home.merging(["XDG_DATA_HOME": "/data", "PHOTOSYNC_LIBRARY": ""]) { $1 }) == "/data/photosync/Library.photosync")
        let cwd = FileManager.default.currentDirectoryPath
        #expect(path(["PHOTOSYNC_LIBRARY": "here/Lib.photosync"]) == URL(fileURLWithPath: cwd).appending(path: "here/Lib.photosync").path)
        #expect(PhotoLibrary.defaultURL == PhotoLibrary.defaultURL(environment: ProcessInfo.processInfo.environment))
    }

    @Test("defaultURL reads the process's own environment")
    func defaultLocationInAProcess() throws {
        func defaultURL(in environment: [String: String]) throws -> String {
            let process = Process()
            process.executableURL = CrossProcessTests.writerURL
            process.arguments = ["default-url"]
            process.environment = environment
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        #expect(try defaultURL(in: ["HOME": "/home/v", "PHOTOSYNC_LIBRARY": "/elsewhere/L.photosync"]) == "/elsewhere/L.photosync")
        #expect(try defaultURL(in: ["HOME": "/home/v", "XDG_DATA_HOME": "/xdg"]) == "/xdg/photosync/Library.photosync")
        #expect(try defaultURL(in: ["HOME": "/home/v"]) == "/home/v/.local/share/photosync/Library.photosync")
    }
}
