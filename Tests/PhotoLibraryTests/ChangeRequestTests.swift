import ContentHash
import Foundation
import Testing
@testable import PhotoLibrary

@Suite struct ChangeRequestTests {
    @Test(arguments: StoragePaths.allCases) func creatingFromAFileCopiesItIntoContentAddressedOriginals(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let file = test.directory.file("in/IMG_0001.JPG", seed: 42, size: 100_000)
        var identifier = ""
        try test.library.performChangesAndWait {
            let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: file)
            request.isFavorite = true
            request.creationDate = .utc(2024, 5, 3)
            identifier = request.placeholderForCreatedAsset!.localIdentifier
        }
        let asset = try #require(try test.library.fetchAssets(withLocalIdentifiers: [identifier]).firstObject)
        let expected = try ContentHash.ofFile(atPath: file.path).hash.description
        #expect(asset.contentHash == expected)
        #expect(asset.fileSize == 100_000)
        #expect(asset.originalFilename == "IMG_0001.JPG")
        #expect(asset.mediaType == .image)
        #expect(asset.uniformTypeIdentifier == "public.jpeg")
        #expect(asset.isFavorite)
        #expect(asset.storage == .copied)
        let stored = try #require(asset.fileURL(in: test.library))
        #expect(stored.path.hasSuffix("originals/\(expected.prefix(2))/\(expected)"))
        #expect(try Data(contentsOf: stored) == Data(contentsOf: file))
    }

    @Test(arguments: StoragePaths.allCases) func referencedFilesStayInPlace(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let file = test.directory.file("in/clip.mov", seed: 3)
        try test.library.performChangesAndWait {
            _ = AssetChangeRequest.creationRequestForAsset(fromFileAt: file, options: .init(storage: .referenced))
        }
        let asset = try #require(try test.library.fetchAssets().firstObject)
        #expect(asset.storage == .referenced)
        #expect(asset.filePath == file.standardizedFileURL.path)
        #expect(asset.mediaType == .video)
        #expect(try FileManager.default.contentsOfDirectory(atPath: test.library.url.appending(path: "originals").path).filter { !$0.hasPrefix(".") }.isEmpty)
    }

    @Test(arguments: StoragePaths.allCases) func aFailingBlockLeavesNothingBehind(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let before = try test.library.currentChangeToken
        let file = test.directory.file("a.jpg", seed: 1)
        #expect(throws: PhotoLibraryError.objectNotFound(localIdentifier: "nope")) {
            try test.library.performChangesAndWait {
                _ = AssetChangeRequest.creationRequestForAsset(fromFileAt: file)
                _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Half")
                AssetChangeRequest.deleteAssets(withLocalIdentifiers: ["nope"])
            }
        }
        #expect(try test.library.fetchAssets().isEmpty)
        #expect(try test.library.fetchAssetCollections(with: .album).isEmpty)
        #expect(try test.library.fetchMoments().isEmpty)
        #expect(try test.library.currentChangeToken == before)
    }

    @Test(arguments: StoragePaths.allCases) func anErrorThrownByTheBlockRollsBack(paths: StoragePaths) throws {
        struct Oops: Error {}
        let test = try TestLibrary(paths: paths)
        #expect(throws: Oops.self) {
            try test.library.performChangesAndWait {
                _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Half")
                throw Oops()
            }
        }
        #expect(try test.library.fetchAssetCollections(with: .album).isEmpty)
    }

    @Test(arguments: StoragePaths.allCases) func invalidValuesAreTypedErrors(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let asset = try test.makeAssets(1)[0]
        #expect {
            try test.library.performChangesAndWait {
                AssetChangeRequest(for: asset).location = Location(latitude: 123, longitude: 0)
            }
        } throws: { error in
            guard case PhotoLibraryError.invalidValue(property: "location", _) = error else { return false }
            return true
        }
        #expect(try test.library.fetchAssets().first?.location == nil)
    }

    @Test(arguments: StoragePaths.allCases) func unreadableFileFailsTheBlock(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        #expect {
            try test.library.performChangesAndWait {
                _ = AssetChangeRequest.creationRequestForAsset(fromFileAt: URL(fileURLWithPath: "/nonexistent/x.jpg"))
            }
        } throws: { error in
            guard case PhotoLibraryError.fileUnreadable = error else { return false }
            return true
        }
    }

    @Test(arguments: StoragePaths.allCases) func deletingAnAssetRemovesItsUnreferencedOriginal(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let file = test.directory.file("a.jpg", seed: 9)
        try test.library.performChangesAndWait {
            _ = AssetChangeRequest.creationRequestForAsset(fromFileAt: file)
            _ = AssetChangeRequest.creationRequestForAsset(fromFileAt: file)  // same content: stored once
        }
        let assets = Array(try test.library.fetchAssets())
        #expect(assets.count == 2)
        let stored = try #require(assets[0].fileURL(in: test.library))
        try test.library.performChangesAndWait { AssetChangeRequest.deleteAssets([assets[0]]) }
        #expect(FileManager.default.fileExists(atPath: stored.path))
        try test.library.performChangesAndWait { AssetChangeRequest.deleteAssets([assets[1]]) }
        #expect(!FileManager.default.fileExists(atPath: stored.path))
    }

    @Test(arguments: StoragePaths.allCases) func albumMembershipOperationsKeepTheOrder(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let a = try test.makeAssets(6)
        var albumID = ""
        try test.library.performChangesAndWait {
            let request = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
            request.addAssets([a[0], a[1], a[2]])
            albumID = request.placeholderForCreatedAssetCollection!.localIdentifier
        }
        let album = try #require(try test.library.fetchAssetCollections(with: .album).firstObject)
        #expect(album.localIdentifier == albumID)
        #expect(album.estimatedAssetCount == 3)
        func members() throws -> [String] { try test.library.fetchAssets(in: album).map(\.localIdentifier) }
        #expect(try members() == [a[0], a[1], a[2]].map(\.localIdentifier))

        try test.library.performChangesAndWait {
            AssetCollectionChangeRequest(for: album).insertAssets([a[3], a[4]], at: IndexSet([0, 2]))
        }
        #expect(try members() == [a[3], a[0], a[4], a[1], a[2]].map(\.localIdentifier))
        try test.library.performChangesAndWait {
            AssetCollectionChangeRequest(for: album).moveAssets(at: IndexSet([0, 1]), to: 3)
        }
        #expect(try members() == [a[4], a[1], a[2], a[3], a[0]].map(\.localIdentifier))
        try test.library.performChangesAndWait {
            AssetCollectionChangeRequest(for: album).replaceAssets(at: IndexSet([1]), withAssets: [a[5]])
        }
        #expect(try members() == [a[4], a[5], a[2], a[3], a[0]].map(\.localIdentifier))
        try test.library.performChangesAndWait {
            AssetCollectionChangeRequest(for: album).removeAssets(at: IndexSet([0, 4]))
            AssetCollectionChangeRequest(for: album).removeAssets([a[2]])
        }
        #expect(try members() == [a[5], a[3]].map(\.localIdentifier))
        try test.library.performChangesAndWait { AssetChangeRequest.deleteAssets([a[5]]) }
        #expect(try members() == [a[3]].map(\.localIdentifier))
        #expect(try test.library.fetchAssetCollections(with: .album).firstObject?.estimatedAssetCount == 1)
    }

    @Test(arguments: StoragePaths.allCases) func placeholdersCanBeAddedInTheSameBlock(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let file = test.directory.file("x.png", seed: 5)
        try test.library.performChangesAndWait {
            let asset = AssetChangeRequest.creationRequestForAsset(fromFileAt: file)
            let album = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "New")
            album.addAssets([asset.placeholderForCreatedAsset!])
            let folder = CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Folder")
            folder.addChildCollections([album.placeholderForCreatedAssetCollection!])
        }
        let album = try #require(try test.library.fetchAssetCollections(with: .album).firstObject)
        #expect(try test.library.fetchAssets(in: album).count == 1)
        #expect(try test.library.fetchCollectionLists(containing: album).firstObject?.localizedTitle == "Folder")
    }

    @Test(arguments: StoragePaths.allCases) func membershipErrorsAreTypedAndAtomic(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let a = try test.makeAssets(2)
        try test.library.performChangesAndWait {
            AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "A").addAssets([a[0]])
        }
        let album = try #require(try test.library.fetchAssetCollections(with: .album).firstObject)
        #expect(throws: PhotoLibraryError.duplicateMembership(assetIdentifier: a[0].localIdentifier, collectionIdentifier: album.localIdentifier)) {
            try test.library.performChangesAndWait {
                AssetCollectionChangeRequest(for: album).addAssets([a[1]])
                AssetCollectionChangeRequest(for: album).addAssets([a[0]])
            }
        }
        #expect(throws: PhotoLibraryError.indexOutOfRange(index: 5, count: 1)) {
            try test.library.performChangesAndWait {
                AssetCollectionChangeRequest(for: album).insertAssets([a[1]], at: IndexSet([5]))
            }
        }
        #expect(try test.library.fetchAssets(in: album).map(\.localIdentifier) == [a[0].localIdentifier])
        let smart = try #require(try test.library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).firstObject)
        #expect {
            try test.library.performChangesAndWait { AssetCollectionChangeRequest(for: smart).addAssets([a[1]]) }
        } throws: { error in
            guard case PhotoLibraryError.invalidRequest = error else { return false }
            return true
        }
    }

    @Test(arguments: StoragePaths.allCases) func foldersNestAndRefuseCycles(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.library.performChangesAndWait {
            let outer = CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Outer")
            let inner = CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Inner")
            let album = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Album")
            inner.addChildCollections([album.placeholderForCreatedAssetCollection!])
            outer.addChildCollections([inner.placeholderForCreatedCollectionList!])
        }
        let top = try test.library.fetchTopLevelUserCollections()
        #expect(top.map(\.localizedTitle) == ["Outer"])
        guard case .collectionList(let outer) = top[0] else { Issue.record("expected a folder"); return }
        let children = try test.library.fetchCollections(in: outer)
        guard case .collectionList(let inner) = children[0] else { Issue.record("expected a folder"); return }
        #expect(try test.library.fetchCollections(in: inner).map(\.localizedTitle) == ["Album"])

        #expect(throws: PhotoLibraryError.cyclicCollectionList(localIdentifier: outer.localIdentifier, parentIdentifier: inner.localIdentifier)) {
            try test.library.performChangesAndWait { CollectionListChangeRequest(for: inner).addChildCollections([outer]) }
        }
        #expect {
            try test.library.performChangesAndWait { CollectionListChangeRequest(for: outer).addChildCollections([outer]) }
        } throws: { error in
            guard case PhotoLibraryError.cyclicCollectionList = error else { return false }
            return true
        }
        // Moving the album to the top level and deleting the folders recursively.
        try test.library.performChangesAndWait {
            CollectionListChangeRequest.deleteCollectionLists([outer])
        }
        #expect(try test.library.fetchTopLevelUserCollections().isEmpty)
        #expect(try test.library.fetchAssetCollections(with: .album).isEmpty)
    }

    @Test(arguments: StoragePaths.allCases) func renamingAlbumsAndFolders(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.library.performChangesAndWait {
            _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Old")
            _ = CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Old folder")
        }
        let album = try #require(try test.library.fetchAssetCollections(with: .album).firstObject)
        let folder = try #require(try test.library.fetchTopLevelUserCollections().first { $0.localizedTitle == "Old folder" })
        guard case .collectionList(let list) = folder else { Issue.record("expected a folder"); return }
        try test.library.performChangesAndWait {
            AssetCollectionChangeRequest(for: album).title = "New"
            CollectionListChangeRequest(for: list).title = "New folder"
        }
        #expect(try Set(test.library.fetchTopLevelUserCollections().map(\.localizedTitle)) == ["New", "New folder"])
        #expect(try test.library.fetchAssetCollections(with: .album).firstObject?.localIdentifier == album.localIdentifier)
    }

    @Test(arguments: StoragePaths.allCases) func asyncPerformChangesCommits(paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        try await test.library.performChanges(author: "async") {
            _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Async")
        }
        #expect(try test.library.fetchAssetCollections(with: .album).count == 1)
    }

    @Test("performChanges returns what its block returns, once committed; a failing block returns nothing", arguments: StoragePaths.allCases)
    func theBlocksValueIsTheCallsResult(paths: StoragePaths) async throws {
        let test = try TestLibrary(paths: paths)
        let library = test.library
        let id = try await library.performChanges {
            let album = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Returned")
            return album.placeholderForCreatedAssetCollection!.localIdentifier
        }
        #expect(try library.fetchAssetCollections(with: .album).map(\.localIdentifier) == [id])
        // A block that is a single expression keeps returning nothing (see performChanges): `return` passes it on.
        let ids = try library.performChangesAndWait {
            return (0..<3).map { AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "\($0)").placeholderForCreatedAssetCollection!.localIdentifier }
        }
        #expect(try library.fetchAssetCollections(with: .album).map(\.localIdentifier) == [id] + ids)
        await #expect(throws: PhotoLibraryError.self) {
            _ = try await library.performChanges { () -> String in
                AssetChangeRequest.deleteAssets(withLocalIdentifiers: ["no-such-asset"])
                return "never returned"
            }
        }
    }
}
