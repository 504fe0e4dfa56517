// Benchmarks of the HTTP API (issue 14), on loopback, bounded:
//  - 10,000 long-polls and 10,000 event streams waiting on one server: after a commit (by this process, through
//    the library: the path another process takes), how soon each one is answered (p50, p99, max), and the
//    server's memory per waiting client (its resident memory with them waiting, minus before, over 10,000);
//  - wrk throughput of `GET /v1/changes` (no wait), of a cached original and of a cached thumbnail, each
//    against nginx serving the same bytes as static files in the same run (goal ≥ 0.5× nginx).
// The server runs in a process of its own (ServerBenchmarkHost). Run on a quiet machine, and note the load
// average with every figure: `cd Benchmarks && swift package --disable-sandbox benchmark --target ServerBenchmarks`.
import Benchmark
import Foundation
import PhotoLibrary
#if canImport(Glibc)
import Glibc
#endif

/// The setup every benchmark shares: a library with photos, the host serving it.
enum ServerFixture {
    static let clients = 10_000

    static func raiseDescriptorLimit() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// A library of the repository's sample photos, copied in (originals in the library's store).
    static func library() async throws -> PhotoLibrary {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-server-benchmark-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Samples")
        let library = try PhotoLibrary(url: directory.appending(path: "Library.photosync"))
        let files = ["Family/IMG_2001.jpg", "Family/IMG_2002.jpg", "Holidays/IMG_0090.jpg"].map { samples.appending(path: $0) }
        try await library.performChanges(author: "benchmark") {
            for file in files {
                let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: file)
                request.mediaType = .image
                request.uniformTypeIdentifier = "public.jpeg"
            }
        }
        return library
    }

    /// Waits until `condition` holds, polling every 100 ms, for at most `seconds`.
    static func waitUntil(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            usleep(100_000)
        }
        return condition()
    }

    static var loadAverage: String {
        ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
    }
}

/// The figures the benchmarks report (custom metrics must be declared in a benchmark's configuration).
enum ServerMetric {
    static let answered = BenchmarkMetric.custom("answered", polarity: .prefersLarger, useScalingFactor: false)
    static let p0 = BenchmarkMetric.custom("min wake-up (µs)", useScalingFactor: false)
    static let p50 = BenchmarkMetric.custom("p50 wake-up (µs)", useScalingFactor: false)
    static let p99 = BenchmarkMetric.custom("p99 wake-up (µs)", useScalingFactor: false)
    static let max = BenchmarkMetric.custom("max wake-up (µs)", useScalingFactor: false)
    static let bytesPerClient = BenchmarkMetric.custom("server bytes per waiting client", useScalingFactor: false)
    static let bytesPerConnection = BenchmarkMetric.custom("server bytes per idle connection", useScalingFactor: false)
    static let serverCPU = BenchmarkMetric.custom("server CPU to answer all (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let clientCPU = BenchmarkMetric.custom("clients' CPU meanwhile (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    static let wakeUp = [answered, p0, p50, p99, max, bytesPerClient, serverCPU, clientCPU]

    static func requests(_ resource: String, _ server: String) -> BenchmarkMetric {
        .custom("\(resource): \(server) req/s", polarity: .prefersLarger, useScalingFactor: false)
    }

    static func ratio(_ resource: String) -> BenchmarkMetric {
        .custom("\(resource): ratio to nginx ×1000", polarity: .prefersLarger, useScalingFactor: false)
    }

    /// The server's CPU time per request during the wrk run, in nanoseconds.
    static func cpuPerRequest(_ resource: String, _ server: String) -> BenchmarkMetric {
        .custom("\(resource): \(server) CPU ns/request", polarity: .prefersSmaller, useScalingFactor: false)
    }

    static let throughput = ["changes", "original", "thumbnail"].flatMap {
        [requests($0, "photosync"), requests($0, "nginx"), ratio($0), cpuPerRequest($0, "photosync"), cpuPerRequest($0, "nginx")]
    }
}

/// 10,000 waiting clients of one kind: connected, counted by the server as waiting, then one commit.
func measureWakeUp(_ benchmark: Benchmark, stream: Bool) async throws {
    ServerFixture.raiseDescriptorLimit()
    let library = try await ServerFixture.library()
    let host = try HostProcess(library: library.url)
    defer { host.stop() }
    let token = try library.currentChangeToken.stringValue
    _ = try SimpleHTTP.get(port: host.port, path: "/v1/changes?since=\(token)")  // Warm up.
    let before = host.residentBytes
    let clients = WaitingClients(count: ServerFixture.clients)
    let path = stream ? "/v1/changes/stream?since=\(token)" : "/v1/changes?since=\(token)&wait=55"
    try await clients.connect(
        port: host.port, request: "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        marker: stream ? "event: change" : "\"changes\":[{")
    let gauge = stream ? "photosync_sse_clients" : "photosync_longpoll_waiting"
    guard ServerFixture.waitUntil(seconds: 120, { host.metric(gauge) == Double(ServerFixture.clients) }) else {
        print("only \(host.metric(gauge) ?? 0) of \(ServerFixture.clients) clients waiting")
        return
    }
    let waiting = host.residentBytes
    let (serverStart, clientStart) = (host.cpuTime, ProcessCPU.own)
    benchmark.startMeasurement()
    try await library.performChanges(author: "benchmark") { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Now") }
    let committed = ContinuousClock.now
    _ = ServerFixture.waitUntil(seconds: 60) { clients.arrivedCount == ServerFixture.clients }
    benchmark.stopMeasurement()
    let (serverCPU, clientCPU) = (host.cpuTime - serverStart, ProcessCPU.own - clientStart)
    let delays = clients.delays(since: committed)
    await clients.closeAll()
    let microseconds = ProcessCPU.microseconds
    benchmark.measurement(ServerMetric.answered, delays.count)
    if !delays.isEmpty {
        benchmark.measurement(ServerMetric.p0, microseconds(delays[0]))
        benchmark.measurement(ServerMetric.p50, microseconds(delays[delays.count / 2]))
        benchmark.measurement(ServerMetric.p99, microseconds(delays[delays.count * 99 / 100]))
        benchmark.measurement(ServerMetric.max, microseconds(delays[delays.count - 1]))
    }
    benchmark.measurement(ServerMetric.bytesPerClient, (waiting - before) / ServerFixture.clients)
    benchmark.measurement(ServerMetric.serverCPU, microseconds(serverCPU))
    benchmark.measurement(ServerMetric.clientCPU, microseconds(clientCPU))
    print("""
        \(stream ? "event streams" : "long-polls"): \(delays.count) answered; p50 \(delays.isEmpty ? "-" : "\(delays[delays.count / 2])"), \
        p99 \(delays.isEmpty ? "-" : "\(delays[delays.count * 99 / 100])"); CPU: server \(serverCPU), clients \(clientCPU); server RSS \(before / 1024) KiB → \(waiting / 1024) KiB; \
        load average \(ServerFixture.loadAverage)
        """)
}

/// The baseline of the memory figures: 10,000 HTTP connections open, no request sent.
func measureIdleConnections(_ benchmark: Benchmark) async throws {
    ServerFixture.raiseDescriptorLimit()
    let library = try await ServerFixture.library()
    let host = try HostProcess(library: library.url)
    defer { host.stop() }
    _ = try SimpleHTTP.get(port: host.port, path: "/v1/token")  // Warm up.
    let before = host.residentBytes
    let descriptors = host.openDescriptors
    let clients = WaitingClients(count: ServerFixture.clients)
    try await clients.connect(port: host.port, request: "", marker: "never")
    _ = ServerFixture.waitUntil(seconds: 120) { host.openDescriptors >= descriptors + ServerFixture.clients }
    benchmark.measurement(ServerMetric.bytesPerConnection, (host.residentBytes - before) / ServerFixture.clients)
    await clients.closeAll()
}

let benchmarks: @Sendable () -> Void = {
    // One iteration each: a run is minutes of setup (10,000 connections, nginx), and its figures are
    // distributions of their own.
    let wakeUp = Benchmark.Configuration(
        metrics: [.wallClock] + ServerMetric.wakeUp, timeUnits: .milliseconds, warmupIterations: 0, maxDuration: .seconds(300),
        maxIterations: 1)
    let throughput = Benchmark.Configuration(
        metrics: ServerMetric.throughput, warmupIterations: 0, maxDuration: .seconds(300), maxIterations: 1)
    Benchmark("10,000 long-polls: commit → every one answered", configuration: wakeUp) { benchmark in
        try await measureWakeUp(benchmark, stream: false)
    }
    Benchmark("10,000 event streams: commit → every one's event", configuration: wakeUp) { benchmark in
        try await measureWakeUp(benchmark, stream: true)
    }
    Benchmark(
        "10,000 idle HTTP connections (the baseline of the memory figures)",
        configuration: .init(metrics: [ServerMetric.bytesPerConnection], warmupIterations: 0, maxDuration: .seconds(300), maxIterations: 1)
    ) { benchmark in
        try await measureIdleConnections(benchmark)
    }
    Benchmark("wrk: GET /v1/changes, a cached original, a cached thumbnail vs nginx static", configuration: throughput) { benchmark in
        try await WrkComparison.run(benchmark)
    }
}
