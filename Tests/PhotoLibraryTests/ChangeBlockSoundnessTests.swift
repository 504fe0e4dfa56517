import Foundation
import GRDB
import LibraryTestSupport
import PostgresTestSupport
import Synchronization
import Testing
@testable import PhotoLibrary

/// A change request belongs to its block: used anywhere else — kept after the block, or from a task started
/// inside it — it never reaches the database, and the misuse is reported as
/// ``PhotoLibraryError/notInChangeBlock``: the block it happens in throws it, or, when no block is left to
/// fail, the process traps naming it (PhotoKit raises an exception there).
@Suite struct ChangeBlockSoundnessTests {
    /// A library whose statements can be logged: on PostgreSQL its database logs every statement it receives.
    static func library(_ paths: StoragePaths) throws -> TestLibrary {
        try TestLibrary(paths: paths, databaseSettings: ["log_statement": "all"])
    }

    /// What reached a library's database from now on: each statement and whether a transaction was open.
    ///
    /// On SQLite, everything the writer connection executes, through SQLite's tracer. On PostgreSQL, every
    /// statement the database received from any connection, through the server's log
    /// (``PostgresStatementLog``) — except the commit listener's session, which only `LISTEN`s and checks
    /// its connection with `SELECT 1`, outside any transaction by design (known by its `LISTEN`, which may
    /// come before this log starts).
    final class StatementLog: Sendable {
        private let traced = Mutex<[(sql: String, inTransaction: Bool)]>([])
        private let server: PostgresStatementLog?
        /// The database's whole log, for the listener's session.
        private let wholeServerLog: PostgresStatementLog?

        init(_ test: TestLibrary) throws {
            if let database = test.postgres {
                let cluster = try PostgresCluster.shared()
                server = try PostgresStatementLog(cluster: cluster, database: database)
                wholeServerLog = try PostgresStatementLog(cluster: cluster, database: database, fromTheStart: true)
                return
            }
            (server, wholeServerLog) = (nil, nil)
            test.library.database.writeWithoutTransaction { db in
                db.trace { [self, unowned db] event in
                    if case .statement(let statement) = event {
                        let inTransaction = db.isInsideTransaction
                        self.traced.withLock { $0.append((statement.sql, inTransaction)) }
                    }
                }
            }
        }

        func entries() throws -> [(sql: String, inTransaction: Bool)] {
            guard let server, let wholeServerLog else { return traced.withLock { $0 } }
            let statements = try server.statements()
            let listeners = Set(try wholeServerLog.statements().filter { $0.sql.hasPrefix("LISTEN ") }.map(\.pid))
            return statements.filter { !listeners.contains($0.pid) }.map { ($0.sql, $0.inTransaction) }
        }

        /// The statements logged so far (one read of the log), and those of them outside any transaction.
        func read() throws -> (count: Int, outsideTransactions: [String]) {
            let entries = try entries()
            return (entries.count, entries.filter { !$0.inTransaction && !$0.sql.hasPrefix("BEGIN") }.map(\.sql))
        }
    }

    @Test("A request kept from an earlier block fails the block it is used in, and changes nothing", arguments: StoragePaths.allCases)
    func requestKeptFromAnEarlierBlock(paths: StoragePaths) throws {
        let test = try Self.library(paths)
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
            let log = try StatementLog(test)
            #expect(throws: PhotoLibraryError.notInChangeBlock, "\(name)") {
                try library.performChangesAndWait {
                    _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "legitimate")
                    use()
                }
            }
            let logged = try log.read()
            #expect(logged.count > 0, "the log sees the writer's statements")
            #expect(logged.outsideTransactions.isEmpty, "\(name): \(logged.outsideTransactions)")
        }
        #expect(try library.currentChangeToken == token)
        #expect(try library.fetchAssets(withLocalIdentifiers: [asset.localIdentifier]).first?.isFavorite == false)
        #expect(try library.fetchAssetCollections(with: .album).map(\.localizedTitle) == ["kept"])
    }

    @Test("A request used from a task started inside its block fails the block, which commits nothing", arguments: StoragePaths.allCases)
    func requestUsedFromATaskDuringItsBlock(paths: StoragePaths) async throws {
        let test = try Self.library(paths)
        let library = test.library
        let asset = try test.makeAssets(1)[0]
        let token = try library.currentChangeToken
        let log = try StatementLog(test)
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
        let logged = try log.read()
        #expect(logged.count > 0, "the log sees the writer's statements")
        #expect(logged.outsideTransactions.isEmpty, "\(logged.outsideTransactions)")
    }

    @Test("A read that fails inside a block fails the block with a typed error instead of reading a default", arguments: StoragePaths.allCases)
    func readFailureInsideABlockIsTyped(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
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

    /// The writer process's run of `mode` on a new library: how it ended, what it said, and the library.
    struct WriterRun {
        let status: Int32
        let reason: Process.TerminationReason
        let stderr: String
        let test: TestLibrary
    }

    static func runWriter(_ mode: String, paths: StoragePaths) throws -> WriterRun {
        let test = try TestLibrary(paths: paths)
        let process = Process()
        process.executableURL = CrossProcessTests.writerURL
        process.arguments = [test.library.url.path, mode, "0"]
        if let postgres = test.postgres {
            process.environment = ProcessInfo.processInfo.environment.merging(
                ["LIBRARY_WRITER_POSTGRES": postgres.absoluteString]) { $1 }
        }
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return WriterRun(status: process.terminationStatus, reason: process.terminationReason, stderr: text, test: test)
    }

    @Test(
        "A request used where no block can fail traps, naming notInChangeBlock, and never reaches the database",
        arguments: ["use-after-block", "task-after-block", "request-outside-block"], [StoragePaths.fast, .postgres])
    func noBlockLeftToFail(mode: String, paths: StoragePaths) throws {
        let run = try Self.runWriter(mode, paths: paths)
        #expect(run.reason == .uncaughtSignal, "exit \(run.status): \(run.stderr)")
        #expect(run.stderr.contains("notInChangeBlock"), "\(run.stderr)")
        // What the writer's own block committed is there, and nothing else: the asset was never made a favourite.
        let library = try run.test.openAnother()
        let assets = try library.fetchAssets()
        #expect(assets.count == (mode == "request-outside-block" ? 0 : 1))
        #expect(assets.allSatisfy { !$0.isFavorite })
        #expect(try library.fetchAssetCollections(with: .album).count == 0)
    }
}
