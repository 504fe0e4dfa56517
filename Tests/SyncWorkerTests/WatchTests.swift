import FolderWatch
import Foundation
import PhotoLibrary
import Synchronization
import Testing

@testable import SyncWorker

/// Collects a watching mirror's events.
final class EventLog: Sendable {
    let events = Mutex<[MirrorEvent]>([])
    func add(_ event: MirrorEvent) { events.withLock { $0.append(event) } }
    var rescans: [String] {
        events.withLock { $0.compactMap { if case .rescanStarted(let reason) = $0 { reason } else { nil } } }
    }
}

/// Runs `mirror.watch` in a task until the body returns, then cancels it and waits for it to return.
func whileWatching(
    _ mirror: FolderMirror, log: EventLog = EventLog(), _ body: () async throws -> Void
) async throws {
    let task = Task { try await mirror.watch(onEvent: { log.add($0) }) }
    // The watch loop is up once it counts itself (its initial scan may still run: the barrier waits for it).
    // (Bounded, in case the watch fails to start: the task's error is then reported below.)
    await eventually(timeout: .seconds(20)) { mirror.watching.withLock { $0 } > 0 }
    do {
        try await body()
    } catch {
        task.cancel()
        _ = await task.result
        throw error
    }
    task.cancel()
    try await task.value
}

@Suite("Sync worker: watch")
struct WatchTests {
    @Test("Changes made while watching are in the library once sync() returns: creates, edits, renames, directory renames, deletes", arguments: LibraryEngine.both)
    func watchWithBarrier(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("Trip/a.jpg", Media.jpeg(1))
        box.write("Trip/b.jpg", Media.jpeg(2))
        let mirror = try box.mirror { $0.settleInterval = .milliseconds(200) }
        try await whileWatching(mirror) {
            try await mirror.sync()
            try box.expectMirrors(["Trip/a.jpg": Media.jpeg(1), "Trip/b.jpg": Media.jpeg(2)])
            let before = try box.assetsByPath()
            let album = try #require(try box.library.fetchAssetCollections(with: .album).firstObject)

            box.write("Trip/c.jpg", Media.jpeg(3))
            box.append("Trip/a.jpg", [7])
            box.move("Trip/b.jpg", "Trip/B.jpg")
            try await mirror.sync()
            try box.expectMirrors(["Trip/a.jpg": Media.jpeg(1) + [7], "Trip/B.jpg": Media.jpeg(2), "Trip/c.jpg": Media.jpeg(3)])
            var after = try box.assetsByPath()
            #expect(after["Trip/a.jpg"]?.localIdentifier == before["Trip/a.jpg"]?.localIdentifier)
            #expect(after["Trip/B.jpg"]?.localIdentifier == before["Trip/b.jpg"]?.localIdentifier)

            box.move("Trip", "Journey")
            try await mirror.sync()
            after = try box.assetsByPath()
            #expect(after["Journey/B.jpg"]?.localIdentifier == before["Trip/b.jpg"]?.localIdentifier)
            let renamed = try #require(try box.library.fetchAssetCollections(with: .album).firstObject)
            #expect(renamed.localIdentifier == album.localIdentifier)
            #expect(renamed.localizedTitle == "Journey")

            box.remove("Journey/c.jpg")
            box.write("Journey/Sub/d.png", Media.pngImage(4))
            try await mirror.sync()
            try box.expectMirrors(["Journey/a.jpg": Media.jpeg(1) + [7], "Journey/B.jpg": Media.jpeg(2), "Journey/Sub/d.png": Media.pngImage(4)])
            #expect(try box.albumTree() == ["folder Journey", "  album Journey: a.jpg B.jpg", "  album Sub: d.png"])
        }
        // Cookie files are never imported, and are removed once processed.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: box.root.path).filter { $0.hasPrefix(".photosync-sync-") }
        #expect(leftovers.isEmpty)
    }

    @Test("requestSync from another handle (the path another process takes) waits for the watcher; without one it times out", arguments: LibraryEngine.both)
    func crossProcessBarrier(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        let mirror = try box.mirror { $0.settleInterval = .milliseconds(200) }
        let other = try box.openAnother()
        try await whileWatching(mirror) {
            box.write("x.jpg", Media.jpeg(1))
            try await FolderMirror.requestSync(library: other, root: box.root, timeout: .seconds(60))
            #expect(try other.fetchAssets().count == 1)
        }
        await #expect { try await FolderMirror.requestSync(library: other, root: box.root, timeout: .milliseconds(100)) } throws: {
            ($0 as? SyncError)?.kind == .syncTimedOut
        }
    }

    @Test("A queue overflow loses events; the mirror rescans and still converges", arguments: LibraryEngine.both)
    func overflowRescan(engine: LibraryEngine) async throws {
        let limit = try #require((try? String(contentsOfFile: "/proc/sys/fs/inotify/max_queued_events", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
        try #require(limit <= 1_000_000)
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        box.write("b.jpg", Media.jpeg(2))
        let watcher = Mutex<FolderWatcher?>(nil)
        var hooks = FolderMirror.WatchHooks()
        hooks.configure = { $0.holdsEventsUntilResumed = true }
        hooks.started = { started in watcher.withLock { $0 = started } }
        var options = FolderMirrorOptions()
        options.settleInterval = .milliseconds(100)
        let mirror = try FolderMirror(library: box.library, root: box.root, options: options, hooks: hooks)
        let log = EventLog()
        try await whileWatching(mirror, log: log) {
            // The overflow needs the watcher's queue in place: under load the watch loop can count itself
            // late, and a chmod before it would overflow nothing.
            try #require(await eventually(timeout: .seconds(120)) { watcher.withLock { $0 != nil } })
            let paths = [box.path("a.jpg"), box.path("b.jpg")]
            for index in 0...(limit + 10) { chmod(paths[index % 2], index % 4 < 2 ? 0o644 : 0o600) }
            box.write("lost/c.jpg", Media.jpeg(3))  // its events are lost with the overflow
            watcher.withLock { $0?.resumeReading() }
            // (The barrier's cookie may be met by the initial scan, before the overflow is read: wait for the rescan.)
            #expect(await eventually { log.rescans.contains { $0.contains("max_queued_events") } })
            try await mirror.sync()
            try box.expectMirrors(["a.jpg": Media.jpeg(1), "b.jpg": Media.jpeg(2), "lost/c.jpg": Media.jpeg(3)])
        }
    }

    @Test("Cancelling the watch returns normally with everything committed so far", arguments: LibraryEngine.both)
    func cancellation(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        let mirror = try box.mirror()
        try await whileWatching(mirror) { try await mirror.sync() }
        #expect(try box.assets().count == 1)
        #expect(mirror.watching.withLock { $0 } == 0)
    }
}

@Suite("Sync worker: watch limits")
struct WatchLimitTests {
    @Test("An exhausted watch limit is reported once; periodic rescans find changes in unwatched folders", arguments: LibraryEngine.both)
    func watchLimit(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for (index, name) in ["a", "b", "c"].enumerated() { box.write("\(name)/x.jpg", Media.jpeg(index)) }
        var hooks = FolderMirror.WatchHooks()
        hooks.configure = { $0.maximumWatchCount = 2 }
        var options = FolderMirrorOptions()
        options.rescanInterval = .milliseconds(300)
        let mirror = try FolderMirror(library: box.library, root: box.root, options: options, hooks: hooks)
        let log = EventLog()
        try await whileWatching(mirror, log: log) {
            try await mirror.sync()
            let token = try box.library.currentChangeToken
            for (index, name) in ["a", "b", "c"].enumerated() { box.write("\(name)/new.jpg", Media.jpeg(10 + index)) }
            // Whatever is not watched is found by a periodic rescan: wait (bounded) until all three are in.
            let deadline = ContinuousClock.now + .seconds(60)
            while try box.assets().count < 6 && ContinuousClock.now < deadline {
                _ = try await box.library.waitForChanges(after: token, timeout: .seconds(1))
            }
            #expect(try box.assets().count == 6)
        }
        let limits = log.events.withLock { $0.filter { if case .watchLimitReached = $0 { true } else { false } } }
        #expect(limits.count == 1)
        #expect(log.rescans.contains("periodic rescan"))
    }
}
