import FolderWatch
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Files: every way a file is created, changed, renamed or deleted ends in a report.
@Suite struct FileEventTests {
    @Test func createWriteCloseIsReported() async throws {
        let tree = try TemporaryTree()
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try tree.write("IMG_0001.jpg")
        let events = await recorder.wait { $0.contains(.fileChanged("IMG_0001.jpg")) }
        #expect(events.contains(.fileChanged("IMG_0001.jpg")))
    }

    @Test func editInPlaceIsReported() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("2024")
        try tree.write("2024/a.jpg", "before")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: tree.absolute("2024/a.jpg")))
        try handle.seek(toOffset: 2)
        try handle.write(contentsOf: Data("XY".utf8))
        try handle.close()
        let events = await recorder.wait { $0.contains(.fileClosed("2024/a.jpg")) }
        #expect(events == [.fileWritten("2024/a.jpg"), .fileClosed("2024/a.jpg")])
    }

    @Test func atomicSaveIsARenameOverTheFile() async throws {
        let tree = try TemporaryTree()
        try tree.write("a.jpg", "old")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try tree.write("a.jpg.tmp", "new")
        try tree.rename("a.jpg.tmp", "a.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.fileChanged("a.jpg.tmp"), .moved(from: "a.jpg.tmp", to: "a.jpg", isDirectory: false)])
    }

    @Test func atomicSaveThroughAnIgnoredTemporaryFileIsAChange() async throws {
        let tree = try TemporaryTree()
        try tree.write("a.jpg", "old")
        let watcher = try FolderWatcher(root: tree.path, options: FolderWatchOptions(isIgnored: { path, _ in path.hasSuffix(".tmp") }))
        let recorder = EventRecorder(watcher)
        try tree.write("a.jpg.tmp", "new")
        try tree.rename("a.jpg.tmp", "a.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.fileChanged("a.jpg")])
    }

    @Test func renameInTheSameFolderIsOneMove() async throws {
        let tree = try TemporaryTree()
        try tree.write("a.jpg")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try tree.rename("a.jpg", "b.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.moved(from: "a.jpg", to: "b.jpg", isDirectory: false)])
    }

    @Test func renameToAnIgnoredNameIsARemoval() async throws {
        let tree = try TemporaryTree()
        try tree.write("a.jpg")
        let watcher = try FolderWatcher(root: tree.path, options: FolderWatchOptions(isIgnored: { path, _ in path.hasSuffix("~") }))
        let recorder = EventRecorder(watcher)
        try tree.rename("a.jpg", "a.jpg~")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.removed("a.jpg")])
    }

    @Test func moveAcrossFoldersIsOneMove() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("x/deep")
        try tree.mkdir("y")
        try tree.write("x/deep/a.jpg")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try tree.rename("x/deep/a.jpg", "y/a.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.moved(from: "x/deep/a.jpg", to: "y/a.jpg", isDirectory: false)])
    }

    @Test func caseOnlyRenameIsAMove() async throws {
        let tree = try TemporaryTree()
        try tree.write("IMG_0001.JPG")
        try tree.mkdir("Trip")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try tree.rename("IMG_0001.JPG", "img_0001.jpg")
        try tree.rename("Trip", "trip")
        let events = try await recorder.sync(tree)
        // Under load the kernel may still report the file's creation (written just before the watch began);
        // what matters is that each rename is one paired move, never a removal and a creation.
        #expect(events.collapsed.filter { if case .fileChanged = $0 { false } else { true } } == [
            .moved(from: "IMG_0001.JPG", to: "img_0001.jpg", isDirectory: false),
            .moved(from: "Trip", to: "trip", isDirectory: true),
        ])
    }

    @Test func deleteIsReported() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("d")
        try tree.write("d/a.jpg")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try tree.remove("d/a.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.removed("d/a.jpg")])
    }

    @Test func hardLinkAndCopyAreReported() async throws {
        let tree = try TemporaryTree()
        try tree.write("a.jpg")
        try tree.mkdir("b")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try TemporaryTree.check(link(tree.absolute("a.jpg"), tree.absolute("b/link.jpg")), "link")
        try FileManager.default.copyItem(atPath: tree.absolute("a.jpg"), toPath: tree.absolute("b/copy.jpg"))
        let events = try await recorder.sync(tree)
        #expect(events.contains(.fileChanged("b/link.jpg")))
        #expect(events.contains(.fileChanged("b/copy.jpg")))
    }

    @Test func symbolicLinksAreReportedButNeverFollowed() async throws {
        let tree = try TemporaryTree()
        let outside = try TemporaryTree()
        try outside.mkdir("sub")
        try tree.mkdir("d")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try TemporaryTree.check(symlink(outside.path, tree.absolute("d/outside")), "symlink")
        try TemporaryTree.check(symlink(tree.path, tree.absolute("d/loop")), "symlink")
        _ = try await recorder.sync(tree)
        try outside.write("sub/x.jpg")
        let events = try await recorder.sync(tree)
        #expect(events.collapsed == [.fileChanged("d/outside"), .fileChanged("d/loop")])
        #expect(watcher.watchedDirectoryCount == 2)
    }
}
