import Foundation
import PhotoLibrary
import Testing

@testable import SyncWorker

@Suite("Sync worker: safety")
struct SafetyTests {
    @Test("A missing root deletes nothing and throws rootMissing", arguments: LibraryEngine.both)
    func missingRoot(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        let mirror = try box.mirror()
        try await mirror.scan()
        try FileManager.default.moveItem(at: box.root, to: box.base.appending(path: "elsewhere"))
        await #expect { try await mirror.scan() } throws: { ($0 as? SyncError)?.kind == .rootMissing }
        #expect(try box.assets().count == 1)
    }

    @Test("An emptied root (an unmounted disk's empty mount point) deletes nothing and throws rootEmptied", arguments: LibraryEngine.both)
    func emptiedRoot(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for index in 0..<3 { box.write("d\(index)/p.jpg", Media.jpeg(index)) }
        let mirror = try box.mirror()
        try await mirror.scan()
        for index in 0..<3 { box.remove("d\(index)") }
        box.write("lost+found/readme.txt", Array("x".utf8))
        await #expect { try await mirror.scan() } throws: { ($0 as? SyncError)?.kind == .rootEmptied }
        #expect(try box.assets().count == 3)
        #expect(try box.albumTree().count == 3)
    }

    @Test("A pass deleting more than the allowed share stops without deleting; allowMassDeletion confirms", arguments: LibraryEngine.both)
    func massDeletion(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for index in 0..<20 { box.write("p\(index).jpg", Media.jpeg(index)) }
        try await box.mirror().scan()
        for index in 0..<15 { box.remove("p\(index).jpg") }
        box.write("new.jpg", Media.jpeg(100))
        await #expect { try await box.mirror().scan() } throws: {
            ($0 as? SyncError)?.kind == .massDeletionRefused(wouldDelete: 15, mirrored: 20, limit: 10)
        }
        // Inserts went through; nothing was deleted.
        #expect(try box.assets().count == 21)
        let summary = try await box.mirror { $0.allowMassDeletion = true }.scan()
        #expect(summary.deleted == 15)
        #expect(try box.assets().count == 6)
    }

    @Test("Commits come in batches of at most batchFileLimit files, each a transaction by the mirror's author", arguments: LibraryEngine.both)
    func batches(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for index in 0..<7 { box.write("p\(index).jpg", Media.jpeg(index)) }
        let token = try box.library.currentChangeToken
        let summary = try await box.mirror { $0.batchFileLimit = 3 }.scan()
        #expect(summary.batches == 3)
        let changes = Array(try box.library.fetchPersistentChanges(since: token))
        #expect(changes.count == 3)
        #expect(changes.allSatisfy { $0.author == "photosync" })
        #expect(try box.library.fetchMirrorRoot(path: box.root.path)?.lastScanSummary?.contains("\"inserted\":7") == true)
    }
}

/// Runs a command; whether it succeeded.
func runCommand(_ executable: String, _ arguments: [String]) -> Bool {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}

@Suite("Sync worker: unmounted roots", .enabled(if: getuid() == 0, "mounting a tmpfs needs root"))
struct MountTests {
    @Test("A root now on another device (a disk mounted over the mount point) deletes nothing; acceptRootDeviceChange confirms", arguments: LibraryEngine.both)
    func rootOnAnotherDevice(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for index in 0..<3 { box.write("p\(index).jpg", Media.jpeg(index)) }
        try await box.mirror().scan()
        try #require(runCommand("/usr/bin/mount", ["-t", "tmpfs", "none", box.root.path]))
        defer { _ = runCommand("/usr/bin/umount", [box.root.path]) }
        box.write("other.jpg", Media.jpeg(99))  // not empty, but another device
        await #expect { try await box.mirror().scan() } throws: { ($0 as? SyncError)?.kind == .rootEmptied }
        #expect(try box.assets().count == 3)
        let summary = try await box.mirror { $0.acceptRootDeviceChange = true; $0.allowMassDeletion = true }.scan()
        #expect(summary.inserted == 1 && summary.deleted == 3)
    }

    @Test("Unmounting a watched root stops the watch with rootMissing and deletes nothing", arguments: LibraryEngine.both)
    func unmountWhileWatching(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        try #require(runCommand("/usr/bin/mount", ["-t", "tmpfs", "none", box.root.path]))
        var mounted = true
        defer { if mounted { _ = runCommand("/usr/bin/umount", [box.root.path]) } }
        box.write("a.jpg", Media.jpeg(1))
        let mirror = try box.mirror()
        let log = EventLog()
        let task = Task { try await mirror.watch(onEvent: { log.add($0) }) }
        await eventually(timeout: .seconds(20)) { mirror.watching.withLock { $0 } > 0 }
        try await mirror.sync()
        #expect(try box.assets().count == 1)
        #expect(runCommand("/usr/bin/umount", [box.root.path]))
        mounted = false
        let result = await task.result
        #expect(throws: SyncError.self) { try result.get() }
        #expect(log.events.withLock { $0.contains { if case .rootUnavailable = $0 { true } else { false } } })
        #expect(try box.assets().count == 1)
    }
}
