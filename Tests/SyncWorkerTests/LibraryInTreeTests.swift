import Foundation
import PhotoLibrary
import Testing

@testable import SyncWorker

extension Sandbox {
    /// A folder of photos holding the mirror's own library (`photosync --library ~/Pictures/Library.photosync
    /// scan ~/Pictures`); the tests put others there.
    static func picturesWithLibrary(engine: LibraryEngine) throws -> Sandbox {
        try Sandbox(engine: engine, rootName: "Pictures", libraryInside: true)
    }

    /// Imports photos into `library` (copied into its `originals/`, which are then media files in the tree).
    static func importPhotos(_ variants: [Int], into library: PhotoLibrary, from scratch: URL) throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        try library.performChangesAndWait(author: "import") {
            for variant in variants {
                let file = scratch.appending(path: "import-\(variant).jpg")
                try! Data(Media.jpeg(variant)).write(to: file)
                _ = AssetChangeRequest.creationRequestForAsset(fromFileAt: file)
            }
        }
    }

    /// Assets referencing files under the root, by relative path.
    func mirroredPaths() throws -> Set<String> {
        let all = try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
        return Set(all.compactMap { $0.filePath.map { String($0.dropFirst(root.path.count + 1)) } })
    }

    /// Every user album's and folder's title.
    func collectionTitles() throws -> [String] {
        var titles = try library.fetchAssetCollections(with: .album).compactMap(\.localizedTitle)
        func visit(_ collections: FetchResult<PhotoCollection>) throws {
            for case .collectionList(let folder) in collections {
                titles.append("folder " + (folder.localizedTitle ?? "?"))
                try visit(try library.fetchCollections(in: folder))
            }
        }
        try visit(try library.fetchTopLevelUserCollections())
        return titles.sorted()
    }
}

@Suite("Sync worker: photosync libraries in a mirrored tree")
struct LibraryInTreeTests {
    @Test("A library inside the folder it mirrors, and other photosync libraries there (open or closed), are left out: nothing of them is imported, no album", arguments: LibraryEngine.both)
    func librariesAreLeftOut(engine: LibraryEngine) async throws {
        let pictures = try Sandbox.picturesWithLibrary(engine: engine)
        let scratch = pictures.base.appending(path: "scratch")
        // The mirror's own library holds imported photos: media files in its originals/.
        try Sandbox.importPhotos([10, 11], into: pictures.library, from: scratch)
        // A closed library (checkpointed) and one open in this process (its mark only in the log).
        do {
            let closed = try PhotoLibrary(url: pictures.root.appending(path: "Archive/Old.photosync"))
            try Sandbox.importPhotos([12], into: closed, from: scratch)
        }
        let open = try PhotoLibrary(url: pictures.root.appending(path: "Trip/Other.photosync"))
        try Sandbox.importPhotos([13], into: open, from: scratch)
        // The photos.
        pictures.write("a.jpg", Media.jpeg(1))
        pictures.write("Trip/b.jpg", Media.jpeg(2))

        let summary = try await FolderMirror(library: pictures.library, root: pictures.root).scan()
        #expect(summary.inserted == 2)
        #expect(try pictures.mirroredPaths() == ["a.jpg", "Trip/b.jpg"])
        #expect(try pictures.collectionTitles() == ["Pictures", "Trip"])
        // Imported photos stay what they were: two, copied.
        #expect(try pictures.library.fetchAssets().count == 4)
        // A rescan keeps leaving them out, and the libraries keep working beside it.
        try Sandbox.importPhotos([14], into: open, from: scratch)
        let again = try await FolderMirror(library: pictures.library, root: pictures.root).scan()
        #expect(again.inserted == 0 && again.deleted == 0 && again.filesHashed == 0)
        withExtendedLifetime(open) {}
    }

    @Test("A library created in the watched folder, or one whose database arrives after its originals were mirrored, is left out", arguments: LibraryEngine.both)
    func librariesAppearingWhileWatching(engine: LibraryEngine) async throws {
        let pictures = try Sandbox.picturesWithLibrary(engine: engine)
        let scratch = pictures.base.appending(path: "scratch")
        pictures.write("a.jpg", Media.jpeg(1))
        var options = FolderMirrorOptions()
        options.settleInterval = .milliseconds(100)
        let mirror = try FolderMirror(library: pictures.library, root: pictures.root, options: options)
        // A closed library elsewhere, whose database is copied in later.
        let elsewhere = pictures.base.appending(path: "Elsewhere.photosync")
        do { _ = try PhotoLibrary(url: elsewhere) }
        try await whileWatching(mirror) {
            try await mirror.sync()
            // A library created inside the tree while watching, photos imported into it.
            let fresh = try PhotoLibrary(url: pictures.root.appending(path: "New/Fresh.photosync"))
            try Sandbox.importPhotos([20, 21], into: fresh, from: scratch)
            pictures.write("New/c.jpg", Media.jpeg(3))
            try await mirror.sync()
            #expect(try pictures.mirroredPaths() == ["a.jpg", "New/c.jpg"])
            #expect(try pictures.collectionTitles() == ["New", "Pictures"])
            try Sandbox.importPhotos([22], into: fresh, from: scratch)

            // A library copied in originals first: mirrored as a folder of photos until its database arrives.
            let hash = Media.hash(Media.jpeg(30))
            pictures.write("Copy/originals/\(hash.prefix(2))/\(hash)", Media.jpeg(30))
            try await mirror.sync()
            #expect(try pictures.mirroredPaths().contains("Copy/originals/\(hash.prefix(2))/\(hash)"))
            // (Complete when it arrives: moved in from outside the tree.)
            #expect(rename(elsewhere.appending(path: PhotoLibrary.databaseFileName).path,
                           pictures.root.appending(path: "Copy/\(PhotoLibrary.databaseFileName)").path) == 0)
            try await mirror.sync()
            #expect(try pictures.mirroredPaths() == ["a.jpg", "New/c.jpg"])
            #expect(try pictures.collectionTitles() == ["New", "Pictures"])
            withExtendedLifetime(fresh) {}
        }
        // A full scan agrees.
        let summary = try await mirror.scan()
        #expect(summary.inserted + summary.deleted + summary.repaired == 0)
    }
}
