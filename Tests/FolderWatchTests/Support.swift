import FolderWatch
import Foundation
import LibraryTestSupport
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A temporary folder tree for one test, removed at the end.
final class TemporaryTree: Sendable {
    let url: URL
    var path: String { url.path }

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "folder-watch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    func absolute(_ relative: String) -> String { relative.isEmpty ? path : path + "/" + relative }

    /// Creates (or truncates), writes and closes a file, as most programs save.
    func write(_ relative: String, _ text: String = "content") throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: absolute(relative)))
    }

    func mkdir(_ relative: String) throws {
        try FileManager.default.createDirectory(atPath: absolute(relative), withIntermediateDirectories: true)
    }

    /// rename(2), inside the tree.
    func rename(_ from: String, _ to: String) throws {
        try Self.check(Glibc.rename(absolute(from), absolute(to)), "rename \(from) \(to)")
    }

    func remove(_ relative: String) throws {
        try FileManager.default.removeItem(atPath: absolute(relative))
    }

    static func check(_ result: Int32, _ what: String) throws {
        if result != 0 { throw POSIXFailure(what: what, code: errno) }
    }
}

struct POSIXFailure: Error, CustomStringConvertible {
    let what: String
    let code: Int32
    var description: String { "\(what): \(String(cString: strerror(code)))" }
}

/// Drains a watcher's events in the background, so a test can wait for the events it expects.
final class EventRecorder: Sendable {
    private let box = StateBox()
    private let task: Task<Void, Never>

    /// Starts draining; `consumer`, when given, sees every event as it arrives, before it is recorded.
    ///
    /// The draining runs on a queue of its own, not on the cooperative pool: the suites it runs beside hold
    /// the pool's threads for seconds at a time, and a recorder waiting its turn fell behind the events a
    /// test waited for (a CI rehearsal: 15,521 events of 16,384 drained in 120 s).
    init(_ watcher: FolderWatcher, consumer: (@Sendable (FolderWatchEvent) -> Void)? = nil) {
        let box = self.box
        task = Task(executorPreference: QueueExecutor(label: "tests.event-recorder")) { [events = watcher.events] in
            for await event in events {
                consumer?(event)
                box.append(event)
            }
            box.finish()
        }
    }

    deinit { task.cancel() }

    var events: [FolderWatchEvent] { box.snapshot.events }
    var isFinished: Bool { box.snapshot.finished }

    /// Waits until `predicate` holds for the events received so far (or the stream ended and it still does
    /// not hold, or 10 s passed). Returns the events; the caller asserts on them.
    @discardableResult
    func wait(
        timeout: Duration = .seconds(10), until predicate: ([FolderWatchEvent]) -> Bool
    ) async -> [FolderWatchEvent] {
        let deadline = ContinuousClock.now + timeout
        while true {
            let (events, finished) = box.snapshot
            if predicate(events) || finished || ContinuousClock.now >= deadline { return events }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Waits until the stream has ended (or 10 s passed).
    func waitForEnd() async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while !isFinished && ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(5))
        }
        return isFinished
    }

    /// A barrier: writes a new file at the root and waits until its event arrives. Every change made before
    /// the call has been reported by then (one inotify queue, kernel order). Returns the events before it.
    func sync(_ tree: TemporaryTree) async throws -> [FolderWatchEvent] {
        let name = "sentinel-\(UUID().uuidString)"
        try tree.write(name)
        // Generous: the whole suite runs in parallel on two cores, and the reader thread may wait its turn.
        let events = await wait(timeout: .seconds(60)) { $0.contains(.fileChanged(name)) }
        #expect(events.contains(.fileChanged(name)), "the sentinel file was not reported")
        return events.prefix { $0 != .fileChanged(name) }.filter { event in
            switch event {
            case .fileChanged(let path), .fileWritten(let path), .fileClosed(let path), .removed(let path):
                !path.hasPrefix("sentinel-")
            default:
                true
            }
        }
    }

    private final class StateBox: Sendable {
        private struct State {
            var events: [FolderWatchEvent] = []
            var finished = false
        }

        private let state = Mutex(State())
        func append(_ event: FolderWatchEvent) { state.withLock { $0.events.append(event) } }
        func finish() { state.withLock { $0.finished = true } }
        var snapshot: (events: [FolderWatchEvent], finished: Bool) { state.withLock { ($0.events, $0.finished) } }
    }
}

/// Waits until `condition` holds (or 10 s passed); returns whether it holds.
func eventually(_ condition: () -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while !condition() {
        if ContinuousClock.now >= deadline { return false }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return true
}

extension FolderWatchEvent {
    /// The path of a file event (changed, written, closed).
    var filePath: String? {
        switch self {
        case .fileChanged(let path), .fileWritten(let path), .fileClosed(let path): path
        default: nil
        }
    }
}

extension Array<FolderWatchEvent> {
    /// The events with each run of file events about one path (created, written, closed, changed) merged into
    /// one `.fileChanged`: how a program writes a file decides how many of them come, and in which reads.
    var collapsed: [FolderWatchEvent] {
        var result: [FolderWatchEvent] = []
        for event in self {
            guard let path = event.filePath else {
                result.append(event)
                continue
            }
            if result.last == .fileChanged(path) { continue }
            result.append(.fileChanged(path))
        }
        return result
    }
}
