import Foundation
import PhotosyncWire
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The gallery's test bench: a folder of pictures, the built `photosync` watching it and serving the library
/// (`watch DIR --serve 127.0.0.1:0`, a subprocess), and headless Chromium with a profile of its own.
final class GalleryHarness: Sendable {
    let directory: URL
    let folder: URL
    let library: String
    let client: Client
    let browser: Chromium
    /// The secret of the key the server needs, if it needs one.
    let secret: String?
    private let arguments: [String]
    private let daemon: Mutex<Processes.Running?>

    /// The settle interval the daemon runs with (seconds).
    static let settle = 0.5

    private init(directory: URL, folder: URL, library: String, arguments: [String], daemon: Processes.Running, client: Client,
                 browser: Chromium, secret: String?) {
        self.directory = directory
        self.folder = folder
        self.library = library
        self.arguments = arguments
        self.daemon = Mutex(daemon)
        self.client = client
        self.browser = browser
        self.secret = secret
    }

    /// Runs `body` with a bench whose folder holds `pictures` (all in the library before `body` starts),
    /// then stops the browser and the daemon and removes the files.
    static func with(
        _ pictures: [Pictures.Spec], size: (width: Int, height: Int) = (640, 427), needsKey: Bool = false,
        _ body: (GalleryHarness) async throws -> Void
    ) async throws {
        try #require(Chromium.isInstalled, "Debian's chromium is needed (scripts/install-system-packages installs it)")
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-gallery-\(UUID().uuidString)")
        let folder = directory.appending(path: "Pictures")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Pictures.make(pictures, in: folder, width: size.width, height: size.height)
        let library = directory.appending(path: "Library.photosync").path
        var arguments = ["--library", library, "watch", folder.path, "--settle", String(settle)]
        var secret: String?
        if needsKey {
            let keys = directory.appending(path: "keys").path
            let added = try await Processes.run(Processes.photosync, ["serve", "--auth-file", keys, "--add-key", "gallery", "--level", "read"])
            try #require(added.status == 0, "\(added.stderr)")
            secret = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
            arguments += ["--auth-file", keys]
        }
        let (daemon, client) = try await ServeCommandTests.start(arguments + ["--serve", "127.0.0.1:0"], directory: directory)
        let harness = GalleryHarness(
            directory: directory, folder: folder, library: library, arguments: arguments, daemon: daemon, client: client.with(key: secret),
            browser: try Chromium.launch(profile: directory.appending(path: "profile")), secret: secret)
        do {
            try #require(await harness.waitForAssets(pictures.count), "the daemon never mirrored the pictures: \(daemon.stderr.text)")
            try await body(harness)
        } catch {
            Issue.record("chromium said: \(harness.browser.output.suffix(3000))")
            await harness.stop()
            throw error
        }
        await harness.stop()
    }

    private func stop() async {
        await browser.close()
        await stopDaemon()
    }

    /// Stops the daemon (SIGTERM) and waits for its exit.
    func stopDaemon() async {
        guard let running = daemon.withLock({ $0.take() }) else { return }
        running.signal(SIGTERM)
        _ = await running.exitStatus()
    }

    /// Starts the daemon again, on the port it had.
    func startDaemon() async throws {
        let port = try #require(client.base.split(separator: ":").last)
        let (running, _) = try await ServeCommandTests.start(arguments + ["--serve", "127.0.0.1:\(port)"], directory: directory)
        daemon.withLock { $0 = running }
    }

    /// Whether the library comes to hold `count` assets (within 30 s).
    func waitForAssets(_ count: Int) async -> Bool {
        await waitUntil(seconds: 30) { (try? await client.get("/v1/assets?limit=1000").decode(Wire.AssetPage.self).assets.count) == count }
    }

    /// The library's assets, by path.
    func assets() async throws -> [String: Wire.Asset] {
        let page = try await client.get("/v1/assets?limit=1000").decode(Wire.AssetPage.self)
        return Dictionary(uniqueKeysWithValues: page.assets.compactMap { asset in asset.path.map { ($0, asset) } })
    }

    /// Opens the gallery in a new tab.
    func open(width: Int = 1280, height: Int = 900, scale: Double = 1, mobile: Bool = false) async throws -> BrowserPage {
        try await browser.open(client.base + "/", width: width, height: height, scale: scale, mobile: mobile)
    }

    /// Where screenshots go: `$PHOTOSYNC_GALLERY_SCREENSHOTS` when set (to look at them), else the bench's
    /// directory (removed with it).
    var screenshots: URL {
        if let kept = ProcessInfo.processInfo.environment["PHOTOSYNC_GALLERY_SCREENSHOTS"], !kept.isEmpty {
            try? FileManager.default.createDirectory(atPath: kept, withIntermediateDirectories: true)
            return URL(fileURLWithPath: kept)
        }
        return directory
    }
}

extension BrowserPage {
    /// Whether a JavaScript condition comes true within `seconds` (polled every 20 ms).
    func waitFor(_ condition: String, seconds: Double = 20) async -> Bool {
        await waitUntil(seconds: seconds) { (try? await evaluate("Boolean(\(condition))").bool) == true }
    }

    /// Expects a JavaScript condition to come true within `seconds`; if it doesn't, the issue says how the
    /// page is doing.
    @discardableResult
    func expect(_ condition: String, seconds: Double = 20, _ message: String = "", sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
        if await waitFor(condition, seconds: seconds) { return true }
        Issue.record("never true: \(condition)\n\(message)\npage: \(await state())", sourceLocation: sourceLocation)
        return false
    }

    /// How the page says it is doing (its <body> data attributes, the tiles, the URL), for failure messages.
    func state() async -> String {
        let value = try? await evaluate(
            "JSON.stringify({ ...document.body.dataset, tiles: document.querySelectorAll('.tile').length, hash: location.hash })")
        return "\(value?.string ?? "?"); exceptions: \(exceptions)"
    }

    /// The timeline's tiles, in page order: (identifier, mirrored path).
    func tiles(in container: String = "#timeline") async throws -> [(id: String, path: String)] {
        let value = try await evaluate("[...document.querySelectorAll('\(container) .tile')].map((t) => [t.dataset.id, t.dataset.path ?? ''])")
        return (value.array ?? []).map { pair in (pair.array?.first?.string ?? "", pair.array?.last?.string ?? "") }
    }

    /// Presses a key (a trusted event: the page can't tell it from a person's).
    func press(_ key: String, code: Int) async throws {
        for type in ["rawKeyDown", "keyUp"] {
            try await call("Input.dispatchKeyEvent", [
                "type": .string(type), "key": .string(key), "code": .string(key), "windowsVirtualKeyCode": .number(Double(code)),
            ])
        }
    }

    /// Waits until the tiles' arrival has played out (it scales them: their boxes move meanwhile); the
    /// placeholders' shimmer plays for ever.
    func settle(sourceLocation: SourceLocation = #_sourceLocation) async {
        await expect("document.getAnimations().every((a) => a.effect?.getTiming().iterations === Infinity || a.playState === 'finished')",
                     sourceLocation: sourceLocation)
    }

    /// Takes a screenshot into `file` and checks it shows something: decoded by vips, of the viewport's
    /// size, and not one colour.
    func screenshot(to file: URL, width: Int, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        await settle(sourceLocation: sourceLocation)
        try await screenshot().write(to: file)
        let header = try await Processes.run(URL(fileURLWithPath: "/usr/bin/vipsheader"), ["-f", "width", file.path])
        #expect(header.status == 0 && Int(header.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) == width,
                "\(file.path): \(header.stdout) \(header.stderr)", sourceLocation: sourceLocation)
        let deviation = try await Processes.run(URL(fileURLWithPath: "/usr/bin/vips"), ["deviate", file.path])
        let value = Double(deviation.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        #expect(value > 10, "\(file.path) is nearly one colour (standard deviation \(value))", sourceLocation: sourceLocation)
    }
}
