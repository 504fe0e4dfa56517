import Foundation
import PhotoImaging
import PhotoLibrary
import Testing

/// A library in a temporary directory, with its assets made from fixtures, and an image manager.
final class ImagingFixture: Sendable {
    let base: URL
    let library: PhotoLibrary
    let manager: ImageManager

    init(configuration: ImageManager.Configuration = ImageManager.Configuration()) throws {
        base = FileManager.default.temporaryDirectory.appending(
            path: "photosync-imaging-\(UUID().uuidString)", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: base.appending(path: "files"), withIntermediateDirectories: true)
        library = try PhotoLibrary(url: base.appending(path: "Library.photosync"))
        manager = try ImageManager(library: library, configuration: configuration)
    }

    deinit { try? FileManager.default.removeItem(at: base) }

    static func fixture(_ name: String) -> URL {
        Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")!
    }

    /// Copies a fixture into the fixture's folder (under `name`) and references it from a new asset.
    func asset(_ fixture: String, as name: String? = nil) async throws -> Asset {
        let file = base.appending(path: "files").appending(path: name ?? fixture)
        try? FileManager.default.removeItem(at: file)
        try FileManager.default.copyItem(at: Self.fixture(fixture), to: file)
        return try asset(referencing: file)
    }

    /// A new asset referencing `file` in place.
    func asset(referencing file: URL) throws -> Asset {
        var identifier = ""
        try library.performChangesAndWait {
            let request = AssetChangeRequest.creationRequestForAsset(
                fromFileAt: file, options: AssetCreationOptions(storage: .referenced))
            identifier = request.placeholderForCreatedAsset!.localIdentifier
        }
        return try #require(try library.fetchAssets(withLocalIdentifiers: [identifier]).firstObject)
    }

    /// The current state of an asset.
    func refetch(_ asset: Asset) throws -> Asset {
        try #require(try library.fetchAssets(withLocalIdentifiers: [asset.localIdentifier]).firstObject)
    }

    var filesFolder: URL { base.appending(path: "files") }
    var renditions: URL { library.url.appending(path: "renditions") }

    /// Every event of one request.
    func events(
        _ asset: Asset, size: PixelSize, mode: ContentMode = .aspectFit, options: ImageRequestOptions
    ) async throws -> [ImageRequestEvent] {
        var events: [ImageRequestEvent] = []
        for try await event in manager.requestImage(for: asset, targetSize: size, contentMode: mode, options: options) {
            events.append(event)
        }
        return events
    }

    /// The final result of a request.
    func final(
        _ asset: Asset, size: PixelSize, mode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: .rgba8)
    ) async throws -> ImageResult {
        let results = try await events(asset, size: size, mode: mode, options: options).compactMap(\.result)
        let last = try #require(results.last)
        #expect(!last.isDegraded)
        return last
    }

    /// Rendition files on disk (not temporary ones).
    func renditionFiles() -> [URL] {
        let walker = FileManager.default.enumerator(at: renditions, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "rnd" }
    }

    func incomingFiles() -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: renditions.appending(path: ".incoming").path)) ?? []
    }
}

/// Pixels as RGBA8, decoding encoded results.
func pixels(of result: ImageResult) throws -> PixelBuffer {
    switch result.content {
    case .pixels(let buffer): return buffer
    case .encoded(let data, _): return try PixelBuffer(decoding: data)
    }
}

/// The colours of the test pattern's quadrants: red, green / blue, yellow.
enum Pattern {
    static let topLeft: (Int, Int, Int) = (255, 0, 0)
    static let topRight: (Int, Int, Int) = (0, 255, 0)
    static let bottomLeft: (Int, Int, Int) = (0, 0, 255)
    static let bottomRight: (Int, Int, Int) = (255, 255, 0)

    /// The colour at the centre of each quadrant of `buffer`.
    static func quadrants(_ buffer: PixelBuffer) -> [(Int, Int, Int)] {
        let xs = [buffer.width / 4, buffer.width * 3 / 4]
        let ys = [buffer.height / 4, buffer.height * 3 / 4]
        return ys.flatMap { y in
            xs.map { x in
                let pixel = buffer.pixel(x: x, y: y)
                return (Int(pixel.r), Int(pixel.g), Int(pixel.b))
            }
        }
    }

    /// Whether two colours are within `tolerance` on every channel.
    static func close(_ a: (Int, Int, Int), _ b: (Int, Int, Int), tolerance: Int = 24) -> Bool {
        abs(a.0 - b.0) <= tolerance && abs(a.1 - b.1) <= tolerance && abs(a.2 - b.2) <= tolerance
    }

    /// Whether `buffer` shows the pattern upright.
    static func isUpright(_ buffer: PixelBuffer, tolerance: Int = 24) -> Bool {
        let found = quadrants(buffer)
        let expected = [topLeft, topRight, bottomLeft, bottomRight]
        return zip(found, expected).allSatisfy { close($0, $1, tolerance: tolerance) }
    }

    /// The mean absolute difference per channel between two buffers of one size (RGB only).
    static func meanDifference(_ a: PixelBuffer, _ b: PixelBuffer) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var total = 0
        for index in stride(from: 0, to: a.bytes.count, by: 4) {
            for channel in 0..<3 { total += abs(Int(a.bytes[index + channel]) - Int(b.bytes[index + channel])) }
        }
        return Double(total) / Double(a.width * a.height * 3)
    }
}

/// Expects `buffer` to show the pattern upright; reports the quadrants' colours when not.
func expectUpright(
    _ buffer: PixelBuffer?, tolerance: Int = 24, _ context: String = "", sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let buffer = try #require(buffer, sourceLocation: sourceLocation)
    let upright = Pattern.isUpright(buffer, tolerance: tolerance)
    #expect(upright, "\(context) \(Pattern.quadrants(buffer))", sourceLocation: sourceLocation)
}

/// Large JPEGs (6000×4000 of noise, about 24 megapixels) made once per machine with `vips`, for renders
/// long enough to cancel and to report progress. Made without blocking a thread: tests wait for them.
actor LargeImage {
    static let shared = LargeImage()
    private var made: [String: Task<URL, Never>] = [:]

    /// The large JPEG.
    static var url: URL { get async { await shared.file("photosync-imaging-large-v1.jpg") { url in
        let noise = url.path + ".noise.v"
        await run("/usr/bin/vips", ["gaussnoise", noise, "6000", "4000"])
        await run("/usr/bin/vips", ["copy", noise, url.path + "[Q=90]"])
        try? FileManager.default.removeItem(atPath: noise)
    } } }

    /// The large JPEG with a flat grey (200) 160×107 EXIF thumbnail, so that a degraded result is told from
    /// the final one (noise).
    static var withThumbnail: URL { get async {
        let large = await url
        return await shared.file("photosync-imaging-large-thumb-v2.jpg") { url in
            let thumbnail = url.path + ".thumb"
            await run("/usr/bin/vips", ["black", thumbnail + ".v", "160", "107"])
            await run("/usr/bin/vips", ["linear", thumbnail + ".v", thumbnail + ".jpg", "1", "200"])
            try? FileManager.default.copyItem(atPath: large.path, toPath: url.path)
            await run("/usr/bin/exiftool", ["-q", "-overwrite_original", "-ThumbnailImage<=\(thumbnail).jpg", url.path])
            try? FileManager.default.removeItem(atPath: thumbnail + ".v")
            try? FileManager.default.removeItem(atPath: thumbnail + ".jpg")
        }
    } }

    /// The file `name` in the temporary directory, made by `make` (into a partial path renamed into place)
    /// unless it is there.
    private func file(_ name: String, make: @escaping @Sendable (URL) async -> Void) async -> URL {
        if let task = made[name] { return await task.value }
        let task = Task {
            let url = FileManager.default.temporaryDirectory.appending(path: name)
            if !FileManager.default.fileExists(atPath: url.path) {
                let partial = url.deletingLastPathComponent().appending(path: "\(UUID().uuidString)-\(name)")
                await make(partial)
                _ = rename(partial.path, url.path)
            }
            return url
        }
        made[name] = task
        return await task.value
    }

    private static func run(_ tool: String, _ arguments: [String]) async {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let status: Int32 = await withCheckedContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(returning: -1) }
        }
        precondition(status == 0, "\(tool) \(arguments) failed")
    }
}

/// Polls `condition` until it holds or `seconds` pass.
func waitUntil(seconds: Double = 120, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// Every imaging suite, run one test at a time: each renders on several threads (24-megapixel decodes,
/// pre-rendering), and running them all at once starves the timing-sensitive suites of the other modules.
@Suite(.serialized) enum ImagingTests {}
