import Foundation
import PhotoLibrary
import Synchronization
import FolderWatch
import Testing

@testable import SyncWorker

/// A watcher whose events wait until the test resumes it (``FolderWatchOptions/holdsEventsUntilResumed``).
final class HeldWatcher: Sendable {
    let watcher = Mutex<FolderWatcher?>(nil)

    func resume() { watcher.withLock { $0?.resumeReading() } }
}

/// Files a watch round finds gone are held while paths pending when they vanished are still to come.
// SQLite only: the subject is files still being written in the folder; the library's storage plays no part
// that the scan, model-based and watch suites don't run on both engines.
@Suite("Sync worker: files held by the watcher")
struct HeldFilesTests {
    @Test("A file moved out of the tree and back in elsewhere, inside one settle window: the same asset (its removal waits for the arrival)")
    func outAndBackIn() async throws {
        let box = try Sandbox()
        box.write("a.jpg", Media.jpeg(1))
        box.write("b.jpg", Media.jpeg(2))
        let outside = box.base.appending(path: "outside.jpg").path
        // A settle window far wider than the gap: on a starved machine the test's 400 ms sleep stretched past a
        // 1 s window (the run took 37 s), and a file outside the tree for longer than the window is rightly gone.
        let mirror = try box.mirror { $0.settleInterval = .seconds(3) }
        try await whileWatching(mirror) {
            try await mirror.sync()
            let before = try box.assetsByPath().mapValues(\.localIdentifier)
            let token = try box.library.currentChangeToken
            #expect(rename(box.path("a.jpg"), outside) == 0)
            try await Task.sleep(for: .milliseconds(400))  // the gap under test: out, then back in
            try FileManager.default.createDirectory(at: box.root.appending(path: "Back"), withIntermediateDirectories: true)
            #expect(rename(outside, box.path("Back/a.jpg")) == 0)
            let reached = try await eventually { try box.mirrorsPaths(["Back/a.jpg", "b.jpg"]) }
            #expect(reached)
            try await mirror.sync()
            #expect(try box.assetsByPath()["Back/a.jpg"]?.localIdentifier == before["a.jpg"])
            let journal = try AssetJournal(box.library, since: token)
            #expect(journal.deleted.isEmpty && journal.inserted.isEmpty, "\(journal)")
        }
    }

    /// A mirror whose watcher holds its events until resumed, with a sync cookie written into the root once the
    /// watch exists and before the initial scan walks: the scan meets the cookie and records it, while the
    /// cookie's event is still to come (what a barrier asked for while the initial scan starts looks like).
    static func mirrorMeetingACookie(_ box: Sandbox, settle: Duration, heldFileLimit: Duration? = nil) throws -> (
        FolderMirror, cookie: String, watcher: HeldWatcher
    ) {
        let cookie = DiskWalker.cookiePrefix + UUID().uuidString
        let watcher = HeldWatcher()
        var hooks = FolderMirror.WatchHooks()
        hooks.configure = { $0.holdsEventsUntilResumed = true }
        hooks.started = { [root = box.root.path] started in
            watcher.watcher.withLock { $0 = started }
            #expect(FileManager.default.createFile(atPath: root + "/" + cookie, contents: nil))
        }
        var options = FolderMirrorOptions()
        options.settleInterval = settle
        if let heldFileLimit { options.heldFileLimit = heldFileLimit }
        return (try FolderMirror(library: box.library, root: box.root, options: options, hooks: hooks), cookie, watcher)
    }

    @Test("A cookie the initial scan already recorded is no barrier when its event comes: a file moved out and back in after it keeps its identity")
    func cookieMetByTheScanIsNoBarrier() async throws {
        let box = try Sandbox()
        box.write("a.jpg", Media.jpeg(1))
        box.write("b.jpg", Media.jpeg(2))
        let (mirror, cookie, watcher) = try Self.mirrorMeetingACookie(box, settle: .seconds(3))
        try await whileWatching(mirror) {
            #expect(try await box.library.waitForMirrorSyncCookie(cookie, rootPath: mirror.root.path, timeout: .seconds(60)))
            let before = try box.assetsByPath().mapValues(\.localIdentifier)
            let token = try box.library.currentChangeToken
            let outside = box.base.appending(path: "outside.jpg").path
            #expect(rename(box.path("a.jpg"), outside) == 0)
            // The cookie's event and the move out come together: a barrier would judge a.jpg gone at once.
            watcher.resume()
            try await Task.sleep(for: .milliseconds(400))  // the gap under test: out, then back in
            try FileManager.default.createDirectory(at: box.root.appending(path: "Back"), withIntermediateDirectories: true)
            #expect(rename(outside, box.path("Back/a.jpg")) == 0)
            #expect(try await eventually { try box.mirrorsPaths(["Back/a.jpg", "b.jpg"]) })
            try await mirror.sync()
            #expect(try box.assetsByPath()["Back/a.jpg"]?.localIdentifier == before["a.jpg"])
            let journal = try AssetJournal(box.library, since: token)
            #expect(journal.deleted.isEmpty && journal.inserted.isEmpty, "\(journal)")
        }
    }

    @Test("A deletion is not held for ever: committed once nothing pending can claim it")
    func deletionCommitted() async throws {
        let box = try Sandbox()
        box.write("a.jpg", Media.jpeg(1))
        box.write("b.jpg", Media.jpeg(2))
        let mirror = try box.mirror { $0.settleInterval = .milliseconds(200) }
        try await whileWatching(mirror) {
            try await mirror.sync()
            box.remove("a.jpg")
            // No barrier: the watcher's own rounds commit it, once nothing pending can claim it — well before the
            // hold's upper bound (10 s here), which only perpetual activity elsewhere reaches.
            #expect(try await eventually(timeout: .seconds(8)) { try box.mirrorsPaths(["b.jpg"]) })
        }
    }

    @Test("Deletions held over several rounds count together in the mass-deletion check when they are released")
    func heldDeletionsCountTogether() async throws {
        let box = try Sandbox()
        for index in 0..<20 { box.write("p\(index).jpg", Media.jpeg(index)) }
        let log = EventLog()
        let mirror = try box.mirror {
            $0.settleInterval = .milliseconds(200)
            // Under load the rounds below can stretch past the default bound (10 s), which would release the
            // deletions one batch at a time: what is under test is that they count together.
            $0.heldFileLimit = .seconds(120)
        }
        try await whileWatching(mirror, log: log) {
            try await mirror.sync()
            // A writer keeps a file open (pending) while photos are deleted, five at a time, a round apart.
            let writer = try #require(FileHandle(forWritingAtPath: { box.write("slow.jpg", []); return box.path("slow.jpg") }()))
            try writer.write(contentsOf: Data(Media.jpeg(100)))
            for batch in 0..<3 {
                for index in (batch * 5)..<(batch * 5 + 5) { box.remove("p\(index).jpg") }
                try await Task.sleep(for: .milliseconds(400))  // the gap under test: each batch has its own round
            }
            // The last batch's round must have held its deletions before the writer closes its file, or they come
            // as a round of their own after the release (seen once on a loaded machine: 10, then 5). Nothing
            // outside the engine shows what it holds, so the watcher is given time for that round.
            try await Task.sleep(for: .milliseconds(1_200))
            #expect(try box.assets().count == 20, "deleted while the writer's file was pending")
            try writer.close()
            let refused = await eventually {
                log.events.withLock { $0.contains { if case .massDeletionRefused(15, 20) = $0 { true } else { false } } }
            }
            #expect(refused, "\(log.events.withLock { $0 })")
            #expect(try box.assets().count >= 20)
        }
    }

    @Test("A renamed file whose new path stays busy past the hold's bound keeps its identity (the bound never releases a file still pending under its new name)")
    func renamedAndBusyPastTheBound() async throws {
        let box = try Sandbox()
        box.write("a.jpg", Media.jpeg(1))
        box.write("b.jpg", Media.jpeg(2))
        let mirror = try box.mirror {
            $0.settleInterval = .milliseconds(300)
            $0.heldFileLimit = .seconds(1)  // what a starved machine's stretched rounds reach at the default bound
        }
        try await whileWatching(mirror) {
            try await mirror.sync()
            let before = try box.assetsByPath().mapValues(\.localIdentifier)
            let token = try box.library.currentChangeToken
            // Out of the tree and back in under another name (two events the kernel can't pair): the old path is
            // found gone and held while the new one is pending — and stays pending, touched within every settle
            // window, for three times the bound.
            let outside = box.base.appending(path: "outside.jpg").path
            #expect(rename(box.path("a.jpg"), outside) == 0)
            try await Task.sleep(for: .milliseconds(100))
            #expect(rename(outside, box.path("renamed.jpg")) == 0)
            let busyUntil = ContinuousClock.now + .seconds(3)
            while ContinuousClock.now < busyUntil {
                box.touch("renamed.jpg")
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(try await eventually { try box.mirrorsPaths(["renamed.jpg", "b.jpg"]) })
            try await mirror.sync()
            #expect(try box.assetsByPath()["renamed.jpg"]?.localIdentifier == before["a.jpg"])
            let journal = try AssetJournal(box.library, since: token)
            #expect(journal.deleted.isEmpty && journal.inserted.isEmpty, "\(journal)")
        }
    }
}
