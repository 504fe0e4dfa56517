import Foundation
import GRDB
import Testing
@testable import PhotoLibrary

@Suite("Mirror state")
struct MirrorStateTests {
    static let stamp = FileStamp(device: 42, inode: 7, size: 64, mtimeNs: 1_700_000_000_123_456_789, ctimeNs: 1_700_000_000_987_654_321)
    static let hash = String(repeating: "ab", count: 16)

    @Test("Mirror state commits with the assets it describes and round-trips")
    func roundTrip() throws {
        let test = try TestLibrary()
        let library = test.library
        let file = test.directory.file("root/a/x.jpg", seed: 1, size: 64)
        let root = test.directory.url.appending(path: "root").path
        try library.performChangesAndWait(author: "tests") {
            let asset = AssetChangeRequest.creationRequestForAsset(
                fromFileAt: file, options: AssetCreationOptions(storage: .referenced))
            let album = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "a")
            album.addAssets([asset.placeholderForCreatedAsset!])
            let mirror = MirrorChangeRequest(rootPath: root + "/./")
            mirror.setRootDevice(42)
            mirror.setFile("a/x.jpg", stamp: Self.stamp, contentHash: Self.hash, asset: asset.placeholderForCreatedAsset)
            mirror.setDirectory("a", device: 42, inode: 9, album: album.placeholderForCreatedAssetCollection, folder: nil)
            mirror.recordScan(start: Date(timeIntervalSince1970: 10), end: Date(timeIntervalSince1970: 20), summary: "{}")
        }
        let roots = try library.fetchMirrorRoots()
        #expect(roots.map(\.path) == [root])
        #expect(roots.first?.device == 42)
        #expect(roots.first?.lastScanEnd == Date(timeIntervalSince1970: 20))
        let state = try library.fetchMirrorState(root: try #require(roots.first))
        let asset = try #require(try library.fetchAssets().firstObject)
        #expect(state.files == [MirroredFile(relativePath: "a/x.jpg", stamp: Self.stamp, contentHash: Self.hash, assetIdentifier: asset.localIdentifier)])
        let album = try #require(try library.fetchAssetCollections(with: .album).firstObject)
        #expect(state.directories == [MirroredDirectory(relativePath: "a", device: 42, inode: 9, albumIdentifier: album.localIdentifier)])
        // The streaming read hands the same files over, as bytes, and returns the same directories.
        var streamed: [MirroredFile] = []
        var hashBytes: [[UInt8]] = []
        let directories = try library.forEachMirroredFile(root: try #require(roots.first)) { row in
            streamed.append(row.file)
            hashBytes.append(Array(row.contentHashUTF8))
        }
        #expect(streamed == state.files)
        #expect(hashBytes == [Array(Self.hash.utf8)])
        #expect(directories == state.directories)
        // The directories alone, without the files.
        #expect(try library.fetchMirroredDirectories(root: try #require(roots.first)) == state.directories)
    }

    @Test("A block holding only mirror requests appends no transaction and keeps the token")
    func mirrorOnlyBlockIsInvisible() async throws {
        let test = try TestLibrary()
        let library = test.library
        try test.makeAssets(1)
        let token = try library.currentChangeToken
        try await library.performChanges(author: "tests") {
            let mirror = MirrorChangeRequest(rootPath: "/some/root")
            mirror.setFile("x.jpg", stamp: Self.stamp, contentHash: Self.hash, asset: nil)
            mirror.recordSyncCookie("cookie-1")
        }
        #expect(try library.currentChangeToken == token)
        #expect(Array(try library.fetchPersistentChanges(since: token)).isEmpty)
        let root = try #require(try library.fetchMirrorRoot(path: "/some/root"))
        #expect(root.lastSyncCookie == "cookie-1")
        #expect(try library.fetchMirrorState(root: root).files.count == 1)
    }

    @Test("A cookie recorded through another handle wakes a waiter; an unrecorded one times out")
    func cookieWaiter() async throws {
        let test = try TestLibrary()
        let library = test.library
        let other = try PhotoLibrary(url: library.url)
        async let waited = library.waitForMirrorSyncCookie("c2", rootPath: "/r", timeout: .seconds(30))
        try await other.performChanges(author: "tests") { MirrorChangeRequest(rootPath: "/r").recordSyncCookie("c2") }
        #expect(try await waited)
        #expect(try await !library.waitForMirrorSyncCookie("c3", rootPath: "/r", timeout: .milliseconds(50)))
    }

    @Test("Deleting a mirrored asset unlinks its file; a failing block leaves no mirror state")
    func deletionAndFailure() async throws {
        let test = try TestLibrary()
        let library = test.library
        let asset = try test.makeAssets(1)[0]
        try await library.performChanges(author: "tests") {
            MirrorChangeRequest(rootPath: "/r").setFile("x.jpg", stamp: Self.stamp, contentHash: Self.hash, asset: asset)
        }
        try await library.performChanges(author: "tests") { AssetChangeRequest.deleteAssets([asset]) }
        let root = try #require(try library.fetchMirrorRoot(path: "/r"))
        #expect(try library.fetchMirrorState(root: root).files.first?.assetIdentifier == nil)

        await #expect(throws: PhotoLibraryError.self) {
            try await library.performChanges(author: "tests") {
                let mirror = MirrorChangeRequest(rootPath: "/r")
                mirror.setFile("y.jpg", stamp: Self.stamp, contentHash: Self.hash, asset: nil)
                mirror.setFile("z.jpg", stamp: Self.stamp, contentHash: Self.hash, asset: asset)  // deleted: fails the block
            }
        }
        #expect(try library.fetchMirrorState(root: root).files.map(\.relativePath) == ["x.jpg"])
    }
}

@Suite("Mirror state: libraries in a tree, consistency")
struct LibraryRecognitionTests {
    /// The application id bytes of a file's SQLite header (offset 68).
    static func headerMark(_ path: String) -> [UInt8] {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return [] }
        return Array(data.dropFirst(68).prefix(4))
    }

    @Test("A library is recognised by its database's mark, also while its first commits are only in the write-ahead log")
    func recognition() throws {
        let test = try TestLibrary()
        let path = test.library.url.path
        // Open in this process, never checkpointed: the mark is in the log, not yet in the database file.
        #expect(Self.headerMark(path + "/Photos.sqlite") == [0, 0, 0, 0])
        #expect(FileManager.default.fileExists(atPath: path + "/Photos.sqlite-wal"))
        #expect(PhotoLibrary.isLibraryDirectory(atPath: path))
        // Closed (checkpointed): the mark is in the database file.
        let closed = test.directory.url.appending(path: "Closed.photosync")
        do { _ = try PhotoLibrary(url: closed) }
        #expect(Self.headerMark(closed.path + "/Photos.sqlite") == Array("PSYN".utf8))
        #expect(PhotoLibrary.isLibraryDirectory(atPath: closed.path))
        // Not libraries: another program's SQLite database by the same name, any other file by that name, a
        // folder without one, a path that does not exist, a file.
        let other = test.directory.url.appending(path: "Other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: other.path + "/Photos.sqlite")
        try queue.write { try $0.execute(sql: "CREATE TABLE t (x); PRAGMA application_id = 42") }
        try queue.close()
        #expect(!PhotoLibrary.isLibraryDirectory(atPath: other.path))
        let text = test.directory.url.appending(path: "Text")
        _ = test.directory.file("Text/Photos.sqlite", bytes: Array("SQLite format 3\0 but not really".utf8))
        #expect(!PhotoLibrary.isLibraryDirectory(atPath: text.path))
        #expect(!PhotoLibrary.isLibraryDirectory(atPath: test.directory.url.path))
        #expect(!PhotoLibrary.isLibraryDirectory(atPath: test.directory.url.path + "/missing"))
        #expect(!PhotoLibrary.isLibraryDirectory(atPath: path + "/Photos.sqlite"))
    }

    @Test("Consistency figures: records naming their file's asset against the assets referencing files under the root, nested roots apart")
    func consistency() throws {
        let test = try TestLibrary()
        let library = test.library
        let root = test.directory.url.appending(path: "root").path
        let files = ["a.jpg", "b.jpg", "inner/c.jpg", "rootless.jpg"].map { test.directory.file("root/\($0)", seed: 1, size: 64) }
        let outside = test.directory.file("elsewhere/d.jpg", seed: 2, size: 64)
        var ids: [String] = []
        try library.performChangesAndWait(author: "tests") {
            for file in files + [outside] {
                let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: file, options: AssetCreationOptions(storage: .referenced))
                ids.append(request.placeholderForCreatedAsset!.localIdentifier)
            }
            let mirror = MirrorChangeRequest(rootPath: root)
            mirror.setFile("a.jpg", stamp: MirrorStateTests.stamp, contentHash: MirrorStateTests.hash, asset: ObjectRef(localIdentifier: ids[0]))
            // A record naming another file's asset, and one naming none.
            mirror.setFile("b.jpg", stamp: MirrorStateTests.stamp, contentHash: MirrorStateTests.hash, asset: ObjectRef(localIdentifier: ids[3]))
            mirror.setFile("gone.jpg", stamp: MirrorStateTests.stamp, contentHash: MirrorStateTests.hash, asset: nil)
            // A root nested inside: its files are its own.
            MirrorChangeRequest(rootPath: root + "/inner").setFile(
                "c.jpg", stamp: MirrorStateTests.stamp, contentHash: MirrorStateTests.hash, asset: ObjectRef(localIdentifier: ids[2]))
        }
        let figures = try library.mirrorConsistency(rootPath: root)
        #expect(figures == MirrorConsistency(files: 3, filesWithTheirAsset: 1, referencingAssets: 3))
        #expect(!figures.isConsistent)
        #expect(try library.fetchFileReferences(rootPath: root).map(\.relativePath) == ["a.jpg", "b.jpg", "rootless.jpg"])
        #expect(try library.mirrorConsistency(rootPath: root + "/inner").isConsistent)
        // Unrecorded: no records, and any asset under it disagrees.
        #expect(try library.mirrorConsistency(rootPath: test.directory.url.appending(path: "elsewhere").path)
            == MirrorConsistency(files: 0, filesWithTheirAsset: 0, referencingAssets: 1))
    }
}

private struct ObjectRef: LibraryObject {
    let localIdentifier: String
}
