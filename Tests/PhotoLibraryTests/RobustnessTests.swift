import Foundation
import GRDB
import LibraryTestSupport
import Testing
@testable import PhotoLibrary

@Suite struct RobustnessTests {
    @Test(arguments: StoragePaths.sqlite) func aFullDiskFailsTheCommitAndLeavesTheLibraryAsItWas(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.makeAssets(3)
        let before = try test.library.fetchCurrentState()
        // SQLite's own "database or disk is full" condition, on the writer connection.
        try test.library.database.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count")!
            try db.execute(sql: "PRAGMA max_page_count = \(pages)")
        }
        #expect(throws: PhotoLibraryError.notEnoughSpace) {
            try test.library.performChangesAndWait {
                for index in 0..<2_000 {
                    let hash = String(format: "%032x", index)
                    _ = AssetChangeRequest.creationRequestForAsset(
                        fromFileAt: URL(fileURLWithPath: "/virtual/\(index).jpg"),
                        options: .init(storage: .referenced, contentHash: hash, fileSize: 1))
                }
            }
        }
        let after = try test.library.fetchCurrentState()
        #expect(after.changeToken == before.changeToken)
        #expect(after.assetIdentifiers == before.assetIdentifiers)
        #expect(after.assetCollectionIdentifiers == before.assetCollectionIdentifiers)
    }

    @Test(arguments: StoragePaths.sqlite) func readOnlyStorageFailsTheCommitAndLeavesTheLibraryAsItWas(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.makeAssets(2)
        let before = try test.library.fetchCurrentState()
        // SQLite's own read-only condition on the writer connection (permissions can't deny root).
        try test.library.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = 1") }
        #expect {
            try test.library.performChangesAndWait {
                _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "nope")
            }
        } throws: { error in
            guard case PhotoLibraryError.storageUnavailable = error else { return false }
            return true
        }
        try test.library.database.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA query_only = 0") }
        #expect(try test.library.fetchCurrentState().assetCollectionIdentifiers == before.assetCollectionIdentifiers)
        #expect(try test.library.currentChangeToken == before.changeToken)
    }

    @Test(arguments: StoragePaths.allCases) func requestsForDeletedObjectsFailTheBlock(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let asset = try test.makeAssets(1)[0]
        try test.library.performChangesAndWait { AssetChangeRequest.deleteAssets([asset]) }
        #expect(throws: PhotoLibraryError.objectNotFound(localIdentifier: asset.localIdentifier)) {
            try test.library.performChangesAndWait { AssetChangeRequest(for: asset).isFavorite = true }
        }
    }

    @Test(arguments: StoragePaths.allCases) func transientCollectionsAreNeverStored(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(3)
        let transient = AssetCollection.transientAssetCollection(with: [assets[2], assets[0]], title: "Picked")
        #expect(transient.isTransient)
        #expect(try test.library.fetchAssets(in: transient).map(\.localIdentifier) == [assets[2], assets[0]].map(\.localIdentifier))
        let fromResult = AssetCollection.transientAssetCollection(withAssetFetchResult: try test.library.fetchAssets(), title: nil)
        #expect(fromResult.estimatedAssetCount == 3)
        let list = CollectionList.transientCollectionList(with: [transient], title: "List")
        #expect(list.isTransient)
        #expect(try test.library.fetchAssetCollections(with: .album).isEmpty)
    }

    @Test(arguments: StoragePaths.allCases) func concurrentWritersInTwoProcessesBothLand(paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        let pipe = Pipe()
        let writer = try CrossProcessTests.startWriter([test.library.url.path, "commit", "40"], output: pipe, postgres: test.postgres)
        for index in 0..<40 {
            try test.library.performChangesAndWait(author: "tests") {
                _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "from tests \(index)")
            }
        }
        #expect(await writer.exitStatus() == 0)
        #expect(try test.library.fetchAssetCollections(with: .album).count == 80)
        let authors = try test.library.fetchPersistentChanges(since: ChangeToken(libraryIdentity: test.library.identity, sequence: 0, stamp: 0)).map(\.author)
        #expect(authors.filter { $0 == "writer" }.count == 40)
        #expect(authors.filter { $0 == "tests" }.count == 40)
    }

    @Test(arguments: StoragePaths.allCases) func concurrentReadersDuringAWrite(paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        try test.makeAssets(50)
        let library = test.library
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<4 {
                group.addTask { try library.fetchAssets().count }
            }
            group.addTask {
                try await library.performChanges { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "w") }
                return 50
            }
            for try await count in group { #expect(count == 50) }
        }
    }
}
