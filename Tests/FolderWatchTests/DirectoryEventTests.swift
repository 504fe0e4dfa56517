import FolderWatch
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Directories: watches follow the tree as it is created, renamed, moved in and out, and deleted.
@Suite struct DirectoryEventTests {
    @Test func initialTreeIsWatchedWhenInitReturns() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("a/b/c")
        try tree.mkdir("d")
        let watcher = try FolderWatcher(root: tree.path)
        #expect(watcher.watchedDirectoryCount == 5)
        let recorder = EventRecorder(watcher)
        try tree.write("a/b/c/x.jpg")
        let events = await recorder.wait { $0.contains(.fileChanged("a/b/c/x.jpg")) }
        #expect(events.collapsed == [.fileChanged("a/b/c/x.jpg")])
    }

    @Test func directoryRenameKeepsEveryWatchBelowIt() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("2023/summer/raw")
        try tree.write("2023/summer/a.jpg")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try tree.rename("2023/summer", "2023/Summer Trip")
        try tree.rename("2023", "Archive 2023")
        try tree.write("Archive 2023/Summer Trip/b.jpg")
        try tree.write("Archive 2023/Summer Trip/raw/c.dng")
        try tree.rename("Archive 2023/Summer Trip/a.jpg", "Archive 2023/Summer Trip/raw/a.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [
            .moved(from: "2023/summer", to: "2023/Summer Trip", isDirectory: true),
            .moved(from: "2023", to: "Archive 2023", isDirectory: true),
            .fileChanged("Archive 2023/Summer Trip/b.jpg"),
            .fileChanged("Archive 2023/Summer Trip/raw/c.dng"),
            .moved(from: "Archive 2023/Summer Trip/a.jpg", to: "Archive 2023/Summer Trip/raw/a.jpg", isDirectory: false),
        ])
        #expect(watcher.watchedDirectoryCount == 4)
    }

    @Test func directoryMovedIntoItsSiblingKeepsItsWatches() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("a/inner")
        try tree.mkdir("b")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try tree.rename("a", "b/a")
        try tree.write("b/a/inner/x.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.moved(from: "a", to: "b/a", isDirectory: true), .fileChanged("b/a/inner/x.jpg")])
    }

    @Test func renameHalvesReadSeparatelyArePaired() async throws {
        // A 32-byte read buffer holds one event with a short name: every rename's halves come in two reads.
        let tree = try TemporaryTree()
        try tree.mkdir("d/e")
        try tree.write("a.jpg")
        var options = FolderWatchOptions()
        options.readBufferSize = 32
        let watcher = try FolderWatcher(root: tree.path, options: options)
        let recorder = EventRecorder(watcher)
        try tree.rename("a.jpg", "b.jpg")
        try tree.rename("d", "x")
        try tree.write("x/e/c.jpg")
        try tree.rename("b.jpg", "x/e/b.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [
            .moved(from: "a.jpg", to: "b.jpg", isDirectory: false),
            .moved(from: "d", to: "x", isDirectory: true),
            .fileChanged("x/e/c.jpg"),
            .moved(from: "b.jpg", to: "x/e/b.jpg", isDirectory: false),
        ])
        #expect(watcher.watchedDirectoryCount == 3)
    }

    @Test func deletingADirectoryRemovesItsWatches() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("d/e")
        try tree.write("d/e/a.jpg")
        try tree.write("d/b.jpg")
        let watcher = try FolderWatcher(root: tree.path)
        #expect(watcher.watchedDirectoryCount == 3)
        let recorder = EventRecorder(watcher)
        try tree.remove("d")
        let events = try await recorder.sync(tree)
        #expect(events.contains(.removed("d")))
        #expect(Set(events) == [.removed("d"), .removed("d/e"), .removed("d/e/a.jpg"), .removed("d/b.jpg")])
        #expect(watcher.watchedDirectoryCount == 1)
    }

    @Test func mkdirPThenAFileInTheDeepestDirectoryIsReported() async throws {
        let tree = try TemporaryTree()
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try tree.mkdir("a/b/c")
        #expect(await eventually { watcher.watchedDirectoryCount == 4 })
        try tree.write("a/b/c/x.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.contains(.fileChanged("a/b/c/x.jpg")))
        #expect(events.contains(.directoryAppeared("a")))
    }

    @Test func aFileWrittenRightAfterMkdirIsCoveredByTheDirectoryReport() async throws {
        // The file may be written before the new directories get their watches: then `.directoryAppeared` of
        // one of them, sent after the watches are added, makes a consumer scan that finds it.
        let tree = try TemporaryTree()
        let watcher = try FolderWatcher(root: tree.path)
        let mirror = MirrorConsumer(root: tree.path, isIgnored: { _, _ in false })
        let recorder = EventRecorder(watcher, consumer: { mirror.apply($0) })
        var expected = Set<String>()
        for round in 0..<30 {
            try tree.mkdir("r\(round)/b/c")
            try tree.write("r\(round)/b/c/x.jpg")
            expected.insert("r\(round)/b/c/x.jpg")
        }
        let events = try await recorder.sync(tree)
        #expect(mirror.snapshot.filter { !$0.hasPrefix("sentinel-") } == expected)
        for round in 0..<30 {
            #expect(events.contains(.directoryAppeared("r\(round)")))
        }
        #expect(watcher.watchedDirectoryCount == 91)
    }

    @Test func directoryMovedInFromOutsideAppearsWithItsWatches() async throws {
        let tree = try TemporaryTree()
        let outside = try TemporaryTree()
        try outside.mkdir("import/sub/deeper")
        try outside.write("import/sub/a.jpg")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try TemporaryTree.check(Glibc.rename(outside.absolute("import"), tree.absolute("import")), "rename")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.directoryAppeared("import")])
        #expect(watcher.watchedDirectoryCount == 4)
        try tree.write("import/sub/deeper/b.jpg")
        let later = await recorder.wait { $0.contains(.fileChanged("import/sub/deeper/b.jpg")) }
        #expect(later.contains(.fileChanged("import/sub/deeper/b.jpg")))
    }

    @Test func directoryMovedOutIsRemovedAndNoLongerWatched() async throws {
        let tree = try TemporaryTree()
        let outside = try TemporaryTree()
        try tree.mkdir("export/sub")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try TemporaryTree.check(Glibc.rename(tree.absolute("export"), outside.absolute("export")), "rename")
        // Written while the watcher still waits for a second half of the rename: not reported either.
        try outside.write("export/sub/early.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.removed("export")])
        #expect(watcher.watchedDirectoryCount == 1)
        try outside.write("export/sub/a.jpg")
        try outside.write("export/b.jpg")
        let after = try await recorder.sync(tree)
        #expect(after.collapsed == [.removed("export")])
    }

    @Test func fileMovedInAndOutIsAChangeAndARemoval() async throws {
        let tree = try TemporaryTree()
        let outside = try TemporaryTree()
        try outside.write("in.jpg")
        try tree.write("out.jpg")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try TemporaryTree.check(Glibc.rename(outside.absolute("in.jpg"), tree.absolute("in.jpg")), "rename")
        try TemporaryTree.check(Glibc.rename(tree.absolute("out.jpg"), outside.absolute("out.jpg")), "rename")
        try tree.write("after.jpg")
        let events = try await recorder.sync(tree)
        // The removal waits for its pair, but keeps its place before the later change.
        #expect(events.collapsed == [.fileChanged("in.jpg"), .removed("out.jpg"), .fileChanged("after.jpg")])
    }

    @Test func ignoredDirectoriesAreNeitherWatchedNorReported() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("@eaDir/thumbs")
        try tree.mkdir("photos/@eaDir")
        let options = FolderWatchOptions(isIgnored: { path, isDirectory in
            path.split(separator: "/").contains("@eaDir") || (!isDirectory && path.hasSuffix(".part"))
        })
        let watcher = try FolderWatcher(root: tree.path, options: options)
        #expect(watcher.watchedDirectoryCount == 2)
        let recorder = EventRecorder(watcher)
        try tree.write("@eaDir/thumbs/a.jpg")
        try tree.write("photos/@eaDir/b.jpg")
        try tree.mkdir("new/@eaDir/x")
        try tree.write("new/@eaDir/x/c.jpg")
        try tree.write("photos/d.jpg.part")
        try tree.write("photos/e.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.directoryAppeared("new"), .fileChanged("photos/e.jpg")])
        #expect(watcher.watchedDirectoryCount == 3)
    }

    @Test func renamingADirectoryAppliesTheRulesAtItsNewPlace() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("keep/cache")
        try tree.mkdir("skip/cache/deep")
        let options = FolderWatchOptions(isIgnored: { path, _ in path.hasPrefix("skip/cache") })
        let watcher = try FolderWatcher(root: tree.path, options: options)
        #expect(watcher.watchedDirectoryCount == 4)
        let recorder = EventRecorder(watcher)
        try tree.rename("skip", "other")
        try tree.rename("keep", "skip")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [
            .moved(from: "skip", to: "other", isDirectory: true),
            .directoryAppeared("other/cache"),
            .moved(from: "keep", to: "skip", isDirectory: true),
        ])
        // root, other, other/cache, other/cache/deep, skip (skip/cache is ignored now).
        #expect(watcher.watchedDirectoryCount == 5)
        try tree.write("other/cache/deep/a.jpg")
        try tree.write("skip/cache/b.jpg")
        let after = try await recorder.sync(tree)
        #expect(Array(after.dropFirst(events.count)).collapsed == [.fileChanged("other/cache/deep/a.jpg")])
    }
}
