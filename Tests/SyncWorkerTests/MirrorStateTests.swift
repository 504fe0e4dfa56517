import Foundation
import GRDB
import LibraryTestSupport
@testable import PhotoLibrary
import SeededRandom
import Synchronization
import Testing
@testable import SyncWorker

@Suite("Mirror state")
struct MirrorStateTests {
    static let stamp = FileStamp(device: 42, inode: 7, size: 64, mtimeNs: 1_700_000_000_123_456_789, ctimeNs: 1_700_000_000_987_654_321)
    static let hash = String(repeating: "ab", count: 16)

    @Test("Mirror state commits with the assets it describes and round-trips", arguments: LibraryEngine.allCases)
    func roundTrip(engine: LibraryEngine) async throws {
        let test = try MirrorTestLibrary(engine: engine)
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
        var referencing: [Bool] = []
        let directories = try library.forEachMirroredFile(root: try #require(roots.first)) { row in
            streamed.append(row.file)
            hashBytes.append(Array(row.contentHashUTF8))
            referencing.append(row.assetReferencesFile)
        }
        #expect(streamed == state.files)
        #expect(hashBytes == [Array(Self.hash.utf8)])
        #expect(referencing == [true])  // The asset references root/a/x.jpg, the record's own file.
        #expect(directories == state.directories)
        // The directories alone, without the files.
        #expect(try library.fetchMirroredDirectories(root: try #require(roots.first)) == state.directories)

        // Recording a file, a directory or a cookie again replaces the record; the root is recorded once.
        let other = FileStamp(device: UInt64.max, inode: 8, size: 65, mtimeNs: -1, ctimeNs: 2)
        try library.performChangesAndWait(author: "tests") {
            let mirror = MirrorChangeRequest(rootPath: root)
            mirror.setFile("a/x.jpg", stamp: other, contentHash: String(repeating: "cd", count: 16), asset: nil)
            mirror.setDirectory("a", device: 43, inode: nil, album: nil, folder: nil)
            mirror.recordSyncCookie("c")
            mirror.recordSyncCookie("c")
        }
        let again = try library.fetchMirrorState(root: try #require(try library.fetchMirrorRoots().first))
        #expect(try library.fetchMirrorRoots().count == 1)
        #expect(again.files == [MirroredFile(relativePath: "a/x.jpg", stamp: other, contentHash: String(repeating: "cd", count: 16), assetIdentifier: nil)])
        #expect(again.directories == [MirroredDirectory(relativePath: "a", device: 43)])
        #expect(try await library.waitForMirrorSyncCookie("c", rootPath: root, timeout: .zero))
    }

    @Test("Files recorded together are recorded as one by one: every chunk size, a path given twice keeps its last entry", arguments: LibraryEngine.allCases)
    func filesRecordedTogether(engine: LibraryEngine) throws {
        let test = try MirrorTestLibrary(engine: engine)
        let library = test.library
        let assets = try test.makeAssets(2)
        func stamp(_ index: Int) -> FileStamp {
            FileStamp(device: 42, inode: UInt64(index), size: Int64(index), mtimeNs: Int64(index) * 1_000, ctimeNs: -Int64(index))
        }
        // 30 files and a second entry for two of them: one statement of 32 rows on SQLite, which applies its
        // rows in order; PostgreSQL refuses a statement upserting a row twice. Then 70 more: 32, 32, 4 and 2.
        var records = (0..<30).map { index in
            MirroredFileRecord(
                relativePath: "d/\(index).jpg", stamp: stamp(index), contentHash: Self.hash,
                asset: index < 2 ? ObjectRef(localIdentifier: assets[index].localIdentifier) : nil)
        }
        records.append(MirroredFileRecord(relativePath: "d/7.jpg", stamp: stamp(1_007), contentHash: Self.hash, asset: nil))
        records.append(MirroredFileRecord(
            relativePath: "d/0.jpg", stamp: stamp(1_000), contentHash: String(repeating: "cd", count: 16), asset: nil))
        let more = (0..<70).map { index in
            MirroredFileRecord(relativePath: "e/\(index).jpg", stamp: stamp(index), contentHash: Self.hash, asset: nil)
        }
        try library.performChangesAndWait(author: "tests") {
            let mirror = MirrorChangeRequest(rootPath: "/r")
            mirror.setFiles(records)
            mirror.setFiles(more)
        }
        let state = try library.fetchMirrorState(root: try #require(try library.fetchMirrorRoot(path: "/r")))
        var expected: [String: MirroredFile] = [:]
        for record in records + more {
            expected[record.relativePath] = MirroredFile(
                relativePath: record.relativePath, stamp: record.stamp, contentHash: record.contentHash,
                assetIdentifier: record.asset?.localIdentifier)
        }
        #expect(state.files.count == 100)
        #expect(Dictionary(uniqueKeysWithValues: state.files.map { ($0.relativePath, $0) }) == expected)
        #expect(expected["d/1.jpg"]?.assetIdentifier == assets[1].localIdentifier)
        #expect(expected["d/0.jpg"]?.assetIdentifier == nil)
    }

    @Test("A block holding only mirror requests appends no transaction and keeps the token", arguments: LibraryEngine.allCases)
    func mirrorOnlyBlockIsInvisible(engine: LibraryEngine) async throws {
        let test = try MirrorTestLibrary(engine: engine)
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

    // SQLite only: another handle's commit reaches the waiter through the commit notification file; on
    // PostgreSQL other handles wake by polling (commitPollInterval) until LISTEN/NOTIFY lands, and this test
    // switches polling off.
    @Test("A cookie recorded through another handle wakes a waiter; an unrecorded one times out")
    func cookieWaiter() async throws {
        let test = try MirrorTestLibrary()
        var notificationsOnly = PhotoLibrary.Options()
        notificationsOnly.commitPollInterval = nil  // No re-check but at the deadline: the recording must wake it.
        let library = try PhotoLibrary(url: test.library.url, options: notificationsOnly)
        let other = try PhotoLibrary(url: library.url)
        let returned = Atomic(false)
        // The waiter and this test's polling run on queues of their own: the suites beside this one hold the
        // cooperative pool for seconds, and a waiter that never gets a thread never suspends (a CI run's failure).
        let waiter = Task(executorPreference: QueueExecutor(label: "tests.cookie-waiter")) {
            defer { returned.store(true, ordering: .sequentiallyConsistent) }
            return try await library.waitForMirrorSyncCookie("c2", rootPath: "/r", timeout: .seconds(600))
        }
        try await withTaskExecutorPreference(QueueExecutor(label: "tests.cookie-test")) {
            // The waiter checked once and suspended: the recording must wake it, not its first check.
            #expect(await eventually { library.notifier.waiterCount == 1 }, "the waiter never suspended")
            try await other.performChanges(author: "tests") { MirrorChangeRequest(rootPath: "/r").recordSyncCookie("c2") }
            #expect(
                await eventually { returned.load(ordering: .sequentiallyConsistent) }, "the recording did not wake the waiter")
            waiter.cancel()
            #expect(try await waiter.value)
            #expect(try await !library.waitForMirrorSyncCookie("c3", rootPath: "/r", timeout: .milliseconds(50)))
        }
    }

    @Test("Deleting a mirrored asset unlinks its file; a failing block leaves no mirror state", arguments: LibraryEngine.allCases)
    func deletionAndFailure(engine: LibraryEngine) async throws {
        let test = try MirrorTestLibrary(engine: engine)
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

@Suite("Mirror state: consistency")
struct MirrorConsistencyTests {
    @Test("Consistency figures: records naming their file's asset against the assets referencing files under the root, nested roots apart", arguments: LibraryEngine.allCases)
    func consistency(engine: LibraryEngine) throws {
        let test = try MirrorTestLibrary(engine: engine)
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

/// A temporary directory removed when the test ends.
final class MirrorTestDirectory {
    let url: URL

    init() {
        url = FileManager.default.temporaryDirectory.appending(path: "photosync-mirror-\(UUID().uuidString)", directoryHint: .isDirectory)
        try! FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes a file of pseudo-random bytes (distinct per seed) and returns its URL.
    func file(_ name: String, seed: UInt64, size: Int = 1024) -> URL {
        var generator = SplitMix64(seed: seed)
        let file = url.appending(path: name)
        try! FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! Data((0..<size).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(to: file)
        return file
    }
}

/// A library in a temporary directory (on PostgreSQL: in a new database of the test cluster).
struct MirrorTestLibrary {
    let directory = MirrorTestDirectory()
    let library: PhotoLibrary

    init(engine: LibraryEngine = .sqlite) throws {
        library = try engine.open(directory.url.appending(path: "Library.photosync"), database: try engine.makeDatabase())
    }

    /// Creates `count` assets referencing files of their own and returns them in creation order.
    @discardableResult
    func makeAssets(_ count: Int) throws -> [Asset] {
        var placeholders: [String] = []
        try library.performChangesAndWait(author: "tests") {
            for index in 0..<count {
                let file = directory.file("media/\(UUID().uuidString).jpg", seed: UInt64(index) &+ 7, size: 64)
                let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: file, options: AssetCreationOptions(storage: .referenced))
                placeholders.append(request.placeholderForCreatedAsset!.localIdentifier)
            }
        }
        return Array(try library.fetchAssets(withLocalIdentifiers: placeholders))
    }
}
