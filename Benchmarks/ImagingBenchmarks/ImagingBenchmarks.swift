// Benchmarks of PhotoImaging (issue 13). Every throughput figure is read as a ratio against a baseline
// measured in the same run over the same files: `vipsthumbnail` (libvips' own tool) and ImageMagick's
// `convert -thumbnail`. Per-core figures run one render at a time with VIPS_CONCURRENCY=1 on both sides;
// batch figures use both cores (two renders at once; two vipsthumbnail processes).
import Benchmark
import FixtureFolders
import Foundation
import PhotoImaging
import Synchronization
@_spi(Benchmarks) import PhotoLibrary

/// Generated files, built once and kept in /tmp between runs.
enum ImagingFixtures {
    static let base = URL(fileURLWithPath: "/tmp/photosync-imaging-benchmarks-v1")

    /// 12 JPEGs of 6000×4000 (24 MP; Perlin noise in three channels, quality 90) with a 160×107 EXIF
    /// thumbnail each.
    static var jpegs: [String] { files(build("jpeg-24mp") { root in
        for index in 0..<12 { try makeJPEG(root.appending(path: "IMG_\(index).jpg"), seed: index) }
    }) }

    /// 3 HEICs of 6000×4000 (x265 through heif-enc, with a thumbnail).
    static var heics: [String] { files(build("heic-24mp") { root in
        let jpegs = ImagingFixtures.jpegs
        for index in 0..<3 {
            try run("/usr/bin/heif-enc", ["-q", "80", "-t", "320", "-o", root.appending(path: "IMG_\(index).heic").path, jpegs[index]])
        }
    }) }

    /// 10,000 small JPEGs (640×427), distinct content, for pre-rendering.
    static var many: [String] { files(build("jpeg-10k") { root in
        let seed = root.appending(path: "seed.jpg")
        try run("/usr/bin/vips", ["perlin", seed.path + ".v", "640", "427", "--uchar"])
        try run("/usr/bin/vips", ["copy", seed.path + ".v", seed.path + "[Q=85]"])
        let bytes = try Data(contentsOf: seed)
        for index in 0..<10_000 {
            try (bytes + Data("photosync \(index)".utf8)).write(to: root.appending(path: String(format: "IMG_%05d.jpg", index)))
        }
        try FileManager.default.removeItem(at: seed)
        try FileManager.default.removeItem(atPath: seed.path + ".v")
    }) }

    static func makeJPEG(_ url: URL, seed: Int) throws {
        let channels = (0..<3).map { url.path + ".\($0).v" }
        for (band, path) in channels.enumerated() {
            try run("/usr/bin/vips", ["perlin", path, "6000", "4000", "--cell-size", "128", "--uchar", "--seed", "\(seed * 3 + band)"])
        }
        try run("/usr/bin/vips", ["bandjoin", channels.joined(separator: " "), url.path + "[Q=90]"])
        let thumbnail = url.path + ".thumb.jpg"
        try run("/usr/bin/vipsthumbnail", [url.path, "-s", "160x107!", "-o", thumbnail + "[Q=80]"])
        try run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-ThumbnailImage<=\(thumbnail)", url.path])
        for path in channels + [thumbnail] { try? FileManager.default.removeItem(atPath: path) }
    }

    private static func build(_ name: String, _ fill: (URL) throws -> Void) -> URL { FixtureFolder.make(name, in: base, fill) }

    static func files(_ directory: URL) -> [String] {
        (try! FileManager.default.contentsOfDirectory(atPath: directory.path)).filter { !$0.hasPrefix(".") }.sorted()
            .map { directory.path + "/" + $0 }
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        try process.run()
        process.waitUntilExit()
        precondition(process.terminationStatus == 0, "\(executable) \(arguments) failed")
        return process.terminationStatus
    }

    /// A new library (fast commits) referencing `files`, and a manager over it without caching between
    /// iterations (renditions go to a fresh directory).
    static func library(referencing files: [String], renders: Int) throws -> (ImageManager, [Asset], URL) {
        let url = FileManager.default.temporaryDirectory.appending(path: "photosync-imaging-bench-\(UUID().uuidString)")
        var options = PhotoLibrary.Options()
        options.durableCommits = false
        let library = try PhotoLibrary(url: url, options: options)
        for batch in stride(from: 0, to: files.count, by: 1000) {
            try library.performChangesAndWait {
                for file in files[batch..<min(files.count, batch + 1000)] {
                    _ = AssetChangeRequest.creationRequestForAsset(
                        fromFileAt: URL(fileURLWithPath: file), options: AssetCreationOptions(storage: .referenced))
                }
            }
        }
        let assets = Array(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)))
        let manager = try ImageManager(
            library: library, configuration: ImageManager.Configuration(maximumConcurrentRenders: renders))
        return (manager, assets, url)
    }

    /// Renders every asset once at `side` (JPEG, quality 80, no caching), `concurrency` at a time.
    static func renderAll(_ manager: ImageManager, _ assets: [Asset], side: Int, concurrency: Int) async throws {
        let options = ImageRequestOptions(
            deliveryMode: .highQualityFormat, resizeMode: .exact, outputFormat: .jpeg(quality: 80), allowsCaching: false)
        try await withThrowingTaskGroup(of: Void.self) { group in
            var next = 0
            func add() {
                let asset = assets[next]
                next += 1
                group.addTask {
                    for try await event in manager.requestImage(for: asset, targetSize: PixelSize(square: side), options: options) {
                        blackHole(event)
                    }
                }
            }
            for _ in 0..<min(concurrency, assets.count) { add() }
            while try await group.next() != nil { if next < assets.count { add() } }
        }
    }

    /// `vipsthumbnail` over `files`, split over `processes` processes run at once.
    static func vipsthumbnail(_ files: [String], side: Int, processes: Int) throws {
        let output = FileManager.default.temporaryDirectory.appending(path: "photosync-imaging-vt-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: output) }
        let parts = (0..<processes).map { part in stride(from: part, to: files.count, by: processes).map { files[$0] } }
        let launched = try parts.map { part -> Process in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/vipsthumbnail")
            process.arguments = part + ["-s", "\(side)", "-o", output.path + "/%s.jpg[Q=80]"]
            process.environment = ProcessInfo.processInfo.environment.merging(["VIPS_CONCURRENCY": "1"]) { $1 }
            try process.run()
            return process
        }
        for process in launched {
            process.waitUntilExit()
            precondition(process.terminationStatus == 0)
        }
    }
}

let benchmarks: @Sendable () -> Void = {
    // One render thread per pipeline on both sides, so that per-core throughputs compare.
    setenv("VIPS_CONCURRENCY", "1", 1)
    let throughput = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident], warmupIterations: 1, maxDuration: .seconds(120), maxIterations: 5)

    for side in [256, 1440] {
        Benchmark("JPEG 24 MP → \(side) px, 12 files, 1 core: baseline vipsthumbnail", configuration: throughput) { benchmark in
            let files = ImagingFixtures.jpegs
            benchmark.startMeasurement()
            try ImagingFixtures.vipsthumbnail(files, side: side, processes: 1)
        }
        Benchmark("JPEG 24 MP → \(side) px, 12 files, 1 core: ImageManager", configuration: throughput) { benchmark in
            let (manager, assets, url) = try ImagingFixtures.library(referencing: ImagingFixtures.jpegs, renders: 1)
            defer { try? FileManager.default.removeItem(at: url) }
            benchmark.startMeasurement()
            try await ImagingFixtures.renderAll(manager, assets, side: side, concurrency: 1)
        }
        Benchmark("JPEG 24 MP → \(side) px, 12 files, 2 cores: baseline vipsthumbnail × 2", configuration: throughput) { benchmark in
            let files = ImagingFixtures.jpegs
            benchmark.startMeasurement()
            try ImagingFixtures.vipsthumbnail(files, side: side, processes: 2)
        }
        Benchmark("JPEG 24 MP → \(side) px, 12 files, 2 cores: ImageManager", configuration: throughput) { benchmark in
            let (manager, assets, url) = try ImagingFixtures.library(referencing: ImagingFixtures.jpegs, renders: 2)
            defer { try? FileManager.default.removeItem(at: url) }
            benchmark.startMeasurement()
            try await ImagingFixtures.renderAll(manager, assets, side: side, concurrency: 2)
        }
    }
    Benchmark("JPEG 24 MP → 256 px, 12 files, 1 core: baseline ImageMagick convert -thumbnail", configuration: throughput) { benchmark in
        let files = ImagingFixtures.jpegs
        let output = FileManager.default.temporaryDirectory.appending(path: "photosync-imaging-im-\(UUID().uuidString).jpg")
        defer { try? FileManager.default.removeItem(at: output) }
        benchmark.startMeasurement()
        for file in files {
            try ImagingFixtures.run(
                "/usr/bin/convert", [file, "-thumbnail", "256x256", "-quality", "80", output.path],
                environment: ["MAGICK_THREAD_LIMIT": "1"])
        }
    }
    Benchmark("HEIC 24 MP → 256 px, 3 files, 1 core: baseline vipsthumbnail", configuration: throughput) { benchmark in
        let files = ImagingFixtures.heics
        benchmark.startMeasurement()
        try ImagingFixtures.vipsthumbnail(files, side: 256, processes: 1)
    }
    Benchmark("HEIC 24 MP → 256 px, 3 files, 1 core: ImageManager", configuration: throughput) { benchmark in
        let (manager, assets, url) = try ImagingFixtures.library(referencing: ImagingFixtures.heics, renders: 1)
        defer { try? FileManager.default.removeItem(at: url) }
        benchmark.startMeasurement()
        try await ImagingFixtures.renderAll(manager, assets, side: 256, concurrency: 1)
    }

    // Latency: a library and its manager made once (setup), then one request per iteration, as a server or
    // a gallery serves them; the first request of a process is measured apart.
    let latency = Benchmark.Configuration(
        metrics: [.wallClock], timeUnits: .microseconds, warmupIterations: 10, maxDuration: .seconds(30), maxIterations: 10_000)
    let cachedOptions = ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: .jpeg(quality: 80))
    Benchmark("Cached rendition served (256 px JPEG)", configuration: latency) { benchmark, fixture in
        for try await event in fixture.manager.requestImage(for: fixture.assets[0], targetSize: PixelSize(square: 256), options: cachedOptions) {
            precondition(event.result?.source == .renditionCache)
            blackHole(event)
        }
    } setup: {
        try LatencyFixture.make(files: Array(ImagingFixtures.jpegs.prefix(1)), cachedAt: 256, options: cachedOptions)
    } teardown: {
        LatencyFixture.removeAll()
    }
    Benchmark("Cached rendition served: baseline, the rendition's file read whole (Data(contentsOf:))", configuration: latency) { benchmark, fixture in
        blackHole(try Data(contentsOf: fixture.renditionFile!))
    } setup: {
        try LatencyFixture.make(files: Array(ImagingFixtures.jpegs.prefix(1)), cachedAt: 256, options: cachedOptions)
    } teardown: {
        LatencyFixture.removeAll()
    }
    Benchmark("Cached rendition served: the first request of a new process's manager", configuration: .init(
        metrics: [.wallClock, Preemptions.metric], timeUnits: .microseconds, warmupIterations: 2, maxDuration: .seconds(30), maxIterations: 200)
    ) { benchmark in
        let (manager, assets, url) = try ImagingFixtures.library(referencing: Array(ImagingFixtures.jpegs.prefix(1)), renders: 2)
        defer { try? FileManager.default.removeItem(at: url) }
        _ = try manager.requestImageSynchronously(for: assets[0], targetSize: PixelSize(square: 256), options: cachedOptions)
        // Another manager of the library, as a new process would open it: nothing of the render is warm.
        let other = try ImageManager(library: PhotoLibrary(url: url))
        let switches = Preemptions()
        benchmark.startMeasurement()
        for try await event in other.requestImage(for: assets[0], targetSize: PixelSize(square: 256), options: cachedOptions) {
            precondition(event.result?.source == .renditionCache)
            blackHole(event)
        }
        benchmark.stopMeasurement()
        benchmark.measurement(Preemptions.metric, switches.count)
    }
    let degradedOptions = ImageRequestOptions(deliveryMode: .opportunistic, outputFormat: .jpeg(quality: 80), allowsCaching: false)
    Benchmark("First (degraded) opportunistic result, 24 MP JPEG with an EXIF thumbnail", configuration: latency) { benchmark, fixture in
        // The 12 files in turn. The first result: the EXIF thumbnail, unless the final one was ready first
        // (then it is the final one, and this sample measures it: never faster than the degraded result).
        for try await event in fixture.manager.requestImage(for: fixture.nextAsset(), targetSize: PixelSize(square: 256), options: degradedOptions) {
            guard let result = event.result else { continue }  // progress of the final render
            blackHole(result)
            break  // Cancels the final render.
        }
    } setup: {
        try LatencyFixture.make(files: ImagingFixtures.jpegs)
    } teardown: {
        LatencyFixture.removeAll()
    }
    Benchmark("First (degraded) opportunistic result: the first request of a new process's manager", configuration: .init(
        metrics: [.wallClock, Preemptions.metric], timeUnits: .microseconds, warmupIterations: 2, maxDuration: .seconds(30), maxIterations: 200)
    ) { benchmark in
        let (_, assets, url) = try ImagingFixtures.library(referencing: Array(ImagingFixtures.jpegs.prefix(1)), renders: 2)
        defer { try? FileManager.default.removeItem(at: url) }
        let manager = try ImageManager(library: PhotoLibrary(url: url))
        let switches = Preemptions()
        benchmark.startMeasurement()
        for try await event in manager.requestImage(for: assets[0], targetSize: PixelSize(square: 256), options: degradedOptions) {
            guard let result = event.result else { continue }
            blackHole(result)
            break
        }
        benchmark.stopMeasurement()
        benchmark.measurement(Preemptions.metric, switches.count)
    }

    Benchmark("Pre-render 10,000 assets at 256 and 1440 px (peak RSS)", configuration: .init(
        metrics: [.wallClock, .peakMemoryResident], warmupIterations: 0, maxDuration: .seconds(1200), maxIterations: 1)
    ) { benchmark in
        let (manager, assets, url) = try ImagingFixtures.library(referencing: ImagingFixtures.many, renders: 2)
        defer { try? FileManager.default.removeItem(at: url) }
        benchmark.startMeasurement()
        var last: PrerenderProgress?
        for await progress in manager.prerenderRenditions(of: assets) { last = progress }
        benchmark.stopMeasurement()
        precondition(last?.completed == 10_000 && last?.failed == 0, "\(String(describing: last))")
    }
}

/// A library made once for the iterations of a latency benchmark, and its manager.
final class LatencyFixture: Sendable {
    let manager: ImageManager
    let assets: [Asset]
    let url: URL
    /// The rendition file made by the setup, if any.
    let renditionFile: URL?
    private let next = Mutex(0)
    private static let made = Mutex<[URL]>([])

    private init(manager: ImageManager, assets: [Asset], url: URL, renditionFile: URL?) {
        self.manager = manager
        self.assets = assets
        self.url = url
        self.renditionFile = renditionFile
    }

    /// A library referencing `files`; with `cachedAt`, the first one's rendition at that size rendered.
    static func make(files: [String], cachedAt side: Int? = nil, options: ImageRequestOptions? = nil) throws -> LatencyFixture {
        let (manager, assets, url) = try ImagingFixtures.library(referencing: files, renders: 2)
        made.withLock { $0.append(url) }
        guard let side, let options else { return LatencyFixture(manager: manager, assets: assets, url: url, renditionFile: nil) }
        _ = try manager.requestImageSynchronously(for: assets[0], targetSize: PixelSize(square: side), options: options)
        let walker = FileManager.default.enumerator(at: url.appending(path: "renditions"), includingPropertiesForKeys: nil)
        let file = (walker?.allObjects as? [URL] ?? []).first { $0.pathExtension == "rnd" }
        guard let file else { throw CocoaError(.fileNoSuchFile) }
        return LatencyFixture(manager: manager, assets: assets, url: url, renditionFile: file)
    }

    /// The assets in turn.
    func nextAsset() -> Asset {
        next.withLock { index in
            defer { index += 1 }
            return assets[index % assets.count]
        }
    }

    /// Removes the libraries made.
    static func removeAll() {
        for url in made.withLock({ urls in defer { urls = [] }; return urls }) { try? FileManager.default.removeItem(at: url) }
    }
}

/// Involuntary context switches of the calling thread since it was made (`getrusage(RUSAGE_THREAD)`): how
/// often another process took the processor in the middle of a sample. On a busy machine these, not the
/// code, make a short operation's slowest samples.
struct Preemptions {
    static let metric = BenchmarkMetric.custom("Preemptions (involuntary context switches)", polarity: .prefersSmaller, useScalingFactor: false)

    private let start = Self.now()

    var count: Int { Self.now() - start }

    private static func now() -> Int {
        var usage = rusage()
        getrusage(__rusage_who_t(1), &usage)  // RUSAGE_THREAD
        return usage.ru_nivcsw
    }
}
