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
        try runReporting(tool, arguments).succeeded
    }

    /// Runs mount(8) / umount(8): whether it succeeded, and what it wrote to its standard error (why it
    /// failed: "target is busy" names another process holding the mount).
    static func runReporting(_ tool: String, _ arguments: [String]) throws -> (succeeded: Bool, error: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/" + tool)
        process.arguments = arguments
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus == 0, String(decoding: output, as: UTF8.self))
    }

    /// Unmounts `path`, recording umount's own words and who holds the mount when it fails.
    static func unmount(_ path: String) throws -> Bool {
        let (succeeded, error) = try runReporting("umount", [path])
        if !succeeded {
            let holders = (try? runReporting("fuser", ["-vm", path]).error) ?? ""
            Issue.record("umount \(path) failed: \(error) \(holders)")
        }
        return succeeded
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
        #expect(try Self.unmount(tree.absolute("card")))
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
        #expect(try Self.unmount(tree.absolute("disk")))
        mounted = false
        #expect(await recorder.waitForEnd())
        #expect(recorder.events.last == .rootGone)
    }
}
