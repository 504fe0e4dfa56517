// Benchmarks of the sync worker (issue 5). Every figure is read as a ratio against a baseline measured in
// the same run: `xxhsum -H2` for hashing, `find -printf` for walking (see the README, "Benchmarks").
import Benchmark
import Foundation
@_spi(Benchmarks) import PhotoLibrary
import SyncWorker

/// Generated trees, built once and kept in /tmp between runs.
enum SyncFixtures {
    static let base = URL(fileURLWithPath: "/tmp/photosync-sync-benchmarks-v1")

    /// A real JPEG (the test fixture) whose bytes are made unique per file by a suffix after its end marker.
    static let jpeg: [UInt8] = {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Tests/SyncWorkerTests/Fixtures/camera.jpg")
        return [UInt8](try! Data(contentsOf: url))
    }()

    /// 100,000 files of about 900 bytes in 500 folders of 200.
    static var smallTree: URL {
        build("small-100k") { root in
            for folder in 0..<500 {
                let directory = root.appending(path: String(format: "%03d", folder))
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                for file in 0..<200 {
                    let bytes = jpeg + Array("file \(folder)-\(file)".utf8)
                    try Data(bytes).write(to: directory.appending(path: "IMG_\(file).jpg"))
                }
            }
        }
    }

    /// 1 GiB: 32 files of 32 MiB (a JPEG head, then pseudo-random bytes), for hashing throughput.
    static var largeFiles: URL {
        build("large-1g") { root in
            let size = 32 << 20
            for file in 0..<32 {
                var bytes = [UInt8](repeating: 0, count: size)
                bytes.replaceSubrange(0..<jpeg.count, with: jpeg)
                var state = UInt64(file + 1) &* 0x9E37_79B9_7F4A_7C15
                bytes.withUnsafeMutableBytes { raw in
                    let words = raw.baseAddress!.advanced(by: 4096).assumingMemoryBound(to: UInt64.self)
                    for index in 0..<((size - 4096) / 8) {
                        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                        words[index] = state
                    }
                }
                try Data(bytes).write(to: root.appending(path: "VID_\(file).jpg"))
            }
        }
    }

    /// A library that has mirrored the small tree already (for rescans).
    static func scannedLibrary(of tree: URL) async throws -> PhotoLibrary {
        let url = base.appending(path: "library-small-100k")
        let done = url.appending(path: ".complete")
        if !FileManager.default.fileExists(atPath: done.path) {
            try? FileManager.default.removeItem(at: url)
            var options = PhotoLibrary.Options()
            options.durableCommits = false
            let library = try PhotoLibrary(url: url, options: options)
            _ = try await FolderMirror(library: library, root: tree).scan()
            _ = FileManager.default.createFile(atPath: done.path, contents: nil)
        }
        return try PhotoLibrary(url: url)
    }

    private static func build(_ name: String, _ fill: (URL) throws -> Void) -> URL {
        let root = base.appending(path: name)
        let done = base.appending(path: name + ".complete")
        if !FileManager.default.fileExists(atPath: done.path) {
            try? FileManager.default.removeItem(at: root)
            try! FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
            try! fill(root)
            _ = FileManager.default.createFile(atPath: done.path, contents: nil)
        }
        return root
    }

    static func temporaryLibrary() throws -> (PhotoLibrary, URL) {
        let url = FileManager.default.temporaryDirectory.appending(path: "photosync-sync-bench-\(UUID().uuidString)")
        return (try PhotoLibrary(url: url), url)
    }

    /// An initial scan of `tree` into a new library, only the scan measured.
    static func measureInitialScan(of tree: URL, _ benchmark: Benchmark) async throws -> ScanSummary {
        let (library, url) = try temporaryLibrary()
        defer { try? FileManager.default.removeItem(at: url) }
        let mirror = try FolderMirror(library: library, root: tree)
        benchmark.startMeasurement()
        let summary = try await mirror.scan()
        benchmark.stopMeasurement()
        return summary
    }

    /// Runs a command with its output discarded; returns its exit status.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func files(in directory: URL) -> [String] {
        (try! FileManager.default.contentsOfDirectory(atPath: directory.path)).sorted().map { directory.path + "/" + $0 }
    }
}

let benchmarks: @Sendable () -> Void = {
    // Peak memory first, in a fresh process state.
    Benchmark("Initial scan of 100,000 files (peak RSS)", configuration: .init(
        metrics: [.wallClock, .peakMemoryResident], warmupIterations: 0, maxDuration: .seconds(600), maxIterations: 1)
    ) { benchmark in
        let summary = try await SyncFixtures.measureInitialScan(of: SyncFixtures.smallTree, benchmark)
        precondition(summary.inserted == 100_000, "\(summary.inserted)")
    }

    let hashing = Benchmark.Configuration(
        metrics: [.wallClock], warmupIterations: 1, maxDuration: .seconds(60), maxIterations: 5)
    Benchmark("Hashing 1 GiB (32 × 32 MiB): baseline xxhsum -H2", configuration: hashing) { benchmark in
        let files = SyncFixtures.files(in: SyncFixtures.largeFiles)
        benchmark.startMeasurement()
        let status = try SyncFixtures.run("/usr/bin/xxhsum", ["-H2"] + files)
        precondition(status == 0)
    }
    Benchmark("Hashing 1 GiB (32 × 32 MiB): initial scan", configuration: hashing) { benchmark in
        let summary = try await SyncFixtures.measureInitialScan(of: SyncFixtures.largeFiles, benchmark)
        precondition(summary.inserted == 32 && summary.bytesHashed == 32 << 25)
    }

    let walking = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident], warmupIterations: 1, maxDuration: .seconds(60), maxIterations: 10)
    Benchmark("Rescan 100,000 unchanged files: baseline find -printf '%s %T@'", configuration: walking) { benchmark in
        let tree = SyncFixtures.smallTree
        benchmark.startMeasurement()
        let status = try SyncFixtures.run("/usr/bin/find", [tree.path, "-printf", "%s %T@\\n"])
        precondition(status == 0)
    }
    Benchmark("Rescan 100,000 unchanged files: watcher's rescan (state in memory)", configuration: walking) { benchmark in
        let tree = SyncFixtures.smallTree
        let library = try await SyncFixtures.scannedLibrary(of: tree)
        let mirror = try FolderMirror(library: library, root: tree)
        _ = try await mirror.scan()  // Loads the mirror state.
        for _ in benchmark.scaledIterations {
            benchmark.startMeasurement()
            let summary = try await mirror.scan()
            benchmark.stopMeasurement()
            precondition(summary.filesHashed == 0 && summary.unchanged == 100_000)
        }
    }
    Benchmark("Rescan 100,000 unchanged files: fresh process (state read from the library)", configuration: walking) { benchmark in
        let tree = SyncFixtures.smallTree
        let library = try await SyncFixtures.scannedLibrary(of: tree)
        benchmark.startMeasurement()
        let summary = try await FolderMirror(library: library, root: tree).scan()
        benchmark.stopMeasurement()
        precondition(summary.filesHashed == 0 && summary.unchanged == 100_000)
    }

    let latency = BenchmarkMetric.custom("close-to-visible latency (ms)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("Watch latency: file closed → visible through fetchPersistentChanges (settle 1 s)", configuration: .init(
        metrics: [latency], warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 1)
    ) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-watch-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.appending(path: "Photos")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        let library = try PhotoLibrary(url: directory.appending(path: "Library.photosync"))
        let mirror = try FolderMirror(library: library, root: root)
        let watch = Task { try await mirror.watch() }
        try await mirror.sync()
        for index in 0..<40 {
            let token = try library.currentChangeToken
            let bytes = SyncFixtures.jpeg + Array("latency \(index)".utf8)
            try Data(bytes).write(to: root.appending(path: "IMG_\(index).jpg"))
            let closed = ContinuousClock.now
            var visible = false
            while !visible {
                _ = try await library.waitForChanges(after: token, timeout: .seconds(10))
                visible = try library.fetchPersistentChanges(since: token).contains { change in
                    (try? change.changeDetails(for: .asset).insertedLocalIdentifiers.isEmpty == false) ?? false
                }
            }
            let elapsed = ContinuousClock.now - closed
            benchmark.measurement(latency, Int(elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000))
            try await Task.sleep(for: .milliseconds(100))
        }
        watch.cancel()
        _ = await watch.result
    }
}
