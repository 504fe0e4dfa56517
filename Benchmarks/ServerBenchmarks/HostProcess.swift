import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The server under test: `ServerBenchmarkHost` in a process of its own, on a library.
final class HostProcess {
    let process = Process()
    let port: Int

    init(library: URL) throws {
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
            .appending(path: "ServerBenchmarkHost")
        process.executableURL = binary
        process.arguments = [library.path]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let byte = output.fileHandleForReading.readData(ofLength: 1)
            guard !byte.isEmpty else { throw HostFailed() }
            line += byte
        }
        port = Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The host's resident memory, in bytes (VmRSS).
    var residentBytes: Int {
        let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return (Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]) ?? 0) * 1024
        }
        return 0
    }

    /// The number of descriptors the host has open (its accepted connections among them).
    var openDescriptors: Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(process.processIdentifier)/fd").count) ?? 0
    }

    /// The CPU time the host has used so far (user and system, all its threads).
    var cpuTime: Duration { ProcessCPU.time(of: process.processIdentifier) }

    /// A metric of the host's `/metrics` (the sample without labels).
    func metric(_ name: String) -> Double? {
        let text = (try? SimpleHTTP.get(port: port, path: "/metrics").body) ?? ""
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") { return Double(line.split(separator: " ")[1]) }
        return nil
    }

    func stop() {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
    }

    struct HostFailed: Error {}
}

/// One blocking HTTP/1.1 request over a socket, `Connection: close` (for setup and control, not measured).
enum SimpleHTTP {
    struct Reply {
        let status: Int
        let headers: String
        let body: String
    }

    static func get(port: Int, path: String) throws -> Reply {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failed() }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw Failed() }
        let request = Array("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
        var data = [UInt8]()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count <= 0 { break }
            data += buffer[0..<count]
        }
        let text = String(decoding: data, as: UTF8.self)
        guard let split = text.range(of: "\r\n\r\n") else { throw Failed() }
        let head = String(text[..<split.lowerBound])
        let status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? 0
        var body = String(text[split.upperBound...])
        if head.lowercased().contains("transfer-encoding: chunked") { body = dechunk(body) }
        return Reply(status: status, headers: head, body: body)
    }

    private static func dechunk(_ text: String) -> String {
        var rest = Substring(text)
        var body = ""
        while let newline = rest.range(of: "\r\n"), let size = Int(rest[..<newline.lowerBound], radix: 16), size > 0 {
            let start = newline.upperBound
            let end = rest.utf8.index(start, offsetBy: size)
            body += rest[start..<end]
            rest = rest[end...].dropFirst(2)
        }
        return body
    }

    struct Failed: Error {}
}

/// CPU time used by processes, from `/proc/PID/stat` (clock ticks: a resolution of 10 ms) — what a figure
/// cost in CPU, which the load of other processes on the machine doesn't stretch as it stretches wall time.
enum ProcessCPU {
    /// User and system time of `pid` (every thread of it), or zero when it can't be read.
    static func time(of pid: Int32) -> Duration {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return .zero }
        // After "(comm)": state is field 3; utime and stime are fields 14 and 15.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { return .zero }
        return .milliseconds((user + system) * 1000 / sysconf(Int32(_SC_CLK_TCK)))
    }

    /// The CPU time of `pid` and of its living children (nginx's workers).
    static func timeWithChildren(of pid: Int32) -> Duration {
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return children.split(separator: " ").compactMap { Int32($0) }.reduce(time(of: pid)) { $0 + time(of: $1) }
    }

    /// The CPU time of this process's children that have ended and been waited for (wrk, once it has exited).
    static var reapedChildren: Duration {
        var usage = rusage()
        getrusage(Int32(RUSAGE_CHILDREN.rawValue), &usage)
        let total = usage.ru_utime.tv_sec + usage.ru_stime.tv_sec
        return .seconds(total) + .microseconds(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec)
    }

    /// This process's CPU time (the benchmark's clients).
    static var own: Duration { time(of: getpid()) }

    static func microseconds(_ duration: Duration) -> Int {
        Int(duration.components.seconds * 1_000_000 + duration.components.attoseconds / 1_000_000_000_000)
    }
}
