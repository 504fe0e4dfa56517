import Foundation
import LibraryTestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Other processes: the `LibraryWriter` test executable and the built `photosync` binary, next to the tests.
enum Processes {
    static var products: URL { URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent() }
    static var writer: URL { products.appending(path: "LibraryWriter") }
    static var photosync: URL {
        if let other = ProcessInfo.processInfo.environment["PHOTOSYNC_TEST_BINARY"], !other.isEmpty { return URL(fileURLWithPath: other) }
        return products.appending(path: "photosync")
    }

    /// A started process and what it writes.
    final class Running: Sendable {
        let process: Process
        let stdout: Collector
        let stderr: Collector

        init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
            process = Process()
            process.executableURL = executable
            process.arguments = arguments
            var variables = ProcessInfo.processInfo.environment
            variables.merge(environment) { _, new in new }
            process.environment = variables
            let out = Pipe(), err = Pipe()
            process.standardOutput = out
            process.standardError = err
            process.standardInput = FileHandle.nullDevice
            try process.run()
            stdout = Collector(out)
            stderr = Collector(err)
        }

        func signal(_ number: Int32) { kill(process.processIdentifier, number) }

        /// Waits for the exit (blocking a thread of its own, not the cooperative pool); its status.
        func exitStatus() async -> Int32 { await process.exitStatus() }
    }

    /// Runs a program to its end.
    static func run(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) async throws -> (status: Int32, stdout: String, stderr: String) {
        let running = try Running(executable, arguments, environment: environment)
        let status = await running.exitStatus()
        return (status, running.stdout.finish(), running.stderr.finish())
    }

    /// Reads a pipe on a thread of its own, collecting what arrives.
    final class Collector: Sendable {
        private let data = Mutex(Data())
        private let done = DispatchGroup()

        init(_ pipe: Pipe) {
            done.enter()
            let descriptor = pipe.fileHandleForReading.fileDescriptor
            DispatchQueue.global().async {
                var buffer = [UInt8](repeating: 0, count: 65_536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                    if count < 0 && errno == EINTR { continue }
                    if count <= 0 { break }
                    self.data.withLock { $0.append(contentsOf: buffer[0..<count]) }
                }
                self.done.leave()
            }
        }

        var text: String { data.withLock { String(decoding: $0, as: UTF8.self) } }

        func finish() -> String {
            done.wait()
            return text
        }
    }
}
