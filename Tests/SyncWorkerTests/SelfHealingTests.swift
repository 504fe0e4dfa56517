import Foundation
import PhotoLibrary
import SeededRandom
import Testing

@testable import SyncWorker

/// Damage as two mirror writers racing leave it (each with its own in-memory model), made through the
/// library's API as the second writer's commits make it.
extension Sandbox {
    var mirrorRecords: MirrorState {
        get throws { try library.fetchMirrorState(root: try #require(try library.fetchMirrorRoot(path: root.path))) }
    }

    /// What a writer whose model did not know `path` yet commits for it: another asset referencing the file,
    /// added to the directory's album, and the path's record overwritten to name that asset.
    @discardableResult
    func insertAsStaleWriter(_ path: String) throws -> String {
        let state = try mirrorRecords
        guard let record = state.files.first(where: { $0.relativePath == path }) else { return "" }
        let albumID = state.directories.first { $0.relativePath == FileSystem.parent(of: path) }?.albumIdentifier
        let album = try albumID.flatMap { try library.fetchMirroredCollections(albumIdentifiers: [$0], folderIdentifiers: []).albums[$0] }
        var id = ""
        try library.performChangesAndWait(author: "photosync") {
            let request = AssetChangeRequest.creationRequestForAsset(
                fromFileAt: root.appending(path: path),
                options: AssetCreationOptions(storage: .referenced, contentHash: record.contentHash, fileSize: record.stamp.size))
            let placeholder = request.placeholderForCreatedAsset!
            if let album { AssetCollectionChangeRequest(for: album).addAssets([placeholder]) }
            MirrorChangeRequest(rootPath: root.path).setFile(path, stamp: record.stamp, contentHash: record.contentHash, asset: placeholder)
            id = placeholder.localIdentifier
        }
        return id
    }

    /// What a writer whose model did not know the file's directory (nor, with `newFolders`, its parents up to
    /// the root's subdirectory, when they hold no file of their own) commits: a copy of every file of the
    /// directory, in a new album titled like it, within new folders titled like its parents, and the records
    /// of the files and directories overwritten to name those. The recorded collections are left beside.
    ///
    /// - Parameter unseen: files of the directory the writer did not see (arrived after its walk): not copied,
    ///   their records left as they are.
    /// - Returns: the copy of the file at `path` (empty when its directory holds subdirectories: not done).
    @discardableResult
    func insertAsStaleWriterWithNewCollections(_ path: String, newFolders: Bool = false, unseen: Set<String> = []) throws -> String {
        let state = try mirrorRecords
        let directories = Dictionary(state.directories.map { ($0.relativePath, $0) }, uniquingKeysWith: { a, _ in a })
        let directory = FileSystem.parent(of: path)
        guard directories[directory]?.folderIdentifier == nil else { return "" }  // a leaf directory only
        let files = state.files.filter { FileSystem.parent(of: $0.relativePath) == directory && !unseen.contains($0.relativePath) }
        var chain = [directory]
        while newFolders, let last = chain.last, !FileSystem.parent(of: last).isEmpty,
            directories[FileSystem.parent(of: last)]?.albumIdentifier == nil
        {
            chain.append(FileSystem.parent(of: last))
        }
        chain.reverse()  // top first
        let top = FileSystem.parent(of: chain[0])
        let container = try directories[top]?.folderIdentifier.flatMap {
            try library.fetchMirroredCollections(albumIdentifiers: [], folderIdentifiers: [$0]).folders[$0]
        }
        var copies: [String: String] = [:]
        try library.performChangesAndWait(author: "photosync") {
            let mirror = MirrorChangeRequest(rootPath: root.path)
            var parent: CollectionListChangeRequest? = container.map { CollectionListChangeRequest(for: $0) }
            for folderPath in chain.dropLast() {
                let folder = CollectionListChangeRequest.creationRequestForCollectionList(withTitle: FileSystem.name(of: folderPath))
                parent?.addChildCollections([folder.placeholderForCreatedCollectionList!])
                let old = directories[folderPath]
                mirror.setDirectory(folderPath, device: old?.device, inode: old?.inode, album: nil, folder: folder.placeholderForCreatedCollectionList)
                parent = folder
            }
            let title = directory.isEmpty ? root.lastPathComponent : FileSystem.name(of: directory)
            let album = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
            parent?.addChildCollections([album.placeholderForCreatedAssetCollection!])
            for record in files {
                let request = AssetChangeRequest.creationRequestForAsset(
                    fromFileAt: root.appending(path: record.relativePath),
                    options: AssetCreationOptions(storage: .referenced, contentHash: record.contentHash, fileSize: record.stamp.size))
                album.addAssets([request.placeholderForCreatedAsset!])
                mirror.setFile(record.relativePath, stamp: record.stamp, contentHash: record.contentHash, asset: request.placeholderForCreatedAsset)
                copies[record.relativePath] = request.placeholderForCreatedAsset!.localIdentifier
            }
            let old = directories[directory]
            mirror.setDirectory(directory, device: old?.device, inode: old?.inode, album: album.placeholderForCreatedAssetCollection, folder: nil)
        }
        return copies[path] ?? ""
    }

    /// Forgets a path's record, leaving its asset unnamed (what a writer's removal of a record another one
    /// had overwritten leaves).
    func dropRecord(_ path: String) throws {
        try library.performChangesAndWait(author: "photosync") { MirrorChangeRequest(rootPath: root.path).removeFile(path) }
    }

    /// Deletes the asset a path's record names (as a user deleting it in an app does): the record then names
    /// no asset.
    func deleteRecordedAsset(_ path: String) throws {
        let id = try #require(try mirrorRecords.files.first { $0.relativePath == path }?.assetIdentifier)
        try library.performChangesAndWait { AssetChangeRequest.deleteAssets(withLocalIdentifiers: [id]) }
    }

    var consistency: MirrorConsistency { get throws { try library.mirrorConsistency(rootPath: root.path) } }
}

@Suite("Sync worker: self-healing passes")
struct SelfHealingTests {
    @Test("A library damaged as two racing writers leave it is repaired by the next scan: one asset per file, the oldest identifier kept, ghosts deleted, the journal says so", arguments: LibraryEngine.allCases)
    func raceDamageIsRepaired(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        var folder = FolderModel()
        for (index, path) in ["a.jpg", "Trip/b.jpg", "c.jpg", "d.jpg", "gone.jpg", "Trip/e.jpg", "Trip/Day/f.jpg"].enumerated() {
            box.write(path, Media.jpeg(index))
            folder.files[path] = FolderModel.File(bytes: Media.jpeg(index), identity: folder.newIdentity())
        }
        let mirror = try box.mirror()
        try await mirror.scan()
        let first = try box.assetsByPath().mapValues(\.localIdentifier)
        #expect(try box.consistency.isConsistent)

        // The damage.
        let duplicates = [
            try box.insertAsStaleWriter("Trip/b.jpg"),
            try box.insertAsStaleWriter("c.jpg"), try box.insertAsStaleWriter("c.jpg"),
            try box.insertAsStaleWriter("Trip/Day/f.jpg"),
        ]
        try box.dropRecord("gone.jpg")  // a ghost…
        box.remove("gone.jpg")  // …whose file is gone,
        folder.files["gone.jpg"] = nil
        try box.dropRecord("Trip/e.jpg")  // and one whose file is there.
        try box.deleteRecordedAsset("d.jpg")  // A record naming no asset.
        box.write("new.jpg", Media.jpeg(50))  // Life goes on.
        folder.files["new.jpg"] = FolderModel.File(bytes: Media.jpeg(50), identity: folder.newIdentity())
        #expect(try box.assets().count == 7 + 4 - 1)
        #expect(try !box.consistency.isConsistent)

        let token = try box.library.currentChangeToken
        let summary = try await mirror.scan()
        #expect(summary.repaired == 6)  // b, c, f (merged), gone and e (adopted), d (record dropped)
        #expect(summary.deleted == 1 && summary.inserted == 2)
        try box.expectMirrors(folder.files.mapValues(\.bytes))
        #expect(try box.assets().count == folder.files.count)
        let now = try box.assetsByPath().mapValues(\.localIdentifier)
        for path in ["a.jpg", "Trip/b.jpg", "c.jpg", "Trip/e.jpg", "Trip/Day/f.jpg"] {
            #expect(now[path] == first[path], "\(path) lost its identifier")
        }
        #expect(now["d.jpg"] != nil && now["d.jpg"] != first["d.jpg"])
        #expect(try box.normalisedTree() == folder.expectedTree(rootName: box.root.lastPathComponent))
        #expect(try box.consistency.isConsistent)

        // The journal: the duplicates and the ghost deleted, the two files new to the mirror inserted.
        let changes = Array(try box.library.fetchPersistentChanges(since: token, options: PersistentChangeFetchOptions(coalesced: true)))
        let details = try #require(changes.first).changeDetails(for: .asset)
        #expect(details.deletedLocalIdentifiers == Set(duplicates + [try #require(first["gone.jpg"])]))
        #expect(details.insertedLocalIdentifiers == [try #require(now["d.jpg"]), try #require(now["new.jpg"])])
        #expect(changes.allSatisfy { $0.author == "photosync" })

        // Repaired: the next pass finds nothing to do, reads nothing and commits nothing.
        let after = try box.library.currentChangeToken
        let again = try await mirror.scan()
        #expect(again.repaired == 0 && again.filesHashed == 0 && again.inserted + again.deleted + again.moved + again.updated == 0)
        #expect(try box.library.currentChangeToken == after)
    }

    /// Where the racing writer's directory is (nested or not), and whether it saw every file.
    struct RaceCase: Sendable, CustomTestStringConvertible {
        let nested: Bool
        let partial: Bool
        var testDescription: String { "nested \(nested), partial \(partial)" }
    }

    static let raceCases = [false, true].flatMap { nested in [false, true].map { RaceCase(nested: nested, partial: $0) } }

    @Test("Albums and folders a racing writer made for a new directory are merged into the recorded ones and deleted; files only the other writer saw join the recorded album", arguments: Self.raceCases, LibraryEngine.both)
    func raceOnANewDirectory(race: RaceCase, engine: LibraryEngine) async throws {
        let (nested, partial) = (race.nested, race.partial)
        let box = try Sandbox(engine: engine)
        var folder = FolderModel()
        func add(_ path: String, _ variant: Int) {
            box.write(path, Media.jpeg(variant))
            folder.files[path] = FolderModel.File(bytes: Media.jpeg(variant), identity: folder.newIdentity())
        }
        add("keep.jpg", 0)
        let mirror = try box.mirror()
        try await mirror.scan()
        // Files arrive in a new directory; both writers see it as new.
        let directory = nested ? "New/Sub" : "New"
        add("\(directory)/x.jpg", 1)
        add("\(directory)/y.jpg", 2)
        try await mirror.scan()
        let first = try box.assetsByPath().mapValues(\.localIdentifier)
        let copy = try box.insertAsStaleWriterWithNewCollections(
            "\(directory)/x.jpg", newFolders: nested, unseen: partial ? ["\(directory)/y.jpg"] : [])
        #expect(!copy.isEmpty)
        let titles = { () throws -> [String] in
            var all = try box.library.fetchAssetCollections(with: .album).compactMap(\.localizedTitle)
            all += try box.library.fetchTopLevelUserCollections().compactMap { if case .collectionList(let list) = $0 { list.localizedTitle } else { nil } }
            return all.sorted()
        }
        #expect(try titles() == (nested ? ["New", "New", "Photos", "Sub", "Sub"] : ["New", "New", "Photos"]))

        let summary = try await mirror.scan()
        #expect(summary.repaired == (partial ? 1 : 2))
        try box.expectMirrors(folder.files.mapValues(\.bytes))
        #expect(try box.assets().count == folder.files.count)
        #expect(try box.assetsByPath().mapValues(\.localIdentifier) == first)
        #expect(try titles() == (nested ? ["New", "Photos", "Sub"] : ["New", "Photos"]))
        #expect(try box.normalisedTree() == folder.expectedTree(rootName: box.root.lastPathComponent))
        #expect(try box.albumTree().joined(separator: "\n").contains("x.jpg y.jpg"))
    }

    @Test("A repair touches the albums of what it repairs only: a photo the user took out of its directory's album, or put in another's, stays so", arguments: LibraryEngine.allCases)
    func repairKeepsTheUsersAlbumChoices(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for (index, path) in ["A/x.jpg", "A/keep.jpg", "B/y.jpg", "C/z.jpg", "C/w.jpg"].enumerated() { box.write(path, Media.jpeg(index)) }
        let mirror = try box.mirror()
        try await mirror.scan()
        let before = try box.assetsByPath()
        let albums = Dictionary(uniqueKeysWithValues: try box.library.fetchAssetCollections(with: .album).map { ($0.localizedTitle ?? "", $0) })
        let (x, y) = (try #require(before["A/x.jpg"]), try #require(before["B/y.jpg"]))
        try box.library.performChangesAndWait(author: "app") {
            AssetCollectionChangeRequest(for: albums["A"]!).removeAssets([x])
            AssetCollectionChangeRequest(for: albums["C"]!).addAssets([y])
        }
        let curated = try box.albumTree()
        #expect(curated == ["album A: keep.jpg", "album B: y.jpg", "album C: w.jpg z.jpg y.jpg"])
        // Damage elsewhere: an app deletes a mirrored photo (its file stays: the next pass mirrors it anew), and
        // a racing writer left a duplicate of another.
        try box.deleteRecordedAsset("C/z.jpg")
        try box.insertAsStaleWriter("C/w.jpg")

        let summary = try await mirror.scan()
        #expect(summary.repaired == 2 && summary.inserted == 1)
        let repaired = try box.albumTree()
        #expect(repaired == ["album A: keep.jpg", "album B: y.jpg", "album C: w.jpg y.jpg z.jpg"])
        #expect(try box.assetsByPath()["C/w.jpg"]?.localIdentifier == before["C/w.jpg"]?.localIdentifier)
        #expect(try box.consistency.isConsistent)
    }

    @Test("Merging keeps the oldest asset with what the user set on any copy: favourite if any was, hidden only if all were, every album", arguments: LibraryEngine.allCases)
    func mergeKeepsWhatTheUserSet(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for (index, name) in ["x.jpg", "y.jpg", "z.jpg"].enumerated() { box.write(name, Media.jpeg(index)) }
        let mirror = try box.mirror()
        try await mirror.scan()
        let first = try box.assetsByPath()
        let copies = ["x.jpg": try box.insertAsStaleWriter("x.jpg"), "y.jpg": try box.insertAsStaleWriter("y.jpg"),
                      "z.jpg": try box.insertAsStaleWriter("z.jpg")]
        let assets = Dictionary(uniqueKeysWithValues: try box.assets().map { ($0.localIdentifier, $0) })
        try box.library.performChangesAndWait(author: "app") {
            // x: the copy is a favourite and in an album of the user's.
            AssetChangeRequest(for: assets[copies["x.jpg"]!]!).isFavorite = true
            let best = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Best")
            best.addAssets([assets[copies["x.jpg"]!]!])
            // y: the user hid one copy (a duplicate), not the photo.
            AssetChangeRequest(for: assets[first["y.jpg"]!.localIdentifier]!).isHidden = true
            // z: both hidden.
            AssetChangeRequest(for: assets[first["z.jpg"]!.localIdentifier]!).isHidden = true
            AssetChangeRequest(for: assets[copies["z.jpg"]!]!).isHidden = true
        }
        let summary = try await mirror.scan()
        #expect(summary.repaired == 3)
        let now = try box.assetsByPath()
        #expect(now.mapValues(\.localIdentifier) == first.mapValues(\.localIdentifier))
        #expect(now["x.jpg"]?.isFavorite == true)
        let best = try #require(try box.library.fetchTopLevelUserCollections().compactMap { collection -> AssetCollection? in
            if case .assetCollection(let album) = collection, album.localizedTitle == "Best" { album } else { nil }
        }.first)
        #expect(try box.library.fetchAssets(in: best).map(\.localIdentifier) == [first["x.jpg"]!.localIdentifier])
        #expect(now["y.jpg"]?.isHidden == false)
        #expect(now["z.jpg"]?.isHidden == true)
        try box.expectMirrors(["x.jpg": Media.jpeg(0), "y.jpg": Media.jpeg(1), "z.jpg": Media.jpeg(2)])
        #expect(try box.assets().count == 3)
    }

    @Test("Ghosts whose files are gone fall under the mass-deletion rule like any deletion", arguments: [false, true], LibraryEngine.allCases)
    func ghostDeletionsAreGuarded(allow: Bool, engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for index in 0..<20 { box.write("p\(index).jpg", Media.jpeg(index)) }
        try await box.mirror().scan()
        for index in 0..<15 {
            try box.dropRecord("p\(index).jpg")
            box.remove("p\(index).jpg")
        }
        let mirror = try box.mirror { $0.allowMassDeletion = allow }
        if allow {
            let summary = try await mirror.scan()
            #expect(summary.repaired == 15 && summary.deleted == 15)
            #expect(try box.assets().count == 5)
        } else {
            await #expect { try await mirror.scan() } throws: {
                ($0 as? SyncError)?.kind == .massDeletionRefused(wouldDelete: 15, mirrored: 20, limit: 10)
            }
            // The ghosts were adopted (records naming them), nothing was deleted: a confirmed pass deletes them.
            #expect(try box.assets().count == 20)
            #expect(try box.mirrorRecords.files.count == 20)
        }
    }

    @Test("Random damage between random file operations: a scan always brings the library back to the folder", arguments: [21, 22, 23, 24, 25, 26, 27, 28] as [UInt64], LibraryEngine.allCases)
    func randomDamage(seed: UInt64, engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        var random = SplitMix64(seed: seed)
        var folder = FolderModel()
        box.write("keep.jpg", Media.jpeg(0))
        folder.files["keep.jpg"] = FolderModel.File(bytes: Media.jpeg(0), identity: folder.newIdentity())
        let mirror = try box.mirror {
            $0.allowMassDeletion = true
            $0.batchFileLimit = 5
        }
        try await mirror.scan()
        var known: [Int: String] = [:]
        var lastPath: [Int: String] = [:]
        func check(_ round: Int) throws {
            try box.expectMirrors(folder.files.mapValues(\.bytes))
            #expect(try box.assets().count == folder.files.count, "seed \(seed) round \(round)")
            // (Empty albums aside: an album a racing writer left whose photos were then deleted by the user is
            // empty, and an empty album is never taken for an orphan — it may be the user's.)
            #expect(try box.normalisedTree().filter { !$0.hasSuffix(": ") } == folder.expectedTree(rootName: box.root.lastPathComponent), "seed \(seed) round \(round)")
            #expect(try box.consistency.isConsistent, "seed \(seed) round \(round)")
            let byPath = try box.assetsByPath()
            let holder = Dictionary(folder.files.map { ($0.key, $0.value.identity) }, uniquingKeysWith: { a, _ in a })
            for (path, file) in folder.files {
                let id = try #require(byPath[path]?.localIdentifier)
                // (Not asserted: a file moved away from a path another changed file then took. The scan rules
                // see the path's new content as an edit there; that is the rules' business, not the repair's.)
                let pathTaken = lastPath[file.identity].map { $0 != path && holder[$0] != nil } ?? false
                if !file.fresh && !pathTaken, let previous = known[file.identity] {
                    #expect(id == previous, "seed \(seed) round \(round): \(path) lost its identity")
                }
                known[file.identity] = id
            }
            lastPath = folder.files.reduce(into: [:]) { $0[$1.value.identity] = $1.key }
            for key in folder.files.keys {
                folder.files[key]!.fresh = false
                folder.files[key]!.editedThisRound = false
                folder.files[key]!.movedThisRound = false
            }
        }
        for round in 1...8 {
            for _ in 0..<random.int(in: 1...6) { ModelTests.randomOperation(box, &folder, &random) }
            try await mirror.scan()
            try check(round)
            // Damage the library, then change the folder some more.
            let recorded = try box.mirrorRecords.files.map(\.relativePath).sorted()
            for _ in 0..<random.int(in: 1...4) where !recorded.isEmpty {
                let path = recorded[random.int(in: 0...(recorded.count - 1))]
                switch random.int(in: 0...3) {
                case 0:
                    try box.insertAsStaleWriterWithNewCollections(path, newFolders: random.chance(0.5))
                case 1:
                    for _ in 0..<random.int(in: 1...2) { try box.insertAsStaleWriter(path) }
                case 2:
                    try box.dropRecord(path)
                default:
                    if try box.mirrorRecords.files.first(where: { $0.relativePath == path })?.assetIdentifier != nil {
                        try box.deleteRecordedAsset(path)
                        folder.files[path]?.fresh = true
                    }
                }
            }
            for _ in 0..<random.int(in: 0...3) { ModelTests.randomOperation(box, &folder, &random) }
            try await mirror.scan()
            try check(round)
        }
    }
}
