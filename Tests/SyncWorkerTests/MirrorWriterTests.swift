import Foundation
import LibraryTestSupport
import PhotoLibrary
import Synchronization
import Testing

@testable import SyncWorker

#if canImport(Glibc)
import Glibc
#endif

/// The built `photosync watch`, mirroring a sandbox's folder into its library from another process.
final class DaemonProcess {
    let process = Process()
    let log: URL

    static var binary: URL {
        URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent().appending(path: "photosync")
    }

    init(_ box: Sandbox) throws {
        log = box.base.appending(path: "daemon-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        process.executableURL = Self.binary
        process.arguments = ["watch", box.root.path, "--settle", "0.1"]
        var environment = ProcessInfo.processInfo.environment
        environment["PHOTOSYNC_LIBRARY"] = box.library.url.path
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
    }

    var pid: Int32 { process.processIdentifier }
    var logText: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Waits (at most two minutes: a loaded machine starts a debug binary slowly) until the daemon holds the
    /// library's mirror writer lock; its holder record.
    func waitUntilWriting(_ box: Sandbox) async throws -> MirrorWriterLock.Holder {
        let deadline = ContinuousClock.now + .seconds(120)
        while process.isRunning {
            // Looked at once more after the deadline: a starved task may wake only then.
            if let holder = MirrorWriterLock.currentHolder(libraryURL: box.library.url), holder.pid == pid { return holder }
            if ContinuousClock.now >= deadline { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("the daemon did not take the lock: \(logText)")
        throw CancellationError()
    }

    /// SIGTERM, then the exit status.
    func stop() -> Int32 {
        if process.isRunning { kill(pid, SIGTERM) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    deinit {
        if process.isRunning {
            kill(pid, SIGKILL)
            process.waitUntilExit()
        }
    }
}

/// Whether `error` is a refusal naming `holder`'s process and mode.
func isBusy(_ error: any Error, pid: Int32, mode: String, root: String) -> Bool {
    guard let error = error as? SyncError, case .mirrorWriterBusy(let holder) = error.kind else { return false }
    return holder.pid == pid && holder.mode == mode && holder.root == root && error.message.contains("pid \(pid)")
}

// Serialized: a pass held at its progress report blocks its thread (Gate.wait), and this machine's cooperative
// pool may have two threads: two such tests at once would starve every other task until the gates time out.
@Suite("Sync worker: one mirror writer per library", .serialized)
struct MirrorWriterTests {
    // SQLite only: the daemon is the built `photosync`, whose `PHOTOSYNC_LIBRARY` names a SQLite library's
    // directory; writers of one PostgreSQL library are excluded by the database (writersOnTwoMachines).
    @Test("An app's scan while photosync watch mirrors the library in another process refuses, naming the daemon; sync() goes through the daemon; a waiting scan runs once the daemon stops")
    func daemonInAnotherProcess() async throws {
        let box = try Sandbox()
        var files: [String: [UInt8]] = [:]
        for index in 0..<6 {
            files["d\(index % 2)/p\(index).jpg"] = Media.jpeg(index)
            box.write("d\(index % 2)/p\(index).jpg", Media.jpeg(index))
        }
        let daemon = try DaemonProcess(box)
        let holder = try await daemon.waitUntilWriting(box)
        #expect(holder.mode == "watch" && holder.root == box.root.path)

        // Files keep arriving while the app tries to scan: every scan refuses, nothing is written by the app.
        let mirror = try box.mirror()
        for round in 0..<4 {
            files["new\(round).jpg"] = Media.jpeg(100 + round)
            box.write("new\(round).jpg", Media.jpeg(100 + round))
            await #expect { try await mirror.scan() } throws: {
                isBusy($0, pid: daemon.pid, mode: "watch", root: box.root.path)
            }
        }
        // A mirror of another root of the same library is refused too: one writer per library.
        let elsewhere = box.base.appending(path: "Elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        await #expect { try await FolderMirror(library: box.library, root: elsewhere).scan() } throws: {
            isBusy($0, pid: daemon.pid, mode: "watch", root: box.root.path)
        }
        // The barrier is the daemon's cookie, not a scan of this process.
        try await mirror.sync()
        try box.expectMirrors(files)
        #expect(try box.assets().count == files.count)

        // An app that waits: its scan runs once the daemon is gone.
        let waiting = try box.mirror { $0.mirrorWriterWait = .seconds(120) }
        files["late.jpg"] = Media.jpeg(200)
        box.write("late.jpg", Media.jpeg(200))
        let scan = Task { try await waiting.scan() }
        #expect(daemon.stop() == 0, "\(daemon.logText)")
        _ = try await scan.value
        try box.expectMirrors(files)
        #expect(try box.assets().count == files.count)
        #expect(MirrorWriterLock.currentHolder(libraryURL: box.library.url) == nil)
    }

    @Test("Two mirrors in one process exclude each other; one mirror's scan during its own watch shares its lock", arguments: LibraryEngine.both)
    func twoMirrorsInOneProcess(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        let watcher = try box.mirror { $0.settleInterval = .milliseconds(100) }
        // A second handle on the same library, as another part of an app would open.
        let otherHandle = try box.openAnother()
        let other = try FolderMirror(library: otherHandle, root: box.root)
        try await whileWatching(watcher) {
            await #expect { try await other.scan() } throws: {
                isBusy($0, pid: getpid(), mode: "watch", root: box.root.path)
            }
            // (Bounded: a second watch that is not refused would run until cancelled.)
            let ended = Mutex<SyncError??>(nil)
            let secondWatch = Task {
                do throws(SyncError) { try await other.watch() } catch { ended.withLock { $0 = .some(error) } }
                ended.withLock { if $0 == nil { $0 = .some(nil) } }
            }
            let deadline = ContinuousClock.now + .seconds(30)
            while ContinuousClock.now < deadline && ended.withLock({ $0 }) == nil && other.watching.withLock({ $0 }) == 0 {
                try await Task.sleep(for: .milliseconds(5))
            }
            let outcome = try #require(ended.withLock { $0 }, "a second watch runs beside the first")
            #expect(outcome.map { isBusy($0, pid: getpid(), mode: "watch", root: box.root.path) } == true)
            secondWatch.cancel()
            _ = await secondWatch.result
            // The watcher's own scan joins its lock (its engine serialises the two) rather than deadlocking.
            box.write("b.jpg", Media.jpeg(2))
            try await watcher.scan()
            // The other mirror's barrier goes through the watcher.
            box.write("c.jpg", Media.jpeg(3))
            try await other.sync()
            try box.expectMirrors(["a.jpg": Media.jpeg(1), "b.jpg": Media.jpeg(2), "c.jpg": Media.jpeg(3)])
        }
        // Released when the watch returns.
        #expect(MirrorWriterLock.currentHolder(libraryURL: box.library.url) == nil)
        box.write("d.jpg", Media.jpeg(4))
        let summary = try await other.scan()
        #expect(summary.inserted == 1)
        #expect(try box.assets().count == 4)
    }

    @Test("A scan while another mirror of the process scans refuses at once, or waits its turn: never two writers at once", arguments: LibraryEngine.both)
    func concurrentScans(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        for index in 0..<10 { box.write("p\(index).jpg", Media.jpeg(index)) }
        let first = try box.mirror()
        let second = try FolderMirror(library: try box.openAnother(), root: box.root)
        let patient = try FolderMirror(library: box.library, root: box.root, options: {
            var options = FolderMirrorOptions()
            options.mirrorWriterWait = .seconds(120)
            return options
        }())
        let held = Gate()
        let release = Gate()
        let patientWriting = Gate()
        // The first scan stops at its first progress report (after its walk) until released.
        let firstScan = Task {
            try await first.scan { _ in
                held.open()
                release.wait()
            }
        }
        try await held.waitAsync()
        await #expect { try await second.scan() } throws: { isBusy($0, pid: getpid(), mode: "scan", root: box.root.path) }
        // A patient scan waits: it tries, finds the lock held, and only writes once the first scan is done.
        let patientScan = Task { try await patient.scan { _ in patientWriting.open() } }
        let deadline = ContinuousClock.now + .seconds(60)
        while patient.writer.refusals < 2 && !patientWriting.isOpen && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(!patientWriting.isOpen, "the patient scan wrote while the first one held the library")
        release.open()
        let summaries = try await (firstScan.value, patientScan.value)
        #expect(summaries.0.inserted == 10 && summaries.1.inserted == 0)
        try box.expectMirrors((0..<10).reduce(into: [:]) { $0["p\($1).jpg"] = Media.jpeg($1) })
        #expect(try box.assets().count == 10)
    }

    @Test("On PostgreSQL, writers on two machines — one database, each machine its own library directory and lock file — exclude each other through the database")
    func writersOnTwoMachines() async throws {
        let box = try Sandbox(engine: .postgres)
        for index in 0..<10 { box.write("p\(index).jpg", Media.jpeg(index)) }
        // The other machine: the same database, the library's directory elsewhere (a flock there excludes nobody here).
        let otherMachine = try box.engine.open(box.base.appending(path: "Other machine/Library.photosync"), database: box.database)
        let first = try box.mirror()
        let second = try FolderMirror(library: otherMachine, root: box.root)
        let held = Gate()
        let release = Gate()
        let firstScan = Task {
            try await first.scan { _ in
                held.open()
                release.wait()
            }
        }
        try await held.waitAsync()
        await #expect {
            try await second.scan()
        } throws: { error in
            guard let error = error as? SyncError, case .mirrorWriterBusy = error.kind else { return false }
            return true
        }
        release.open()
        #expect(try await firstScan.value.inserted == 10)
        // Released with the first pass: the other machine writes now, and finds everything mirrored.
        let summary = try await second.scan()
        #expect(summary.inserted == 0 && summary.unchanged == 10)
        try box.expectMirrors((0..<10).reduce(into: [:]) { $0["p\($1).jpg"] = Media.jpeg($1) })
    }
}

/// A one-shot gate between a test and a pass's callback (which runs synchronously on the pass's task).
final class Gate: Sendable {
    private let state = Mutex(false)
    private let semaphore = DispatchSemaphore(value: 0)

    var isOpen: Bool { state.withLock { $0 } }

    func open() {
        let opened = state.withLock { state in
            defer { state = true }
            return !state
        }
        if opened { semaphore.signal() }
    }

    /// Blocks until open (at most a minute: a test never hangs).
    func wait() {
        if !isOpen { _ = semaphore.wait(timeout: .now() + 60) }
        semaphore.signal()
    }

    func waitAsync() async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while !isOpen && ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(5)) }
        try #require(isOpen)
    }
}
