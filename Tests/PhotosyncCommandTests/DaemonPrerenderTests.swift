import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The daemon's pre-rendering (`photosync watch`): after the initial scan, after new files, stopped by
/// SIGTERM with its child, resumed by the next daemon; `status` shows it.
@Suite struct DaemonPrerenderTests {
    typealias Daemon = DaemonTests.Daemon

    /// Polls `status --json` until the last pre-render matches `condition` (at most `seconds`); its state.
    static func waitForPrerender(
        _ cli: Photosync, seconds: Double = 180, _ condition: ([String: Any]) -> Bool
    ) throws -> [String: Any]? {
        var last: [String: Any]?
        let met = try Photosync.waitUntil(seconds: seconds) {
            last = try ThumbnailsCommandTests.prerender(cli)
            return last.map(condition) ?? false
        }
        return met ? last : nil
    }

    /// `thumbnail NAME --size SIZE --json`: where the image came from.
    static func source(_ cli: Photosync, _ name: String, size: String) throws -> String? {
        let out = cli.directory.appending(path: "probe.jpg").path
        let result = try cli.run("thumbnail", name, "--size", size, "-o", out, "--json")
        return try result.json()["source"] as? String
    }

    @Test(arguments: LibraryEngine.allCases)
    func theDaemonPreRendersAfterItsScanAndAfterANewFile(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try ImageFiles.folder(["camera.jpg", "pattern.png"])
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let daemon = try Daemon(cli, folder: folder, extra: ["--settle", "0.2"])
        let initial = try Self.waitForPrerender(cli) { $0["state"] as? String == "finished" && $0["scope"] as? String == "library" }
        try #require(initial != nil, "no pre-render after the scan\n\(daemon.logText)")
        #expect(initial?["total"] as? Int == 2 && initial?["rendered"] as? Int == 4, "\(initial ?? [:])")
        #expect(initial?["sizes"] as? [String] == ["256", "1440"])
        #expect(try Self.source(cli, "camera.jpg", size: "256") == "renditionCache")
        #expect(try Self.source(cli, "pattern.png", size: "1440") == "renditionCache")
        // A new file: its renditions, and only its.
        try FileManager.default.copyItem(at: ImageFiles.fixture("orient-6.jpg"), to: folder.appending(path: "new.jpg"))
        let after = try Self.waitForPrerender(cli) { $0["state"] as? String == "finished" && $0["scope"] as? String == "changes" }
        try #require(after != nil, "no pre-render after a new file\n\(daemon.logText)")
        #expect(after?["total"] as? Int == 1 && after?["rendered"] as? Int == 2, "\(after ?? [:])")
        #expect(try Self.source(cli, "new.jpg", size: "256") == "renditionCache")
        #expect(try cli.run("status").stdout.contains("pre-render: finished"))
        #expect(daemon.stop() == 0, "\(daemon.logText)")
        #expect(daemon.logText.contains("pre-rendered 4 renditions of 2 assets"), "\(daemon.logText)")
    }

    // The two interruptions render 60 large images each, and what they test — signals, the pre-render's
    // files, its child — is the same on both engines: each runs on one, so that both engines see an
    // interrupted pre-render resumed (the engines' part, listing what to render, runs on both above).
    @Test(arguments: [LibraryEngine.sqlite])
    func sigtermDuringThePreRenderStopsItsChildAndTheNextDaemonResumes(engine: LibraryEngine) throws {
        try Self.interruptAndResume(engine) { daemon, child in
            #expect(child != daemon.process.processIdentifier)
            #expect(daemon.stop(SIGTERM) == 0, "\(daemon.logText)")
            // The daemon waited for its child.
            #expect(!ImageFiles.isRunning(child), "the pre-render child \(child) outlived the daemon")
        }
    }

    @Test(arguments: [LibraryEngine.postgres])
    func aKilledDaemonsPreRenderStopsWithItAndTheNextDaemonResumes(engine: LibraryEngine) throws {
        try Self.interruptAndResume(engine) { daemon, child in
            // No SIGTERM to pass on: the daemon dies at once. Its child notices and stops within moments.
            _ = daemon.stop(SIGKILL)
            let stopped = Photosync.waitUntil(seconds: 30) { !ImageFiles.isRunning(child) }
            #expect(stopped, "the pre-render child \(child) outlived the killed daemon")
        }
    }

    /// A daemon pre-rendering 60 large images, caught running with some done, then stopped by `stop` (given
    /// the daemon and its child's pid, which it waits to be gone): the pre-render shows interrupted before
    /// its end, no partial rendition is left, and the next daemon renders only what is missing.
    static func interruptAndResume(_ engine: LibraryEngine, _ stop: (Daemon, pid_t) throws -> Void) throws {
        let cli = try Photosync(engine)
        let folder = cli.directory.appending(path: "large")
        try ImageFiles.manyLargeImages(60, in: folder)
        defer { cli.cleanUp() }
        let daemon = try Daemon(cli, folder: folder)
        let running = try Self.waitForPrerender(cli) { $0["state"] as? String == "running" && ($0["completed"] as? Int ?? 0) >= 2 }
        try #require(running != nil, "the pre-render was not caught running\n\(daemon.logText)")
        try stop(daemon, pid_t(try #require(running?["pid"] as? Int)))
        let state = try #require(try ThumbnailsCommandTests.prerender(cli))
        #expect(state["state"] as? String == "interrupted" && (state["completed"] as? Int ?? 60) < 60, "\(state)")
        let files = ImageFiles.renditions(of: cli.library)
        #expect(files.allSatisfy { $0.whole }, "\(files.filter { !$0.whole })")
        #expect(ImageFiles.incoming(of: cli.library).isEmpty)
        // The next daemon renders only what is missing.
        let next = try Daemon(cli, folder: folder)
        let resumed = try Self.waitForPrerender(cli) { $0["state"] as? String == "finished" && $0["scope"] as? String == "library" }
        try #require(resumed != nil, "\(next.logText)")
        #expect(resumed?["alreadyCached"] as? Int == files.count && resumed?["rendered"] as? Int == 120 - files.count, "\(resumed ?? [:])")
        #expect(next.stop() == 0)
    }

    @Test(arguments: LibraryEngine.allCases)
    func sizesAreChosenAndPreRenderingCanBeTurnedOff(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try ImageFiles.folder(["pattern.png"])
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let daemon = try Daemon(cli, folder: folder, extra: ["--prerender-sizes", "64,48x32"])
        let done = try Self.waitForPrerender(cli) { $0["state"] as? String == "finished" }
        #expect(done?["sizes"] as? [String] == ["64", "48x32"], "\(daemon.logText)")
        #expect(try Self.source(cli, "pattern.png", size: "48x32") == "renditionCache")
        #expect(daemon.stop() == 0)

        let other = try Photosync(engine)
        defer { other.cleanUp() }
        let off = try Daemon(other, folder: folder, extra: ["--no-prerender"])
        _ = try DaemonTests.waitUntilWatching(other)
        #expect(try other.run("changes", "--since", try other.token(), "--sync", folder.path).status == 0)
        // A pre-render would start within seconds of the scan's end (2 s of quiet): none does.
        let started = try Self.waitForPrerender(other, seconds: 6) { _ in true }
        #expect(started == nil)
        #expect(off.stop() == 0)
        #expect(!off.logText.contains("pre-rendered"))
    }
}
