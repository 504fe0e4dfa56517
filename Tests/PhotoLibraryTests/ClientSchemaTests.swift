import Foundation
import GRDB
import Testing
@testable import PhotoLibrary

/// The client-extension API: a client's own tables as a versioned series of migrations
/// (``LibraryClientSchema``), written in a change block's transaction (``LibraryTransaction``).
@Suite("Clients' tables")
struct ClientSchemaTests {
    /// A client keeping tags of assets; migration 1 also counts, in a row of its own, how often it ran.
    static let v1 = ClientMigration(version: 1, name: "tags", sql: """
        CREATE TABLE test_tag (assetId INTEGER NOT NULL REFERENCES asset(id) ON DELETE CASCADE, tag TEXT NOT NULL,
            PRIMARY KEY (assetId, tag)) WITHOUT ROWID;
        CREATE TABLE test_runs (id INTEGER PRIMARY KEY, migration INTEGER NOT NULL);
        INSERT INTO test_runs (migration) VALUES (1);
        """)
    static let v2 = ClientMigration(version: 2, name: "notes", sql: """
        CREATE TABLE test_note (text TEXT NOT NULL);
        INSERT INTO test_runs (migration) VALUES (2);
        """)
    static let schema1 = LibraryClientSchema(name: "tests.tags", migrations: [v1])
    static let schema2 = LibraryClientSchema(name: "tests.tags", migrations: [v2, v1])

    static func runs(_ library: PhotoLibrary) throws -> [Int] {
        try library.readClientState { db in try db.fetchValues(Int.self, sql: "SELECT migration FROM test_runs ORDER BY id") }
    }

    static func tags(_ library: PhotoLibrary) throws -> [String] {
        try library.readClientState { db in try db.fetchValues(String.self, sql: "SELECT tag FROM test_tag ORDER BY tag") }
    }

    static func tableExists(_ library: PhotoLibrary, _ table: String) throws -> Bool {
        try library.readClientState { db in
            try db.fetchValue(
                Bool.self, sql: "SELECT EXISTS (SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?)", arguments: [table]
            ) ?? false
        }
    }

    @Test("A series is applied once: attaching again — same handle, another handle, after reopening — applies nothing", arguments: StoragePaths.sqlite)
    func appliedOnce(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        #expect(try test.library.clientSchemaVersion(of: "tests.tags") == 0)
        try test.library.attach(Self.schema1)
        try test.library.attach(Self.schema1)
        try PhotoLibrary(url: test.library.url, options: paths.options()).attach(Self.schema1)
        #expect(try Self.runs(test.library) == [1])
        #expect(try test.library.clientSchemaVersion(of: "tests.tags") == 1)
        // The library's own history doesn't see it.
        #expect(try test.library.historyStatus().transactionCount == 0)
    }

    @Test("A newer series on a library an older one migrated applies only its new migrations", arguments: StoragePaths.sqlite)
    func migratesForward(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.library.attach(Self.schema1)
        #expect(try !Self.tableExists(test.library, "test_note"))
        let reopened = try PhotoLibrary(url: test.library.url, options: paths.options())
        try reopened.attach(Self.schema2)
        #expect(try Self.runs(reopened) == [1, 2])
        #expect(try Self.tableExists(reopened, "test_note"))
        #expect(try reopened.clientSchemaVersion(of: "tests.tags") == 2)
        // A new library gets the whole series at once, in version order.
        let fresh = try TestLibrary(paths: paths)
        try fresh.library.attach(Self.schema2)
        #expect(try Self.runs(fresh.library) == [1, 2])
    }

    @Test("A library a newer series migrated refuses the older series with a typed error, and is left as it was", arguments: StoragePaths.sqlite)
    func newerVersionIsAnError(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.library.attach(Self.schema2)
        let older = try PhotoLibrary(url: test.library.url, options: paths.options())
        #expect(throws: PhotoLibraryError.clientSchemaTooNew(client: "tests.tags", found: 2, supported: 1)) {
            try older.attach(Self.schema1)
        }
        #expect(try older.clientSchemaVersion(of: "tests.tags") == 2)
        #expect(try Self.runs(older) == [1, 2])
        // Another client is not concerned.
        try older.attach(LibraryClientSchema(name: "tests.other", migrations: [ClientMigration(version: 1, name: "x", sql: "CREATE TABLE other_x (y)")]))
    }

    @Test("A migration that fails applies nothing of the series; malformed series are refused", arguments: StoragePaths.sqlite)
    func failuresApplyNothing(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let broken = LibraryClientSchema(name: "tests.tags", migrations: [Self.v1, ClientMigration(version: 2, name: "bad", sql: "CREATE TABLE test_note (; ")])
        #expect(throws: PhotoLibraryError.self) { try test.library.attach(broken) }
        #expect(try test.library.clientSchemaVersion(of: "tests.tags") == 0)
        #expect(try !Self.tableExists(test.library, "test_tag"))
        for malformed in [
            LibraryClientSchema(name: "", migrations: [Self.v1]),
            LibraryClientSchema(name: "tests.x", migrations: [Self.v1, Self.v1]),
            LibraryClientSchema(name: "tests.x", migrations: [ClientMigration(version: 0, name: "zero", sql: "")]),
            LibraryClientSchema(name: "tests.x", migrations: [Self.v1], adoption: .init(version: 3, tables: ["test_tag"])),
        ] {
            #expect(throws: PhotoLibraryError.self) { try test.library.attach(malformed) }
        }
    }

    @Test("Tables an earlier build made are adopted with their rows; a partial set is a conflict that changes nothing", arguments: StoragePaths.sqlite)
    func adoption(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        // What an earlier build left: the tables of migration 1, with rows, and no record of the client.
        let asset = try test.makeAssets(1)[0]
        try test.library.database.write { db in
            try db.execute(sql: Self.v1.sql)
            try db.execute(sql: "INSERT INTO test_tag SELECT id, 'kept' FROM asset")
        }
        let adopting = LibraryClientSchema(
            name: "tests.tags", migrations: [Self.v1, Self.v2], adoption: .init(version: 1, tables: ["test_tag", "test_runs"]))
        try test.library.attach(adopting)
        #expect(try Self.tags(test.library) == ["kept"])
        #expect(try Self.runs(test.library) == [1, 2])  // Migration 1 did not run again; 2 did.
        #expect(try test.library.clientSchemaVersion(of: "tests.tags") == 2)
        _ = asset

        let partial = try TestLibrary(paths: paths)
        try partial.library.database.write { db in try db.execute(sql: "CREATE TABLE test_tag (assetId, tag)") }
        do {
            try partial.library.attach(adopting)
            Issue.record("a library with part of the adopted tables was attached")
        } catch {
            guard case .clientSchemaConflict(let client, _) = error else { throw error }
            #expect(client == "tests.tags")
        }
        #expect(try partial.library.clientSchemaVersion(of: "tests.tags") == 0)
        #expect(try !Self.tableExists(partial.library, "test_runs"))
        // Without any of the tables, the series runs from the start.
        let fresh = try TestLibrary(paths: paths)
        try fresh.library.attach(adopting)
        #expect(try Self.runs(fresh.library) == [1, 2])
    }

    @Test("A client's row refers to an asset created in the same block: both commit in one transaction", arguments: StoragePaths.sqlite)
    func writesInTheSameTransaction(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.library.attach(Self.schema1)
        let file = test.directory.file("a.jpg", seed: 1, size: 64)
        let identifier: String = try test.library.performChangesAndWait(author: "tests") {
            let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: file, options: AssetCreationOptions(storage: .referenced))
            let placeholder = request.placeholderForCreatedAsset!
            let transaction = LibraryTransaction.current
            let id = transaction.assetRowID(of: placeholder)
            // The asset is not in the database yet: the queued write runs once it is (its foreign key holds).
            transaction.enqueue { db in try db.execute(sql: "INSERT INTO test_tag VALUES (?, 'new')", arguments: [id]) }
            return placeholder.localIdentifier
        }
        let rows = try test.library.readClientState { db in
            var rows: [[String]] = []
            try db.forEachRow(
                sql: "SELECT a.localIdentifier, t.tag FROM test_tag t JOIN asset a ON a.id = t.assetId", arguments: [], cached: false
            ) { columns in
                rows.append([columns.text(0), columns.text(1)])
                return true
            }
            return rows
        }
        #expect(rows == [[identifier, "new"]])
        // One transaction in the history: the asset's (the client's row is not journaled).
        #expect(try test.library.historyStatus().transactionCount == 1)
    }

    @Test("A failed block rolls back the client's writes, immediate and queued; a failing client write rolls back the block", arguments: StoragePaths.sqlite)
    func rollback(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.library.attach(Self.schema1)
        let assets = try test.makeAssets(2)
        let asset = assets[0]
        try test.library.performChangesAndWait(author: "tests") { AssetChangeRequest.deleteAssets([assets[1]]) }
        // The block fails after the client wrote: by a request's error, by the block throwing.
        #expect(throws: PhotoLibraryError.self) {
            try test.library.performChangesAndWait(author: "tests") {
                let transaction = LibraryTransaction.current
                transaction.perform { db in try db.execute(sql: "INSERT INTO test_tag SELECT id, 'now' FROM asset") }
                transaction.enqueue { db in try db.execute(sql: "INSERT INTO test_tag SELECT id, 'queued' FROM asset") }
                AssetChangeRequest(for: asset).isFavorite = true
                AssetChangeRequest(for: assets[1]).isHidden = true  // Deleted: fails the block.
            }
        }
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try test.library.performChangesAndWait(author: "tests") {
                LibraryTransaction.current.perform { db in try db.execute(sql: "INSERT INTO test_tag SELECT id, 'now' FROM asset") }
                throw Stop()
            }
        }
        #expect(try Self.tags(test.library).isEmpty)
        // The client's own queued write fails (its foreign key): the asset edit of the block rolls back too.
        #expect(throws: PhotoLibraryError.self) {
            try test.library.performChangesAndWait(author: "tests") {
                AssetChangeRequest(for: asset).isFavorite = true
                LibraryTransaction.current.enqueue { db in try db.execute(sql: "INSERT INTO test_tag VALUES (999999, 'dangling')") }
            }
        }
        // A client's own error fails the block the same way.
        #expect(throws: PhotoLibraryError.invalidValue(property: "tag", reason: "empty")) {
            try test.library.performChangesAndWait(author: "tests") {
                AssetChangeRequest(for: asset).isFavorite = true
                LibraryTransaction.current.fail(.invalidValue(property: "tag", reason: "empty"))
            }
        }
        #expect(try Self.tags(test.library).isEmpty)
        #expect(try test.library.fetchAssets(withLocalIdentifiers: [asset.localIdentifier]).firstObject?.isFavorite == false)
        #expect(try test.library.historyStatus().transactionCount == 2)
    }

    @Test("Attaching inside a block commits with the block, or rolls back with it", arguments: StoragePaths.sqlite)
    func attachInsideABlock(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try test.library.performChangesAndWait(author: "tests") {
                LibraryTransaction.current.attach(Self.schema1)
                throw Stop()
            }
        }
        #expect(try test.library.clientSchemaVersion(of: "tests.tags") == 0)
        #expect(try !Self.tableExists(test.library, "test_tag"))
        try test.library.performChangesAndWait(author: "tests") { LibraryTransaction.current.attach(Self.schema1) }
        #expect(try test.library.clientSchemaVersion(of: "tests.tags") == 1)
        #expect(try Self.runs(test.library) == [1])
    }

    @Test("A block that only writes client tables keeps the token; clientStateDidChange wakes a waiter in another handle", arguments: StoragePaths.sqlite)
    func clientStateWakesWaiters(paths: StoragePaths) async throws {
        let options: PhotoLibrary.Options = {
            var options = PhotoLibrary.Options()
            options.commitPollInterval = nil  // Only notifications wake waiters: the test fails if none comes.
            return options
        }()
        let test = try TestLibrary(options: paths.options(options))
        try test.library.attach(Self.schema1)
        try test.makeAssets(1)
        let token = try test.library.historyStatus().currentToken
        let library = test.library
        let other = try PhotoLibrary(url: library.url, options: paths.options(options))
        // Its own deadline is far: it re-checks once at the deadline, which must not be what wakes it.
        let waiter = Task {
            try await library.waitForClientState(timeout: .seconds(600)) { db in
                try db.fetchValue(Bool.self, sql: "SELECT EXISTS (SELECT 1 FROM test_tag WHERE tag = 'signal')") ?? false
            }
        }
        // The waiter checked once and suspended: the write must wake it, not its first check.
        #expect(await waitUntil { library.notifier.waiterCount == 1 }, "the waiter never suspended")
        try await other.performChanges(author: "tests") {
            let transaction = LibraryTransaction.current
            transaction.enqueue { db in try db.execute(sql: "INSERT INTO test_tag SELECT id, 'signal' FROM asset") }
            transaction.clientStateDidChange()
        }
        let returned = await waitUntil { library.notifier.waiterCount == 0 }
        waiter.cancel()  // A waiter cancelled before it saw the row returns false.
        #expect(returned)
        #expect(try await waiter.value)
        #expect(try library.historyStatus().currentToken == token)
        #expect(try await !library.waitForClientState(timeout: .milliseconds(50)) { _ in false })
    }

    @Test("The path key: relative to the innermost registered root; a root counts until the client that registered it removes it", arguments: StoragePaths.sqlite)
    func assetPathRoots(sqlPaths: StoragePaths) throws {
        let test = try TestLibrary(paths: sqlPaths)
        let root = test.directory.url.appending(path: "root").path
        let files = ["a/x.jpg", "inner/y.jpg"].enumerated().map { test.directory.file("root/\($1)", seed: UInt64($0), size: 64) }
        try test.library.performChangesAndWait(author: "tests") {
            for file in files {
                _ = AssetChangeRequest.creationRequestForAsset(fromFileAt: file, options: AssetCreationOptions(storage: .referenced))
            }
            LibraryTransaction.current.addAssetPathRoot(root + "/", client: "tests.one")
            LibraryTransaction.current.addAssetPathRoot(root + "/inner", client: "tests.two")
        }
        func paths(_ predicate: String) throws -> [String] {
            try test.library.fetchAssets(options: FetchOptions(predicate: FetchFilter(format: predicate))).map { $0.originalFilename }.sorted()
        }
        #expect(try paths("path == 'a/x.jpg'") == ["x.jpg"])
        #expect(try paths("path == 'y.jpg'") == ["y.jpg"])
        #expect(try paths("path BEGINSWITH 'inner/'") == [])
        try test.library.performChangesAndWait(author: "tests") {
            LibraryTransaction.current.removeAssetPathRoot(root + "/inner", client: "tests.one")  // Not its root.
        }
        #expect(try paths("path == 'y.jpg'") == ["y.jpg"])
        try test.library.performChangesAndWait(author: "tests") {
            LibraryTransaction.current.removeAssetPathRoot(root + "/inner", client: "tests.two")
        }
        #expect(try paths("path == 'inner/y.jpg'") == ["y.jpg"])
        #expect(try paths("path == nil") == [])
    }

    @Test("A transaction kept after its block writes nothing: every use fails the block it is used in", arguments: StoragePaths.sqlite)
    func keptTransactionFailsTheBlockItIsUsedIn(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.library.attach(Self.schema1)
        let asset = try test.makeAssets(1)[0]
        var kept: LibraryTransaction?
        try test.library.performChangesAndWait(author: "tests") { kept = LibraryTransaction.current }
        let uses: [(String, () -> Void)] = [
            ("perform", { kept!.perform { db in try db.execute(sql: "INSERT INTO test_tag SELECT id, 'kept' FROM asset") } }),
            ("enqueue", { kept!.enqueue { db in try db.execute(sql: "INSERT INTO test_tag SELECT id, 'kept' FROM asset") } }),
            ("read", { _ = kept!.read(default: 0) { db in try Int.fetchOne(db, sql: "SELECT 1") } }),
            ("row id", { _ = kept!.assetRowID(of: asset) }),
            ("client state", { kept!.clientStateDidChange() }),
            ("path root", { kept!.addAssetPathRoot("/kept", client: "tests.tags") }),
            ("attach", { kept!.attach(LibraryClientSchema(name: "tests.kept", migrations: [Self.v2])) }),
        ]
        for (name, use) in uses {
            #expect(throws: PhotoLibraryError.notInChangeBlock, "\(name)") {
                try test.library.performChangesAndWait(author: "tests") {
                    LibraryTransaction.current.enqueue { db in try db.execute(sql: "INSERT INTO test_tag SELECT id, 'legitimate' FROM asset") }
                    use()
                }
            }
        }
        #expect(try Self.tags(test.library).isEmpty)
        #expect(try test.library.clientSchemaVersion(of: "tests.kept") == 0)
        #expect(try test.library.readClientState { db in try db.fetchValue(Int.self, sql: "SELECT count(*) FROM asset_path_root") } == 0)
    }
}
