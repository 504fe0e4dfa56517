import Foundation
import PhotoLibrary
import Synchronization
import Testing

@testable import SyncWorker

@Suite("Sync worker: concurrent barriers and cancelled passes")
struct BarrierAndCancellationTests {
    @Test("Many clients asking for the barrier at once each get it, whatever order the watcher processes their cookies in", arguments: LibraryEngine.both)
    func concurrentBarriers(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        let mirror = try box.mirror { $0.settleInterval = .milliseconds(200) }
        let clients = try (0..<6).map { _ in try box.openAnother() }
        try await whileWatching(mirror) {
            for round in 0..<3 {
                box.write("round-\(round).jpg", Media.jpeg(round))
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for client in clients {
                        group.addTask { try await FolderMirror.requestSync(library: client, root: box.root, timeout: .seconds(60)) }
                    }
                    try await group.waitForAll()
                }
                #expect(try box.assets().count == round + 1)
            }
        }
        // Every cookie file was removed once processed.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: box.root.path).filter { $0.hasPrefix(".photosync-sync-") }
        #expect(leftovers.isEmpty)
    }

    @Test("A cancelled scan commits its current batch, deletes nothing, is not recorded as the last scan; the next pass converges", arguments: LibraryEngine.both)
    func cancelledScan(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for index in 0..<60 { box.write("a/\(index).jpg", Media.jpeg(index)) }
        let mirror = try box.mirror { $0.batchFileLimit = 10 }
        try await mirror.scan()
        #expect(try box.assets().count == 60)
        let firstScan = try #require(try box.library.fetchMirrorRoot(path: box.root.path)?.lastScanEnd)

        // Rename every file and add new ones: a pass that stops early must not take the renamed files it
        // has not reached yet for deleted ones.
        let identifiers = Set(try box.assets().map(\.localIdentifier))
        box.move("a", "b")
        for index in 60..<120 { box.write("c/\(index).jpg", Media.jpeg(index)) }
        let batches = Mutex(0)
        let task = Task { () async throws(SyncError) -> ScanSummary in
            try await mirror.scan { progress in
                // Cancel as soon as hashing is under way: the pass stops at the end of its current batch.
                if progress.phase == .hashing && progress.filesHashed >= 15 {
                    batches.withLock { $0 += 1 }
                    withUnsafeCurrentTask { $0?.cancel() }
                }
            }
        }
        let interrupted = try await task.value
        #expect(interrupted.interrupted)
        #expect(interrupted.deleted == 0)
        #expect(interrupted.inserted < 60)
        #expect(try box.library.fetchMirrorRoot(path: box.root.path)?.lastScanEnd == firstScan)
        #expect(try box.assets().count >= 60)
        #expect(batches.withLock { $0 } > 0)

        let finished = try await mirror.scan()
        #expect(!finished.interrupted)
        #expect(finished.deleted == 0)
        let assets = try box.assets()
        #expect(assets.count == 120)
        // The renamed files kept their identities.
        #expect(identifiers.isSubset(of: Set(assets.map(\.localIdentifier))))
        #expect(try box.library.fetchMirrorRoot(path: box.root.path)?.lastScanEnd != firstScan)
    }

    /// A mirrored folder "Trip" of 40 photos with a subfolder "Day 2" of one.
    static func mirroredTrip(batchFileLimit: Int, engine: LibraryEngine) async throws -> (Sandbox, FolderMirror) {
        let box = try Sandbox(engine: engine)
        for index in 0..<40 { box.write("Trip/\(index).jpg", Media.jpeg(index)) }
        box.write("Trip/Day 2/x.jpg", Media.jpeg(1000))
        let mirror = try box.mirror { $0.batchFileLimit = batchFileLimit }
        try await mirror.scan()
        return (box, mirror)
    }

    @Test("A directory renamed while new files arrive, committed over many batches, keeps its album and every identity", arguments: [7, 500], LibraryEngine.both)
    func directoryRenameOverManyBatches(batchFileLimit: Int, engine: LibraryEngine) async throws {
        let (box, mirror) = try await Self.mirroredTrip(batchFileLimit: batchFileLimit, engine: engine)
        let album = try #require(try box.library.fetchAssetCollections(with: .album).first { $0.localizedTitle == "Trip" })
        let identifiers = Set(try box.assets().map(\.localIdentifier))

        box.move("Trip", "Journey")
        for index in 40..<60 { box.write("New/\(index).jpg", Media.jpeg(index)) }
        let summary = try await mirror.scan()
        #expect(summary.moved == 41)
        #expect(summary.inserted == 20)
        #expect(summary.deleted == 0)
        #expect(identifiers.isSubset(of: Set(try box.assets().map(\.localIdentifier))))
        let renamed = try #require(try box.library.fetchAssetCollections(with: .album).first { $0.localIdentifier == album.localIdentifier })
        #expect(renamed.localizedTitle == "Journey")
        #expect(try box.library.fetchAssets(in: renamed).count == 40)
        let tree = try box.albumTree()
        #expect(tree.filter { $0.hasPrefix("folder") || $0.hasPrefix("  folder") }.map { $0.trimmingCharacters(in: .whitespaces) } == ["folder Journey"])
        #expect(tree.contains { $0.hasPrefix("  album Day 2: x.jpg") })
        #expect(tree.contains { $0.hasPrefix("album New: ") })
        #expect(!tree.contains { $0.contains("Trip") })
    }

    // A batch reads before its block only the albums and folders of the directories it touches; the old
    // directory of a rename is then read inside the block (`DirectoryTree.fetch`).
    @Test("A directory renamed with every file in it rewritten keeps its album: the batch that meets the new path touches no file of the old one", arguments: LibraryEngine.both)
    func directoryRenamedWithEveryFileRewritten(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for index in 0..<3 { box.write("Trip/\(index).jpg", Media.jpeg(index)) }
        box.write("Home/h.jpg", Media.jpeg(9))
        let mirror = try box.mirror()
        _ = try await mirror.scan()
        let album = try #require(try box.library.fetchAssetCollections(with: .album).first { $0.localizedTitle == "Trip" })

        box.move("Trip", "Journey")
        // New contents: the files are new assets (inserted in the files' batches), their old paths deleted at
        // the end of the pass; only the directory itself is recognised, by its inode.
        for index in 0..<3 { box.write("Journey/\(index).jpg", Media.jpeg(10 + index)) }
        let summary = try await mirror.scan()
        #expect(summary.inserted == 3 && summary.deleted == 3 && summary.moved == 0)
        let renamed = try #require(try box.library.fetchAssetCollections(with: .album).first { $0.localIdentifier == album.localIdentifier })
        #expect(renamed.localizedTitle == "Journey")
        #expect(try box.albumTree().sorted() == ["album Home: h.jpg", "album Journey: 0.jpg 1.jpg 2.jpg"])
    }

    @Test("A renamed directory whose files also got new stamps is recognised by hash over many batches; albums survive the intermediate states", arguments: [7, 500], LibraryEngine.both)
    func directoryRenameByHashOverManyBatches(batchFileLimit: Int, engine: LibraryEngine) async throws {
        let (box, mirror) = try await Self.mirroredTrip(batchFileLimit: batchFileLimit, engine: engine)
        let before = try box.albumTree()
        let album = try #require(try box.library.fetchAssetCollections(with: .album).first { $0.localizedTitle == "Trip" })
        let identifiers = Set(try box.assets().map(\.localIdentifier))

        box.move("Trip", "Journey")
        // New modification times: nothing is recognised by its stamp; every file is read and matched by hash.
        for index in 0..<40 { #expect(utimes(box.path("Journey/\(index).jpg"), nil) == 0) }
        #expect(utimes(box.path("Journey/Day 2/x.jpg"), nil) == 0)
        let summary = try await mirror.scan()
        #expect(summary.moved == 41)
        #expect(summary.inserted == 0 && summary.deleted == 0)
        #expect(Set(try box.assets().map(\.localIdentifier)) == identifiers)
        #expect(try box.albumTree() == before.map { $0.replacingOccurrences(of: "Trip", with: "Journey") })
        let renamed = try #require(try box.library.fetchAssetCollections(with: .album).first { $0.localIdentifier == album.localIdentifier })
        #expect(renamed.localizedTitle == "Journey")
    }
}
