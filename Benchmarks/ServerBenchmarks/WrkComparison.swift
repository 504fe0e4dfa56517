import Benchmark
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// wrk against the host and against nginx serving the same bytes as static files, in the same run.
enum WrkComparison {
    static let duration = "8s"
    static let connections = "64"

    static func run(_ benchmark: Benchmark) async throws {
        ServerFixture.raiseDescriptorLimit()
        let library = try await ServerFixture.library()
        let host = try HostProcess(library: library.url)
        defer { host.stop() }
        // The three resources: a changes page, an original, a thumbnail (rendered once: then cached).
        let earliest = try library.historyStatus().oldestValidToken.stringValue
        let changesPath = "/v1/changes?since=\(earliest)"
        let asset = try library.fetchAssets().object(at: 0)
        let id = asset.localIdentifier.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? asset.localIdentifier
        let originalPath = "/v1/assets/\(id)/original"
        let redirect = try SimpleHTTP.get(port: host.port, path: "/v1/assets/\(id)/thumbnail?size=256")
        guard let location = redirect.headers.split(separator: "\r\n").first(where: { $0.lowercased().hasPrefix("location:") })
            .map({ String($0.dropFirst("location:".count)).trimmingCharacters(in: .whitespaces) })
        else { throw HostProcess.HostFailed() }
        let thumbnail = try Data(contentsOf: try renditionFile(library: library.url, url: location, port: host.port))
        // nginx serves the same bytes.
        let nginx = try Nginx(files: [
            "changes.json": Data(try SimpleHTTP.get(port: host.port, path: changesPath).body.utf8),
            "original.jpg": try Data(contentsOf: asset.fileURL(in: library) ?? URL(fileURLWithPath: "/nonexistent")),
            "thumbnail.jpg": thumbnail,
        ])
        defer { nginx.stop() }
        benchmark.startMeasurement()
        for (name, ours, theirs) in [("changes", changesPath, "/changes.json"), ("original", originalPath, "/original.jpg"),
                                     ("thumbnail", location, "/thumbnail.jpg")]
        {
            let server = try measure("http://127.0.0.1:\(host.port)\(ours)") { host.cpuTime }
            let reference = try measure("http://127.0.0.1:\(nginx.port)\(theirs)") { nginx.cpuTime }
            report(name, server, reference, benchmark)
        }
        benchmark.stopMeasurement()
    }

    /// The rendition's bytes as served (fetched once through the API, written to a file for nginx).
    private static func renditionFile(library: URL, url: String, port: Int) throws -> URL {
        let file = library.appending(path: "thumbnail-for-nginx.jpg")
        // The body of an image is binary: fetch it with curl, which writes bytes as they are.
        let curl = Process()
        curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        curl.arguments = ["-sf", "-o", file.path, "http://127.0.0.1:\(port)\(url)"]
        try curl.run()
        curl.waitUntilExit()
        guard curl.terminationStatus == 0 else { throw HostProcess.HostFailed() }
        return file
    }

    /// One wrk run against a server, and the CPU time the server used meanwhile.
    struct Run {
        let requestsPerSecond: Double
        let requests: Int
        let serverCPU: Duration
        /// wrk's own CPU time: when it nears the wall time × the cores, the client is the bottleneck.
        let clientCPU: Duration

        /// The server's CPU time per request, in microseconds.
        var cpuPerRequest: Double { Double(ProcessCPU.microseconds(serverCPU)) / Double(max(requests, 1)) }
    }

    private static func measure(_ url: String, cpu: () -> Duration) throws -> Run {
        let (start, clientStart) = (cpu(), ProcessCPU.reapedChildren)
        let (rate, requests) = try wrk(url)
        return Run(requestsPerSecond: rate, requests: requests, serverCPU: cpu() - start, clientCPU: ProcessCPU.reapedChildren - clientStart)
    }

    private static func report(_ name: String, _ server: Run, _ reference: Run, _ benchmark: Benchmark) {
        let ratio = server.requestsPerSecond / reference.requestsPerSecond
        benchmark.measurement(ServerMetric.requests(name, "photosync"), Int(server.requestsPerSecond))
        benchmark.measurement(ServerMetric.requests(name, "nginx"), Int(reference.requestsPerSecond))
        benchmark.measurement(ServerMetric.ratio(name), Int(ratio * 1000))
        benchmark.measurement(ServerMetric.cpuPerRequest(name, "photosync"), Int(server.cpuPerRequest * 1000))
        benchmark.measurement(ServerMetric.cpuPerRequest(name, "nginx"), Int(reference.cpuPerRequest * 1000))
        print("""
            \(name): photosync \(Int(server.requestsPerSecond)) req/s, nginx \(Int(reference.requestsPerSecond)) req/s, \
            ratio \(String(format: "%.2f", ratio)); server CPU per request: photosync \(String(format: "%.1f", server.cpuPerRequest)) µs, \
            nginx \(String(format: "%.1f", reference.cpuPerRequest)) µs (ratio \(String(format: "%.2f", reference.cpuPerRequest / server.cpuPerRequest))); \
            wrk's CPU \(server.clientCPU) and \(reference.clientCPU) in \(duration) each; \
            load average \(ServerFixture.loadAverage)
            """)
    }

    /// Requests per second and requests of one wrk run.
    static func wrk(_ url: String) throws -> (Double, Int) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/wrk")
        process.arguments = ["-t2", "-c\(connections)", "-d\(duration)", url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        let lines = text.split(separator: "\n")
        if let errors = lines.first(where: { $0.contains("Non-2xx") || $0.contains("Socket errors") }) { print("wrk \(url): \(errors)") }
        let rate = lines.first { $0.hasPrefix("Requests/sec:") }.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
        // "  123456 requests in 8.00s, 1.23GB read"
        let requests = lines.first { $0.contains(" requests in ") }.flatMap { Int($0.split(separator: " ").first ?? "") } ?? 0
        return (rate, requests)
    }
}

/// nginx serving files from a temporary directory, two workers (the machine's cores), sendfile on.
final class Nginx {
    let process = Process()
    let port: Int
    let prefix: URL

    init(files: [String: Data]) throws {
        prefix = FileManager.default.temporaryDirectory.appending(path: "photosync-nginx-\(UUID().uuidString)")
        let root = prefix.appending(path: "www")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: prefix.appending(path: "logs"), withIntermediateDirectories: true)
        for (name, data) in files { try data.write(to: root.appending(path: name)) }
        port = Int.random(in: 20_000...29_999)
        let configuration = """
            daemon off;
            worker_processes 2;
            pid \(prefix.path)/nginx.pid;
            error_log \(prefix.path)/logs/error.log;
            events { worker_connections 4096; }
            http {
                access_log off;
                sendfile on;
                tcp_nopush on;
                types { application/json json; image/jpeg jpg; }
                server {
                    listen 127.0.0.1:\(port);
                    root \(root.path);
                    etag on;
                }
            }
            """
        try configuration.write(to: prefix.appending(path: "nginx.conf"), atomically: true, encoding: .utf8)
        process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
        process.arguments = ["-p", prefix.path, "-c", prefix.appending(path: "nginx.conf").path]
        try process.run()
        guard ServerFixture.waitUntil(seconds: 10, { (try? SimpleHTTP.get(port: port, path: "/changes.json").status) == 200 }) else {
            throw HostProcess.HostFailed()
        }
    }

    /// The CPU time of nginx's master and workers.
    var cpuTime: Duration { ProcessCPU.timeWithChildren(of: process.processIdentifier) }

    func stop() {
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        try? FileManager.default.removeItem(at: prefix)
    }
}
