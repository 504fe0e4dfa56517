import FolderWatch
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Starting, stopping, losing the root, running out of watches, and overflowing the kernel's queue.
@Suite struct LifecycleTests {
    @Test func missingRootIsATypedError() throws {
        let tree = try TemporaryTree()
        let error = #expect(throws: FolderWatchError.self) {
            try FolderWatcher(root: tree.absolute("nope"))
        }
        #expect(error?.kind == .rootMissing)
        #expect(error?.errno == ENOENT)
    }

    @Test func fileRootIsATypedError() throws {
        let tree = try TemporaryTree()
        try tree.write("file.jpg")
        let error = #expect(throws: FolderWatchError.self) {
            try FolderWatcher(root: tree.absolute("file.jpg"))
        }
        #expect(error?.kind == .notADirectory)
    }

    @Test func rootThroughASymbolicLinkIsWatchedAtItsTarget() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("real/sub")
        try TemporaryTree.check(symlink(tree.absolute("real"), tree.absolute("link")), "symlink")
        let watcher = try FolderWatcher(root: tree.absolute("link"))
        #expect(watcher.root == tree.url.resolvingSymlinksInPath().path + "/real")
        #expect(watcher.watchedDirectoryCount == 2)
        let recorder = EventRecorder(watcher)
        try tree.write("real/sub/a.jpg")
        let events = await recorder.wait { $0.contains(.fileChanged("sub/a.jpg")) }
        #expect(events.collapsed == [.fileChanged("sub/a.jpg")])
    }

    @Test func stopEndsTheStreamAndIsIdempotent() async throws {
        let tree = try TemporaryTree()
        let watcher = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(watcher)
        try tree.write("a.jpg")
        _ = await recorder.wait { $0.contains(.fileChanged("a.jpg")) }
        watcher.stop()
        watcher.stop()
        #expect(await recorder.waitForEnd())
        #expect(await eventually { watcher.watchedDirectoryCount == 0 })
        #expect(recorder.events.collapsed == [.fileChanged("a.jpg")])
    }

    @Test func cancellingTheConsumerStopsTheWatcher() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("sub")
        let watcher = try FolderWatcher(root: tree.path)
        #expect(watcher.watchedDirectoryCount == 2)
        let consumer = Task { [events = watcher.events] in
            for await _ in events {}
        }
        consumer.cancel()
        await consumer.value
        #expect(await eventually { watcher.watchedDirectoryCount == 0 })
    }

    @Test func releasingTheWatcherEndsTheStream() async throws {
        let tree = try TemporaryTree()
        var watcher: FolderWatcher? = try FolderWatcher(root: tree.path)
        let recorder = EventRecorder(try #require(watcher))
        watcher = nil
        #expect(await recorder.waitForEnd())
    }

    @Test func rootDeletedIsRootGoneAndTheEnd() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("root/sub")
        try tree.write("root/sub/a.jpg")
        let watcher = try FolderWatcher(root: tree.absolute("root"))
        let recorder = EventRecorder(watcher)
        try tree.remove("root")
        #expect(await recorder.waitForEnd())
        let events = recorder.events
        #expect(events.last == .rootGone)
        #expect(events.filter { $0 == .rootGone }.count == 1)
        #expect(Set(events.dropLast()).isSubset(of: [.removed("sub/a.jpg"), .removed("sub")]))
    }

    @Test func rootMovedAwayIsRootGone() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("root")
        let watcher = try FolderWatcher(root: tree.absolute("root"))
        let recorder = EventRecorder(watcher)
        try tree.rename("root", "elsewhere")
        #expect(await recorder.waitForEnd())
        #expect(recorder.events == [.rootGone])
    }

    @Test func maximumWatchCountIsReportedOnce() async throws {
        let tree = try TemporaryTree()
        for name in ["a", "b", "c", "d", "e"] { try tree.mkdir(name) }
        let watcher = try FolderWatcher(root: tree.path, options: FolderWatchOptions(maximumWatchCount: 3))
        #expect(watcher.watchedDirectoryCount == 3)
        let recorder = EventRecorder(watcher)
        try tree.mkdir("f")
        try tree.mkdir("g/h")
        let events = try await recorder.sync(tree)
        let limits = events.filter { if case .watchLimitReached = $0 { true } else { false } }
        #expect(limits.count == 1)
        guard case .watchLimitReached(let watched, let message) = limits.first else { return }
        #expect(watched == 3)
        #expect(message.contains("maximum of 3"))
        #expect(message.contains("fs.inotify.max_user_watches"))
        #expect(events.first == limits.first)
        #expect(watcher.watchedDirectoryCount == 3)
        #expect(!events.contains(.directoryAppeared("f")))
        // New folders past the limit are reported for one scan.
        #expect(events.contains { if case .rescanNeeded("f", _) = $0 { true } else { false } })
        #expect(events.contains { if case .rescanNeeded("g", _) = $0 { true } else { false } })
    }

    @Test func kernelLimitAdviceNamesTheSysctlAndHowToKeepIt() {
        let advice = FolderWatcher.kernelWatchLimitAdvice
        #expect(advice.contains("sudo sysctl fs.inotify.max_user_watches="))
        #expect(advice.contains("/etc/sysctl.d/"))
        if let current = try? String(contentsOfFile: "/proc/sys/fs/inotify/max_user_watches", encoding: .utf8) {
            #expect(advice.contains("is \(current.trimmingCharacters(in: .whitespacesAndNewlines));"))
        }
    }

    /// The kernel's queue holds fs.inotify.max_queued_events events; the watcher is told not to read, the
    /// queue is filled past that (attribute changes alternating between two files, so the kernel cannot merge
    /// them), and a folder is created meanwhile: its creation is lost with the overflow.
    @Test(.enabled(if: queuedEventLimit.map { $0 <= 4_000_000 } ?? false))
    func overflowRewatchesTheTreeAndAsksForAFullRescan() async throws {
        let limit = try #require(queuedEventLimit)
        let tree = try TemporaryTree()
        try tree.mkdir("gone/sub")
        try tree.write("a.jpg")
        try tree.write("b.jpg")
        var options = FolderWatchOptions()
        options.holdsEventsUntilResumed = true
        let watcher = try FolderWatcher(root: tree.path, options: options)
        #expect(watcher.watchedDirectoryCount == 3)
        let recorder = EventRecorder(watcher)
        let paths = [tree.absolute("a.jpg"), tree.absolute("b.jpg")]
        for index in 0...(limit + 10) {
            try TemporaryTree.check(chmod(paths[index % 2], index % 4 < 2 ? 0o644 : 0o600), "chmod")
        }
        try tree.mkdir("late/inner")
        try tree.remove("gone")
        watcher.resumeReading()
        // The overflow marker comes after the whole queue (16,384 events by default): on a loaded machine the
        // reader can take well over the usual 10 s to get there.
        let events = await recorder.wait(timeout: .seconds(120)) {
            $0.contains { if case .rescanNeeded("", _) = $0 { true } else { false } }
        }
        let overflow = events.first { if case .rescanNeeded = $0 { true } else { false } }
        guard case .rescanNeeded(let path, let reason) = overflow else {
            Issue.record("no rescanNeeded after \(events.count) events")
            return
        }
        #expect(path == "")
        #expect(reason.contains("max_queued_events"))
        #expect(events.count <= limit + 1)
        // The watches were rebuilt: the folder created during the overflow is watched, the deleted one is not.
        #expect(watcher.watchedDirectoryCount == 3)
        try tree.write("late/inner/c.jpg")
        let after = await recorder.wait { $0.contains(.fileChanged("late/inner/c.jpg")) }
        #expect(after.contains(.fileChanged("late/inner/c.jpg")))
    }
}

let queuedEventLimit: Int? = (try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
    .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
