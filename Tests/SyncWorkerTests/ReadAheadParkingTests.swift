import Foundation
import Testing

@testable import SyncWorker

/// ``ReadAhead``'s helpers, directly: they park while the readers are half a window ahead, and what the
/// engine takes is still every file, in order.
@Suite("Read-ahead helpers")
struct ReadAheadParkingTests {
    /// `count` distinct JPEG files in a new temporary directory, with their stamps; the directory.
    static func files(_ count: Int) throws -> (root: URL, files: [ReadAhead.Candidate]) {
        let root = FileManager.default.temporaryDirectory.appending(path: "read-ahead-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        var files: [ReadAhead.Candidate] = []
        for index in 0..<count {
            let path = "\(index).jpg"
            try Data(Media.jpeg(index)).write(to: root.appending(path: path))
            var status = stat()
            guard stat(root.appending(path: path).path, &status) == 0 else { throw CocoaError(.fileReadUnknown) }
            files.append((path, FileStamp(status)))
        }
        return (root, files)
    }

    static func readAhead(_ files: [ReadAhead.Candidate], root: URL, readers: Int, window: Int) -> ReadAhead {
        ReadAhead(files: files, root: root.path, timeZone: .gmt, openFileQuiet: nil, readers: readers, window: window)
    }

    @Test("With the engine not taking, the first reader fills the window and the helpers park; then every file comes out, in order")
    func helpersParkWhileAhead() async throws {
        let (root, files) = try Self.files(40)
        defer { try? FileManager.default.removeItem(at: root) }
        let readAhead = Self.readAhead(files, root: root, readers: 3, window: 8)
        defer { readAhead.stop() }
        #expect(await eventually { readAhead.filesStarted == 8 }, "the window never filled: \(readAhead.filesStarted) started")
        #expect(await eventually { readAhead.parkedHelpers == 2 }, "\(readAhead.parkedHelpers) of 2 helpers parked")
        var paths: [String] = []
        while let outcome = readAhead.next() {
            guard case .hashed(let hashed) = outcome else {
                Issue.record("not hashed: \(outcome)")
                continue
            }
            paths.append(hashed.path)
        }
        #expect(paths == files.map(\.path))
    }

    @Test("Stopping wakes the parked helpers: every reader ends")
    func stopWakesParkedHelpers() async throws {
        let (root, files) = try Self.files(30)
        defer { try? FileManager.default.removeItem(at: root) }
        let readAhead = Self.readAhead(files, root: root, readers: 4, window: 6)
        #expect(await eventually { readAhead.parkedHelpers == 3 })
        _ = readAhead.next()
        // `stop()` waits for every reader to end: a helper left parked would keep it waiting for ever. It runs on
        // a thread of its own, so that such a failure shows as a failed expectation rather than a hung run.
        let stopped = DispatchSemaphore(value: 0)
        Thread {
            readAhead.stop()
            stopped.signal()
        }.start()
        #expect(stopped.wait(timeout: .now() + 60) == .success, "stop() still waits after 60 s: a helper stayed parked")
    }
}
