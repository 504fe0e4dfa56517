import FolderWatch
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Unmounting below the root or at the root. Needs root (to mount a tmpfs); skipped otherwise.
@Suite(.enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct MountTests {
    /// Runs mount(8) / umount(8); false when they fail (a container without the capability).
    static func run(_ tool: String, _ arguments: [String]) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/" + tool)
        process.arguments = arguments
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    @Test func unmountBelowTheRootAsksForARescanAndWatchesWhatIsUnderneath() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("card")
        guard try Self.run("mount", ["-t", "tmpfs", "none", tree.absolute("card")]) else { return }
        var mounted = true
        defer { if mounted { _ = try? Self.run("umount", [tree.absolute("card")]) } }
        try tree.mkdir("card/DCIM/100")
        let watcher = try FolderWatcher(root: tree.path)
        #expect(watcher.watchedDirectoryCount == 4)
        let recorder = EventRecorder(watcher)
        #expect(try Self.run("umount", [tree.absolute("card")]))
        mounted = false
        let events = await recorder.wait { $0.contains { if case .rescanNeeded("card", _) = $0 { true } else { false } } }
        #expect(events.contains { if case .rescanNeeded("card", _) = $0 { true } else { false } })
        #expect(await eventually { watcher.watchedDirectoryCount == 2 })
        try tree.write("card/underneath.jpg")
        let later = await recorder.wait { $0.contains(.fileChanged("card/underneath.jpg")) }
        #expect(later.contains(.fileChanged("card/underneath.jpg")))
    }

    @Test func unmountingTheRootIsRootGone() async throws {
        let tree = try TemporaryTree()
        try tree.mkdir("disk")
        guard try Self.run("mount", ["-t", "tmpfs", "none", tree.absolute("disk")]) else { return }
        var mounted = true
        defer { if mounted { _ = try? Self.run("umount", [tree.absolute("disk")]) } }
        try tree.mkdir("disk/photos")
        let watcher = try FolderWatcher(root: tree.absolute("disk"))
        let recorder = EventRecorder(watcher)
        #expect(try Self.run("umount", [tree.absolute("disk")]))
        mounted = false
        #expect(await recorder.waitForEnd())
        #expect(recorder.events.last == .rootGone)
    }
}
