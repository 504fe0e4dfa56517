import Foundation
import GRDB
import LibraryTestSupport
import Synchronization
import Testing
@testable import PhotoLibrary

/// A change request belongs to its block: used anywhere else — kept after the block, or from a task started
/// inside it — it never reaches the database, and the misuse is reported as
/// ``PhotoLibraryError/notInChangeBlock``: the block it happens in throws it, or, when no block is left to
/// fail, the process traps naming it (PhotoKit raises an exception there).
@Suite struct ChangeBlockSoundnessTests {
    /// Everything a library's writer connection executes from now on: the statement and whether a
    /// transaction was open.
    final class StatementLog: Sendable {
        let entries = Mutex<[(sql: String, inTransaction: Bool)]>([])

        init(_ library: PhotoLibrary) {
            library.database.writeWithoutTransaction { db in
                db.trace { [self, unowned db] event in
                    if case .statement(let statement) = event {
                        let inTransaction = db.isInsideTransaction
                        self.entries.withLock { $0.append((statement.sql, inTransaction)) }
                    }
                }
            }
        }

        var count: Int { entries.withLock { $0.count } }
        var outsideTransactions: [String] {
            entries.withLock { $0.filter { !$0.inTransaction && !$0.sql.hasPrefix("BEGIN") }.map(\.sql) }
        }
    }

    @Test("A request kept from an earlier block fails the block it is used in, and changes nothing")
    func requestKeptFromAnEarlierBlock() throws {
        let test = try TestLibrary()
        let library = test.library
        let asset = try test.makeAssets(1)[0]
        var keptAsset: AssetChangeRequest?
        var keptAlbum: AssetCollectionChangeRequest?
        var keptFolder: CollectionListChangeRequest?
        try library.performChangesAndWait {
            keptAsset = AssetChangeRequest(for: asset)
            keptAlbum = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "kept")
            keptFolder = CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "kept")
        }
        let token = try library.currentChangeToken
        let uses: [(String, () -> Void)] = [
            ("set a property", { keptAsset!.isFavorite = true }),
            ("read a property", { _ = keptAsset!.isHidden }),
            ("replace content", { keptAsset!.replaceContent(withFileAt: URL(fileURLWithPath: "/no/such/file")) }),
            ("rename an album", { keptAlbum!.title = "renamed" }),
            ("read an album's title", { _ = keptAlbum!.title }),
            ("add to an album", { keptAlbum!.addAssets([asset]) }),
            ("rename a folder", { keptFolder!.title = "renamed" }),
        ]
        for (name, use) in uses {
            let log = StatementLog(library)
            #expect(throws: PhotoLibraryError.notInChangeBlock, "\(name)") {
                try library.performChangesAndWait {
                    _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "legitimate")
                    use()
                }
            }
            #expect(log.count > 0, "the log sees the writer's statements")
            #expect(log.outsideTransactions.isEmpty, "\(name): \(log.outsideTransactions)")
        }
        #expect(try library.currentChangeToken == token)
        #expect(try library.fetchAssets(withLocalIdentifiers: [asset.localIdentifier]).first?.isFavorite == false)
        #expect(try library.fetchAssetCollections(with: .album).map(\.localizedTitle) == ["kept"])
    }

    @Test("A request used from a task started inside its block fails the block, which commits nothing")
    func requestUsedFromATaskDuringItsBlock() async throws {
        let test = try TestLibrary()
        let library = test.library
        let asset = try test.makeAssets(1)[0]
        let token = try library.currentChangeToken
        let log = StatementLog(library)
        let executor = QueueExecutor()
        await #expect(throws: PhotoLibraryError.notInChangeBlock) {
            try await library.performChanges {
                let request = AssetChangeRequest(for: asset)
                let used = DispatchSemaphore(value: 0)
                Task(executorPreference: executor) {
                    request.isFavorite = true
                    used.signal()
                }
                // The block goes on only once the task has used the request: deterministic, no sleep.
                #expect(used.wait(timeout: .now() + 60) == .success)
            }
        }
        await #expect(throws: PhotoLibraryError.notInChangeBlock) {
            try await library.performChanges {
                let made = DispatchSemaphore(value: 0)
                Task(executorPreference: executor) {
                    // The task inherits the block's task-local session: a creation here is a misuse too.
                    _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "from a task")
                    made.signal()
                }
                #expect(made.wait(timeout: .now() + 60) == .success)
            }
        }
        #expect(try library.currentChangeToken == token)
        #expect(try library.fetchAssets(withLocalIdentifiers: [asset.localIdentifier]).first?.isFavorite == false)
        #expect(try library.fetchAssetCollections(with: .album).count == 0)
        #expect(log.outsideTransactions.isEmpty, "\(log.outsideTransactions)")
    }

    @Test("A read that fails inside a block fails the block with a typed error instead of reading a default")
    func readFailureInsideABlockIsTyped() throws {
        let test = try TestLibrary()
        let library = test.library
        let asset = try test.makeAssets(1)[0]
        // A request's getter reads the row; make that read fail with an SQLite error inside the block.
        #expect(throws: PhotoLibraryError.self) {
            try library.performChangesAndWait {
                let request = AssetChangeRequest(for: asset)
                try ChangeSession.current!.db.execute(sql: "ALTER TABLE asset RENAME TO asset_gone")
                #expect(request.isFavorite == false)  // a default, but the block must fail
            }
        }
        #expect(throws: PhotoLibraryError.self) {
            try library.performChangesAndWait {
                let album = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "t")
                try ChangeSession.current!.db.execute(sql: "ALTER TABLE asset_collection RENAME TO gone")
                #expect(album.title == "")
            }
        }
        #expect(try library.fetchAssets().count == 1)
        #expect(try library.fetchAssetCollections(with: .album).count == 0)
    }

    // MARK: No block left to fail: the process traps (a subprocess)

    static func runWriter(_ mode: String) throws -> (status: Int32, reason: Process.TerminationReason, stderr: String, library: URL) {
        let directory = TemporaryDirectory()
        let libraryURL = directory.url.appending(path: "Library.photosync")
        _ = try PhotoLibrary(url: libraryURL)
        let process = Process()
        process.executableURL = CrossProcessTests.writerURL
        process.arguments = [libraryURL.path, mode, "0"]
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        // Keep the directory alive until the caller has looked at the library.
        let kept = directory.url.deletingLastPathComponent().appending(path: "kept-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: directory.url, to: kept)
        return (process.terminationStatus, process.terminationReason, text, kept.appending(path: "Library.photosync"))
    }

    @Test(
        "A request used where no block can fail traps, naming notInChangeBlock, and never reaches the database",
        arguments: ["use-after-block", "task-after-block", "request-outside-block"])
    func noBlockLeftToFail(mode: String) throws {
        let run = try Self.runWriter(mode)
        defer { try? FileManager.default.removeItem(at: run.library.deletingLastPathComponent()) }
        #expect(run.reason == .uncaughtSignal, "exit \(run.status): \(run.stderr)")
        #expect(run.stderr.contains("notInChangeBlock"), "\(run.stderr)")
        // What the writer's own block committed is there, and nothing else: the asset was never made a favourite.
        let library = try PhotoLibrary(url: run.library)
        let assets = try library.fetchAssets()
        #expect(assets.count == (mode == "request-outside-block" ? 0 : 1))
        #expect(assets.allSatisfy { !$0.isFavorite })
        #expect(try library.fetchAssetCollections(with: .album).count == 0)
    }
}
