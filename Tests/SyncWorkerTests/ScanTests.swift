import Foundation
import PhotoLibrary
import Testing

@testable import SyncWorker

@Suite("Sync worker: scan rules")
struct ScanTests {
    @Test("New files are inserted as referenced assets with their hash and metadata; an unchanged rescan hashes nothing and commits nothing", arguments: LibraryEngine.allCases)
    func createAndRescan(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        box.write("Trip/b.png", Media.pngImage(2))
        box.write("notes.txt", Array("not media".utf8))
        let mirror = try box.mirror()
        let first = try await mirror.scan()
        #expect(first.inserted == 2)
        #expect(first.filesHashed == 2)
        try box.expectMirrors(["a.jpg": Media.jpeg(1), "Trip/b.png": Media.pngImage(2)])
        let a = try #require(try box.assetsByPath()["a.jpg"])
        #expect(a.storage == .referenced)
        #expect(a.mediaType == .image)
        #expect(a.uniformTypeIdentifier == "public.jpeg")
        // What the EXIF says (camera.jpg: 64 × 48, taken 2023-07-14 18:30:05.25 +02:00).
        #expect(a.pixelWidth == 64 && a.pixelHeight == 48)
        #expect(a.creationDate == Date(timeIntervalSince1970: 1_689_352_205.25))
        #expect(a.creationTimeZoneOffset == 7200)

        let token = try box.library.currentChangeToken
        let second = try await mirror.scan()
        #expect(second.filesHashed == 0)
        #expect(second.unchanged == 2)
        #expect(second.inserted + second.updated + second.moved + second.deleted == 0)
        #expect(try box.library.currentChangeToken == token)
        // A new mirror (another process, after a restart) uses the stat cache in the library too.
        let third = try await box.mirror().scan()
        #expect(third.filesHashed == 0)
        #expect(try box.library.currentChangeToken == token)
    }

    @Test("An edit in place and an atomic save update the same asset, with its content changed", arguments: LibraryEngine.allCases)
    func editInPlaceAndAtomicSave(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        box.write("b.jpg", Media.jpeg(2))
        let mirror = try box.mirror()
        try await mirror.scan()
        let before = try box.assetsByPath()
        let token = try box.library.currentChangeToken

        box.append("a.jpg", Array("edited".utf8))
        box.write(".b.jpg.swp", Media.jpeg(22))  // an editor's temporary file: hidden, ignored
        box.move(".b.jpg.swp", "b.jpg")  // atomic save: rename over
        let summary = try await mirror.scan()
        #expect(summary.updated == 2)
        #expect(summary.inserted == 0 && summary.deleted == 0)
        let after = try box.assetsByPath()
        #expect(after["a.jpg"]?.localIdentifier == before["a.jpg"]?.localIdentifier)
        #expect(after["b.jpg"]?.localIdentifier == before["b.jpg"]?.localIdentifier)
        try box.expectMirrors(["a.jpg": Media.jpeg(1) + Array("edited".utf8), "b.jpg": Media.jpeg(22)])
        let changes = try box.library.fetchPersistentChanges(since: token, options: PersistentChangeFetchOptions(coalesced: true))
        let details = try #require(Array(changes).first).changeDetails(for: .asset)
        #expect(details.updatedLocalIdentifiers == Set([before["a.jpg"]!.localIdentifier, before["b.jpg"]!.localIdentifier]))
        #expect(details.insertedLocalIdentifiers.isEmpty && details.deletedLocalIdentifiers.isEmpty)
    }

    @Test("A file growing while it is hashed is skipped as still being written and picked up by the next pass", arguments: LibraryEngine.allCases)
    func partialWrite(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("old.jpg", Media.jpeg(1))
        // Files read one by one when they come: the progress report of a file then precedes its reading. (With
        // readers ahead the same check is made by each reader: ReadAheadTests.)
        let mirror = try box.mirror { $0.fileReaders = 1 }
        try await mirror.scan()
        let old = try #require(try box.assetsByPath()["old.jpg"])
        box.write("growing.jpg", Media.jpeg(2))
        box.append("old.jpg", [1, 2, 3])
        let grown = Media.jpeg(2) + [9, 9, 9]
        let summary = try await mirror.scan { progress in
            // The writer is still at work when the worker starts hashing each file.
            if progress.phase == .hashing, let path = progress.currentPath {
                box.append(path, path == "growing.jpg" ? [9, 9, 9] : [4])
            }
        }
        #expect(Set(summary.skipped.filter { $0.reason == "still being written" }.map(\.path)) == ["growing.jpg", "old.jpg"])
        #expect(summary.inserted == 0 && summary.updated == 0)
        // The old state is left as it was.
        try box.expectMirrors(["old.jpg": Media.jpeg(1)])
        let next = try await mirror.scan()
        #expect(next.inserted == 1 && next.updated == 1)
        try box.expectMirrors(["old.jpg": Media.jpeg(1) + [1, 2, 3, 4], "growing.jpg": grown])
        #expect(try box.assetsByPath()["old.jpg"]?.localIdentifier == old.localIdentifier)
    }

    @Test("A file vanishing while it is hashed is skipped", arguments: LibraryEngine.allCases)
    func vanishingFile(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        box.write("gone.jpg", Media.jpeg(2))
        // Read when it comes, after its progress report (see partialWrite).
        let summary = try await box.mirror { $0.fileReaders = 1 }.scan { progress in
            if progress.currentPath == "gone.jpg" { box.remove("gone.jpg") }
        }
        #expect(summary.inserted == 1)
        #expect(summary.skipped.contains(SkippedFile(path: "gone.jpg", reason: "vanished while being read")))
        try box.expectMirrors(["a.jpg": Media.jpeg(1)])
    }

    @Test("Renames, moves across folders and case-only renames keep the identifier without rehashing; album membership follows", arguments: LibraryEngine.allCases)
    func renamesAndMoves(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("A/one.jpg", Media.jpeg(1))
        box.write("A/two.jpg", Media.jpeg(2))
        box.write("B/three.jpg", Media.jpeg(3))
        let mirror = try box.mirror()
        try await mirror.scan()
        let before = try box.assetsByPath()
        #expect(try box.albumTree() == ["album A: one.jpg two.jpg", "album B: three.jpg"])

        box.move("A/one.jpg", "A/uno.jpg")
        box.move("A/two.jpg", "B/two.jpg")
        box.move("B/three.jpg", "B/THREE.jpg")
        let summary = try await mirror.scan()
        #expect(summary.moved == 3)
        #expect(summary.filesHashed == 0)
        #expect(summary.inserted + summary.deleted + summary.updated == 0)
        let after = try box.assetsByPath()
        #expect(after["A/uno.jpg"]?.localIdentifier == before["A/one.jpg"]?.localIdentifier)
        #expect(after["B/two.jpg"]?.localIdentifier == before["A/two.jpg"]?.localIdentifier)
        #expect(after["B/THREE.jpg"]?.localIdentifier == before["B/three.jpg"]?.localIdentifier)
        #expect(after["A/uno.jpg"]?.originalFilename == "uno.jpg")
        #expect(try box.albumTree() == ["album A: uno.jpg", "album B: three.jpg two.jpg"].map { $0.replacingOccurrences(of: "three", with: "THREE") })
    }

    @Test("A file copied elsewhere and the original deleted is a move by content (another inode)", arguments: LibraryEngine.allCases)
    func moveByContent(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        let mirror = try box.mirror()
        try await mirror.scan()
        let id = try #require(try box.assetsByPath()["a.jpg"]).localIdentifier
        box.write("copy/a.jpg", Media.jpeg(1))
        box.remove("a.jpg")
        let summary = try await mirror.scan()
        #expect(summary.moved == 1 && summary.filesHashed == 1)
        #expect(try box.assetsByPath()["copy/a.jpg"]?.localIdentifier == id)
    }

    @Test("Identical content at two paths is two assets", arguments: LibraryEngine.allCases)
    func duplicates(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        box.write("b/a.jpg", Media.jpeg(1))
        try await box.mirror().scan()
        let assets = try box.assets()
        #expect(assets.count == 2)
        #expect(Set(assets.map(\.contentHash)).count == 1)
    }

    @Test("A renamed directory keeps its album's identifier and renames it; a moved directory follows into its new folder", arguments: LibraryEngine.allCases)
    func directoryRename(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("2023/Summer/a.jpg", Media.jpeg(1))
        box.write("2023/Summer/b.jpg", Media.jpeg(2))
        box.write("2023/c.jpg", Media.jpeg(3))
        box.write("2024/d.jpg", Media.jpeg(4))
        let mirror = try box.mirror()
        try await mirror.scan()
        #expect(try box.albumTree() == [
            "folder 2023", "  album 2023: c.jpg", "  album Summer: a.jpg b.jpg", "album 2024: d.jpg",
        ])
        let summer = try #require(try box.library.fetchAssetCollections(with: .album).first { $0.localizedTitle == "Summer" })
        let assetIDs = try box.assetsByPath().mapValues(\.localIdentifier)

        box.move("2023/Summer", "2023/Holiday")
        var summary = try await mirror.scan()
        #expect(summary.moved == 2 && summary.filesHashed == 0)
        let holiday = try #require(try box.library.fetchAssetCollections(with: .album).first { $0.localizedTitle == "Holiday" })
        #expect(holiday.localIdentifier == summer.localIdentifier)
        #expect(try box.albumTree() == [
            "folder 2023", "  album 2023: c.jpg", "  album Holiday: a.jpg b.jpg", "album 2024: d.jpg",
        ])

        // Across folders: 2024 gains a subdirectory, so it becomes a folder holding its own album first;
        // 2023 is left with media of its own only, so its folder goes and its album moves to the top.
        box.move("2023/Holiday", "2024/Holiday")
        summary = try await mirror.scan()
        #expect(summary.moved == 2)
        #expect(try box.albumTree() == [
            "album 2023: c.jpg", "folder 2024", "  album 2024: d.jpg", "  album Holiday: a.jpg b.jpg",
        ])
        let moved = try #require(try box.library.fetchAssetCollections(with: .album).first { $0.localizedTitle == "Holiday" })
        #expect(moved.localIdentifier == summer.localIdentifier)
        #expect(try box.assetsByPath()["2024/Holiday/a.jpg"]?.localIdentifier == assetIDs["2023/Summer/a.jpg"])

        // Emptied directories lose their albums and folders.
        box.remove("2023")
        summary = try await mirror.scan()
        #expect(summary.deleted == 1)
        #expect(try box.albumTree() == ["folder 2024", "  album 2024: d.jpg", "  album Holiday: a.jpg b.jpg"])
        box.remove("2024/Holiday")
        try await mirror.scan()
        #expect(try box.albumTree() == ["album 2024: d.jpg"])
    }

    @Test("Media directly in the root make an album titled with the root's name", arguments: LibraryEngine.allCases)
    func rootAlbum(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("x.jpg", Media.jpeg(1))
        box.write("Sub/y.jpg", Media.jpeg(2))
        try await box.mirror().scan()
        #expect(try box.albumTree() == ["album Photos: x.jpg", "album Sub: y.jpg"])
    }

    @Test("A deleted file deletes its asset", arguments: LibraryEngine.allCases)
    func delete(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        box.write("b.jpg", Media.jpeg(2))
        let mirror = try box.mirror()
        try await mirror.scan()
        box.remove("b.jpg")
        let summary = try await mirror.scan()
        #expect(summary.deleted == 1)
        try box.expectMirrors(["a.jpg": Media.jpeg(1)])
    }

    @Test("Ignore rules: .photosyncignore patterns, hidden files and partial downloads are not mirrored", arguments: LibraryEngine.allCases)
    func ignoreRules(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write(".photosyncignore", Array("private/\n*.draft.jpg\n".utf8))
        box.write("keep.jpg", Media.jpeg(1))
        box.write("private/secret.jpg", Media.jpeg(2))
        box.write("x.draft.jpg", Media.jpeg(3))
        box.write(".hidden.jpg", Media.jpeg(4))
        box.write("download.jpg.part", Media.jpeg(5))
        box.write("@eaDir/thumb.jpg", Media.jpeg(6))
        box.write("Sub/.photosyncignore", Array("*.png\n".utf8))
        box.write("Sub/p.png", Media.pngImage(7))
        box.write("p.png", Media.pngImage(8))
        try await box.mirror().scan()
        try box.expectMirrors(["keep.jpg": Media.jpeg(1), "p.png": Media.pngImage(8)])
    }

    @Test("Symbolic links are never followed (a loop ends), and non-regular files are reported, not mirrored", arguments: LibraryEngine.allCases)
    func symlinksAndSpecialFiles(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a/x.jpg", Media.jpeg(1))
        #expect(symlink("..", box.path("a/loop")) == 0)
        #expect(symlink(box.path("a/x.jpg"), box.path("link.jpg")) == 0)
        #expect(symlink(box.path("nowhere.jpg"), box.path("dangling.jpg")) == 0)
        #expect(mkfifo(box.path("fifo.jpg"), 0o644) == 0)
        let summary = try await box.mirror().scan()
        try box.expectMirrors(["a/x.jpg": Media.jpeg(1)])
        let skipped = Dictionary(summary.skipped.map { ($0.path, $0.reason) }, uniquingKeysWith: { a, _ in a })
        #expect(skipped["a/loop"] == "symbolic link (not followed)")
        #expect(skipped["link.jpg"] == "symbolic link (not followed)")
        #expect(skipped["dangling.jpg"] == "symbolic link (not followed)")
        #expect(skipped["fifo.jpg"] == "not a regular file")
    }

    @Test("A file moved over a mirrored one keeps its record at the new path, also along a chain of moves: the next pass reads nothing and inserts nothing", arguments: [false, true], LibraryEngine.allCases)
    func moveOverAMirroredFile(chain: Bool, engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("keep.jpg", Media.jpeg(0))
        box.write("a.jpg", Media.jpeg(1))
        box.write("D/b.jpg", Media.jpeg(2))
        let mirror = try box.mirror { $0.allowMassDeletion = true }
        try await mirror.scan()
        let before = try box.assetsByPath()
        if chain { box.move("D/b.jpg", "D/c.jpg") }  // b moves on, then a takes its old place
        box.move("a.jpg", "D/b.jpg")
        let summary = try await mirror.scan()
        #expect(summary.moved == (chain ? 2 : 1) && summary.deleted == (chain ? 0 : 1))
        var expected = ["keep.jpg": Media.jpeg(0), "D/b.jpg": Media.jpeg(1)]
        if chain { expected["D/c.jpg"] = Media.jpeg(2) }
        try box.expectMirrors(expected)
        #expect(try box.assetsByPath()["D/b.jpg"]?.localIdentifier == before["a.jpg"]?.localIdentifier)
        #expect(try Set(box.mirrorRecords.files.map(\.relativePath)) == Set(expected.keys))
        // A new process's pass agrees: nothing read, nothing to repair, nothing new.
        let again = try await box.mirror().scan()
        #expect(again.filesHashed == 0 && again.repaired == 0 && again.inserted == 0)
        #expect(try box.assets().count == expected.count)
    }

    @Test("A photo the user took out of its directory's album, or put in another directory's, moves there with its file: the pass goes on", arguments: [false, true], LibraryEngine.allCases)
    func moveAfterTheUserChangedAlbums(putInTarget: Bool, engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("A/x.jpg", Media.jpeg(1))
        box.write("A/keep.jpg", Media.jpeg(2))
        box.write("B/y.jpg", Media.jpeg(3))
        let mirror = try box.mirror()
        try await mirror.scan()
        let x = try #require(try box.assetsByPath()["A/x.jpg"])
        let albums = Dictionary(uniqueKeysWithValues: try box.library.fetchAssetCollections(with: .album).map { ($0.localizedTitle ?? "", $0) })
        try box.library.performChangesAndWait(author: "app") {
            if putInTarget {
                AssetCollectionChangeRequest(for: albums["B"]!).addAssets([x])
            } else {
                AssetCollectionChangeRequest(for: albums["A"]!).removeAssets([x])
            }
        }
        box.move("A/x.jpg", "B/x.jpg")
        let summary = try await mirror.scan()
        #expect(summary.moved == 1)
        #expect(try box.albumTree() == ["album A: keep.jpg", "album B: y.jpg x.jpg"])
        #expect(try box.assetsByPath()["B/x.jpg"]?.localIdentifier == x.localIdentifier)
    }

    @Test("A scan summary recorded by an older photosync, without the newer counts, still decodes (missing counts are zero)")
    func olderSummaryDecodes() throws {
        let old = #"{"inserted":3,"updated":0,"moved":1,"deleted":0,"unchanged":5,"filesHashed":3,"bytesHashed":900,"batches":2,"skipped":[],"metadataProblems":{},"duration":0.5,"interrupted":false}"#
        let summary = try JSONDecoder().decode(ScanSummary.self, from: Data(old.utf8))
        #expect(summary.inserted == 3 && summary.moved == 1 && summary.repaired == 0 && summary.bytesHashed == 900)
        var current = ScanSummary()
        current.repaired = 2
        current.skipped = [SkippedFile(path: "a", reason: "b")]
        #expect(try JSONDecoder().decode(ScanSummary.self, from: JSONEncoder().encode(current)) == current)
    }
}

@Suite("Sync worker: relative paths split at the last slash byte")
struct PathSplitTests {
    @Test("A file whose name begins with a combining mark is in its folder's album (a split by characters saw no slash before it)", arguments: LibraryEngine.allCases)
    func combiningMarkAfterSlash(engine: LibraryEngine) async throws {
        let name = "\u{301}b.jpg"
        #expect(FileSystem.parent(of: "Trip/" + name) == "Trip")
        #expect(FileSystem.name(of: "Trip/" + name) == name)
        let box = try Sandbox(engine: engine)
        box.write("Trip/" + name, Media.jpeg(1))
        box.write("Trip/a.jpg", Media.jpeg(2))
        _ = try await box.mirror().scan()
        #expect(try box.albumTree() == ["album Trip: \(name) a.jpg"] || box.albumTree() == ["album Trip: a.jpg \(name)"])
    }

    @Test("parent(of:) and name(of:) undo join(_:_:) for random components (non-ASCII, combining marks, emoji)")
    func joinRoundTrip() {
        let alphabet: [String] = ["a", "Z", ".", " ", "é", "e\u{301}", "\u{301}", "\u{308}", "👍🏽", "日", "-", "_"]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 {
            func component() -> String {
                (0..<Int.random(in: 1...6, using: &generator)).map { _ in alphabet.randomElement(using: &generator)! }.joined()
            }
            let directory = (0..<Int.random(in: 0...3, using: &generator)).map { _ in component() }.joined(separator: "/")
            let name = component()
            let path = FileSystem.join(directory, name)
            #expect(FileSystem.parent(of: path) == directory, "\(Array(path.unicodeScalars))")
            #expect(FileSystem.name(of: path) == name, "\(Array(path.unicodeScalars))")
        }
    }
}
