import Foundation
import PhotosyncWire
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One `photosync thumbnails --background` process started by the daemon, and how it ended.
///
/// A pre-render runs in a process of its own rather than in the daemon: its CPU and I/O priority can be
/// lowered for all of its threads (libvips' included) without touching the mirror's; the memory decoding
/// takes goes back to the system when it ends; and a decoder crashing on a hostile file can't take the
/// mirror down with it.
struct PrerenderChild {
    /// How a run ended.
    enum Outcome: Sendable {
        /// The run ended: its last state (finished, or interrupted by a signal it did not get from us).
        case ended(Wire.Prerender)
        /// The process failed: its error report (or what it wrote on stderr) and exit status.
        case failed(message: String, status: Int32)
        /// We stopped it (the daemon is stopping).
        case stopped
    }

    /// This executable, resolved once (an upgrade replacing the file then starts the new version).
    static let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()

    /// How long a child may take to stop after SIGTERM before it is killed.
    static let stopTimeout: Duration = .seconds(30)

    let arguments: [String]
    /// Variables set in the child's environment, over this process's.
    var environment: [String: String] = [:]

    /// Runs the child to its end. Cancelling the calling task sends it SIGTERM and waits for it to exit (it
    /// stops at once: renders under way are cancelled, and a rendition being written is finished).
    func run() async -> Outcome {
        let process = Process()
        process.executableURL = Self.executable
        // The child stops when this process is gone, however it went (``ParentLifeline``).
        process.arguments = arguments + [ParentLifeline.option]
        var environment = ProcessInfo.processInfo.environment.merging(self.environment) { _, new in new }
        // One libvips thread per render: with one render at a time, the pre-render takes at most one core.
        if environment["VIPS_CONCURRENCY"] == nil { environment["VIPS_CONCURRENCY"] = "1" }
        process.environment = environment
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        let lifeline = Pipe()
        process.standardInput = lifeline
        let exited = AsyncStream.makeStream(of: Int32.self)
        process.terminationHandler = { exited.continuation.yield($0.terminationStatus) }
        if Task.isCancelled { return .stopped }
        do { try process.run() } catch { return .failed(message: "can't start \(Self.executable.path): \(error)", status: -1) }
        let output = PipeReader(stdout), errors = PipeReader(stderr)
        let status = await Self.waitForExit(process, exited: exited.stream)
        withExtendedLifetime(lifeline) {}  // Its write end stays open while the child runs.
        return Self.outcome(status: status, stdout: output.finish(), stderr: errors.finish(), stopped: Task.isCancelled)
    }

    /// Waits for the exit; on cancellation, asks the child to stop (SIGTERM), then insists (SIGKILL).
    private static func waitForExit(_ process: Process, exited: AsyncStream<Int32>) async -> Int32 {
        let pid = process.processIdentifier
        let gone = ExitFlag()
        // A task of its own: the wait for the exit goes on when the caller is cancelled.
        let status = Task.detached {
            let status = await exited.first { _ in true } ?? -1
            gone.set()
            return status
        }
        return await withTaskCancellationHandler {
            await status.value
        } onCancel: {
            kill(pid, SIGTERM)
            Task.detached {
                try? await Task.sleep(for: stopTimeout)
                if !gone.isSet { kill(pid, SIGKILL) }
            }
        }
    }

    private static func outcome(status: Int32, stdout: Data, stderr: Data, stopped: Bool) -> Outcome {
        if stopped { return .stopped }
        if status == 0, let state = try? Wire.makeDecoder().decode(Wire.Prerender.self, from: stdout) { return .ended(state) }
        // The error report is the last line (log lines may come before it).
        let text = String(decoding: stderr, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let last = text.split(separator: "\n").last.map { Data($0.utf8) } ?? Data()
        let report = try? Wire.makeDecoder().decode(Wire.Error.self, from: last)
        return .failed(message: report?.message ?? (text.isEmpty ? "exit status \(status)" : text), status: status)
    }
}

/// Reads a pipe to its end on a thread of its own (a child filling a pipe nobody reads would block).
final class PipeReader: Sendable {
    private let data = Mutex(Data())
    private let done = DispatchSemaphore(value: 0)

    init(_ pipe: Pipe) {
        let handle = pipe.fileHandleForReading
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(handle.fileDescriptor, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                data.withLock { $0.append(contentsOf: buffer[0..<count]) }
            }
            done.signal()
        }
    }

    /// Everything read, once the writer closed the pipe.
    func finish() -> Data {
        done.wait()
        return data.withLock { $0 }
    }
}

/// Set once a child has exited: its pid must not be signalled after that.
private final class ExitFlag: Sendable {
    private let value = Atomic<Bool>(false)
    var isSet: Bool { value.load(ordering: .acquiring) }
    func set() { value.store(true, ordering: .releasing) }
}
