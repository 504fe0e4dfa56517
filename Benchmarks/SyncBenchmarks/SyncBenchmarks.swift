// Benchmarks of the sync worker (issue 5). Every figure is read as a ratio against a baseline measured in
// the same run: `xxhsum -H2` for hashing, `find -printf` for walking (see the README, "Benchmarks").
import Benchmark
import Foundation
@_spi(Benchmarks) import PhotoLibrary
import SyncFixtures
import SyncWorker

extension SyncFixtures {
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
        let tree = SyncFixtures.largeFiles
        let files = SyncFixtures.files(in: tree)
        benchmark.startMeasurement()
        let status = try SyncFixtures.run("/usr/bin/xxhsum", ["-H2"] + files, in: tree)
        precondition(status == 0)
    }
    Benchmark("Hashing 1 GiB (32 × 32 MiB): initial scan", configuration: hashing) { benchmark in
        let summary = try await SyncFixtures.measureInitialScan(of: SyncFixtures.largeFiles, benchmark)
        precondition(summary.inserted == 32 && summary.bytesHashed == 32 << 25)
    }

    // Issue 12: real image files, the scan against xxhsum over the same files in the same iteration, warm cache.
    let scanTime = BenchmarkMetric.custom("initial scan (ms)", polarity: .prefersSmaller, useScalingFactor: false)
    let xxhsumTime = BenchmarkMetric.custom("xxhsum -H2 (ms)", polarity: .prefersSmaller, useScalingFactor: false)
    let ratio = BenchmarkMetric.custom("scan / xxhsum (%)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("Initial scan of 20,000 image files (JPEG+EXIF, HEIC, PNG) vs xxhsum -H2 of the same files", configuration: .init(
        metrics: [ratio, scanTime, xxhsumTime], warmupIterations: 0, maxDuration: .seconds(600), maxIterations: 5)
    ) { benchmark in
        let tree = SyncFixtures.imageTree
        let files = SyncFixtures.files(in: tree)
        try SyncFixtures.warm(tree)
        for _ in benchmark.scaledIterations {
            let hashing = ContinuousClock.now
            let status = try SyncFixtures.run("/usr/bin/xxhsum", ["-H2"] + files, in: tree)
            let hashed = ContinuousClock.now - hashing
            precondition(status == 0)
            let (library, url) = try SyncFixtures.temporaryLibrary()
            defer { try? FileManager.default.removeItem(at: url) }
            let mirror = try FolderMirror(library: library, root: tree)
            let scanning = ContinuousClock.now
            let summary = try await mirror.scan()
            let scanned = ContinuousClock.now - scanning
            precondition(summary.inserted == SyncFixtures.imageTreeFileCount, "\(summary.inserted)")
            benchmark.measurement(scanTime, scanned.milliseconds)
            benchmark.measurement(xxhsumTime, hashed.milliseconds)
            benchmark.measurement(ratio, Int((scanned / hashed * 100).rounded()))
        }
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
            benchmark.measurement(latency, (ContinuousClock.now - closed).milliseconds)
            try await Task.sleep(for: .milliseconds(100))
        }
        watch.cancel()
        _ = await watch.result
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int { Int(components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000) }
}
