import FolderWatch
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Writes and closes are reported apart, so a consumer can tell a file still being written from a finished one;
/// markers say when everything before them has been received.
@Suite struct WriteEventTests {
    @Test func aWriterThatHoldsItsFileOpenIsReportedWritingUntilItCloses() async throws {
        let tree = try TemporaryTree()
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        let descriptor = open(tree.absolute("big.jpg"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        var chunk = [UInt8](repeating: 1, count: 4096)
        #expect(write(descriptor, &chunk, chunk.count) == chunk.count)
        let written = await recorder.wait { $0.contains(.fileWritten("big.jpg")) }
        #expect(written.contains(.fileWritten("big.jpg")))
        #expect(!written.contains(.fileClosed("big.jpg")), "reported closed while still open")
        close(descriptor)
        let closed = await recorder.wait { $0.contains(.fileClosed("big.jpg")) }
        #expect(closed == [.fileChanged("big.jpg"), .fileWritten("big.jpg"), .fileClosed("big.jpg")])
    }

    @Test func manyWritesToOneFileAreReportedAtMostOncePerInterval() async throws {
        let tree = try TemporaryTree()
        try tree.write("other.jpg")
        var options = FolderWatchOptions()
        options.writeReportInterval = .seconds(60)
        let watcher = try FolderWatcher(root: tree.path, options: options)
        let recorder = EventRecorder(watcher)
        let descriptor = open(tree.absolute("big.jpg"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        try #require(descriptor >= 0)
        var chunk = [UInt8](repeating: 1, count: 512)
        for index in 0..<100 {
            #expect(write(descriptor, &chunk, chunk.count) == chunk.count)
            // An event about another file between two writes: the kernel cannot merge the two IN_MODIFY.
            #expect(chmod(tree.absolute("other.jpg"), index % 2 == 0 ? 0o600 : 0o644) == 0)
        }
        #expect(chmod(tree.absolute("big.jpg"), 0o600) == 0)  // another event about it: the next write is reported again
        #expect(write(descriptor, &chunk, chunk.count) == chunk.count)
        close(descriptor)
        let events = await recorder.wait { $0.contains(.fileClosed("big.jpg")) }.filter { $0.filePath == "big.jpg" }
        #expect(events == [
            .fileChanged("big.jpg"), .fileWritten("big.jpg"), .fileChanged("big.jpg"), .fileWritten("big.jpg"),
            .fileClosed("big.jpg"),
        ])
    }

    @Test func aMarkerComesAfterEveryEventBeforeIt() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("d")
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        for round in 1...20 {
            try tree.write("d/\(round).jpg")
            try tree.rename("d/\(round).jpg", "d/r\(round).jpg")
            let marker = watcher.requestMarker()
            #expect(marker == UInt64(round))
            let events = await recorder.wait { $0.contains(.marker(marker)) }
            let before = events.prefix { $0 != .marker(marker) }
            #expect(before.contains(.moved(from: "d/\(round).jpg", to: "d/r\(round).jpg", isDirectory: false)), "round \(round)")
        }
    }

    @Test func aMarkerWaitsForARenameThatLeftTheTree() async throws {
        let tree = try TemporaryTree()
        let outside = try TemporaryTree()
        try tree.write("a.jpg")
        var options = FolderWatchOptions()
        options.moveGracePeriod = .milliseconds(200)
        let watcher = try FolderWatcher(root: tree.path, options: options)
        let recorder = EventRecorder(watcher)
        try TemporaryTree.check(Glibc.rename(tree.absolute("a.jpg"), outside.absolute("a.jpg")), "rename out")
        let marker = watcher.requestMarker()
        let events = await recorder.wait { $0.contains(.marker(marker)) }
        #expect(events == [.removed("a.jpg"), .marker(marker)])
    }
}
