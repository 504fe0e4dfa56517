import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `photosync thumbnails`: pre-rendering into the rendition cache, resumably, with its progress published
/// for `status`.
@Suite struct ThumbnailsCommandTests {
    /// The pre-render state another process reads (`prerender.json`), as `status --json` shows it; nil
    /// while there is none, or no library yet (a daemon starting).
    static func prerender(_ cli: Photosync) throws -> [String: Any]? {
        let status = try cli.run("status", "--json")
        guard status.status == 0 else { return nil }
        return try status.json()["prerender"] as? [String: Any]
    }

    @Test(arguments: LibraryEngine.allCases)
    func countsRenditionsAndASecondRunRendersNothing(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try ImageFiles.folder(["camera.jpg", "pattern.png", "orient-6.jpg", "corrupt.jpg", "bomb.gif"])
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        try #require(try cli.run("scan", folder.path).status == 0)
        #expect(try Self.prerender(cli) == nil)
        let first = try cli.run("thumbnails", "--sizes", "256,64", "--json")
        #expect(first.status == 0, "\(first.stderr)")
        let report = try first.json()
        #expect(report["state"] as? String == "finished")
        #expect(report["scope"] as? String == "library")
        #expect(report["total"] as? Int == 5 && report["completed"] as? Int == 5)
        #expect(report["rendered"] as? Int == 6, "3 good assets × 2 sizes: \(report)")
        #expect(report["failed"] as? Int == 2)
        #expect(report["sizes"] as? [String] == ["256", "64"])
        #expect(ImageFiles.renditions(of: cli.library).count == 6)
        // Resumable: everything is there already.
        let second = try cli.run("thumbnails", "--sizes", "256,64", "--json").json()
        #expect(second["rendered"] as? Int == 0 && second["alreadyCached"] as? Int == 6, "\(second)")
        // What it rendered serves `thumbnail` (same size, mode, format and quality) from the cache.
        let out = cli.directory.appending(path: "t.jpg").path
        let served = try cli.run("thumbnail", "camera.jpg", "--size", "64", "-o", out, "--json").json()
        #expect(served["source"] as? String == "renditionCache")
        // status: the last run, finished.
        let state = try #require(try Self.prerender(cli))
        #expect(state["state"] as? String == "finished" && state["alreadyCached"] as? Int == 6)
        let text = try cli.run("status").stdout
        #expect(text.contains("pre-render: finished"), "\(text)")
        // Plain text: the summary line.
        let plain = try cli.run("thumbnails", "--sizes", "64")
        #expect(plain.stdout.contains("5/5 assets") && plain.stdout.contains("last failure"), "\(plain.stdout)")
    }

    /// The bytes of the library's renditions.
    static func renditionBytes(_ cli: Photosync) -> Int {
        ImageFiles.renditions(of: cli.library).reduce(0) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0)
        }
    }

    @Test(arguments: LibraryEngine.allCases)
    func aCacheBudgetIsTheLibrarysAndEveryLaterRunKeepsToIt(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try ImageFiles.folder(["camera.jpg", "pattern.png", "orient-6.jpg"])
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        try #require(try cli.run("scan", folder.path).status == 0)
        for bad in ["0", "-5", "lots", "12X"] {
            let refused = try cli.run("thumbnails", "--cache-budget", bad)
            #expect(refused.status == 2 && refused.stderr.contains("--cache-budget"), "\(bad): \(refused.stderr)")
        }
        // Many renditions, each small beside the budgets below.
        let full = try cli.run("thumbnails", "--sizes", "200,210,220,230,240,250", "--json").json()
        #expect(full["state"] as? String == "finished")
        let everything = Self.renditionBytes(cli)
        // A budget below what is cached: evicted down to it, and what the run renders keeps within it (it stops
        // at the budget, or renditions are evicted).
        let budget = everything / 2
        let limited = try cli.run("thumbnails", "--sizes", "300,310,320,330,340,350", "--cache-budget", "\(budget)", "--json")
        #expect(limited.status == 0, "\(limited.stderr)")
        #expect(["cacheFull", "finished"].contains(try limited.json()["state"] as? String), "\(limited.stdout)")
        #expect(Self.renditionBytes(cli) <= budget)
        // A later run without the option (as the daemon's) keeps to the stored budget, though what it would render
        // is several times that.
        let sizes = stride(from: 40, through: 100, by: 4).map(String.init).joined(separator: ",")
        let later = try cli.run("thumbnails", "--sizes", sizes, "--json")
        #expect(later.status == 0, "\(later.stderr)")
        #expect(Self.renditionBytes(cli) <= budget, "\(Self.renditionBytes(cli)) bytes for a budget of \(budget)")
    }

    @Test(arguments: LibraryEngine.allCases)
    func aProgressBarOnATerminalAndNoneOtherwise(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try ImageFiles.folder(["camera.jpg", "pattern.png", "orient-6.jpg"])
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        try #require(try cli.run("scan", folder.path).status == 0)
        // stderr a terminal: the bar, drawn in place (carriage return, erase line), cleared before the summary.
        let terminal = try Self.runWithTerminalStderr(cli, ["thumbnails", "--sizes", "64"])
        #expect(terminal.status == 0)
        #expect(terminal.stderr.contains("\r\u{1B}[2Krendering  [") && terminal.stderr.contains(" assets "), "\(terminal.stderr.debugDescription)")
        #expect(terminal.stderr.hasSuffix("\r\u{1B}[2K"), "\(terminal.stderr.debugDescription)")
        #expect(terminal.stdout.contains("3/3 assets"))
        // stderr a pipe: no bar, no escape sequence (a run this short logs no progress line either).
        let piped = try cli.run("thumbnails", "--sizes", "48")
        #expect(piped.status == 0 && piped.stdout.contains("3/3 assets"))
        #expect(!piped.stderr.contains("\r") && !piped.stderr.contains("\u{1B}") && !piped.stderr.contains("[#"), "\(piped.stderr.debugDescription)")
    }

    /// Runs `photosync arguments…` with its stderr on a new pseudo-terminal: its exit status, what it wrote
    /// on the terminal, and its stdout.
    static func runWithTerminalStderr(_ cli: Photosync, _ arguments: [String]) throws -> Photosync.Result {
        // posix_openpt, unlockpt and ptsname, as the ioctls they are (Swift's Glibc module leaves them out).
        let primary = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        try #require(primary >= 0)
        defer { close(primary) }
        var unlock: CInt = 0, number: CUnsignedInt = 0
        try #require(ioctl(primary, UInt(0x4004_5431) /* TIOCSPTLCK */, &unlock) == 0)
        try #require(ioctl(primary, UInt(0x8004_5430) /* TIOCGPTN */, &number) == 0)
        let terminal = try #require(FileHandle(forUpdatingAtPath: "/dev/pts/\(number)"))
        let process = Process()
        process.executableURL = Photosync.binary
        process.arguments = Photosync.placingLibrary(cli.libraryArgument, in: arguments)
        process.environment = cli.environment([:])
        let out = Pipe()
        process.standardOutput = out
        process.standardError = terminal
        process.standardInput = FileHandle.nullDevice
        try process.run()
        try terminal.close()  // Ours: the primary reads its end (EIO) once the child's copy is closed.
        let stdout = Photosync.Collector(out)
        var written = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(primary, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            written.append(contentsOf: buffer[0..<count])
        }
        let text = stdout.finish()
        process.waitUntilExit()
        // The terminal turns "\n" into "\r\n".
        return Photosync.Result(
            status: process.terminationStatus, stdout: text,
            stderr: String(decoding: written, as: UTF8.self).replacingOccurrences(of: "\r\n", with: "\n"))
    }

    @Test(arguments: LibraryEngine.allCases)
    func sinceATokenRendersOnlyWhatWasAddedOrChanged(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try ImageFiles.folder(["camera.jpg", "pattern.png"])
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        try #require(try cli.run("scan", folder.path).status == 0)
        let token = try cli.token()
        try FileManager.default.copyItem(at: ImageFiles.fixture("orient-3.jpg"), to: folder.appending(path: "new.jpg"))
        // An edit: new content under an old name.
        try FileManager.default.removeItem(at: folder.appending(path: "pattern.png"))
        try FileManager.default.copyItem(at: ImageFiles.fixture("alpha.png"), to: folder.appending(path: "pattern.png"))
        try #require(try cli.run("scan", folder.path).status == 0)
        let report = try cli.run("thumbnails", "--since", token, "--sizes", "32", "--json").json()
        #expect(report["scope"] as? String == "changes")
        #expect(report["total"] as? Int == 2 && report["rendered"] as? Int == 2, "\(report)")
        // A token of nothing since renders nothing; a bad token is exit 4.
        let none = try cli.run("thumbnails", "--since", try cli.token(), "--json").json()
        #expect(none["total"] as? Int == 0 && none["state"] as? String == "finished")
        #expect(try cli.run("thumbnails", "--since", "nonsense").status == 4)
    }

    @Test(arguments: LibraryEngine.allCases)
    func oneAtATime(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = try ImageFiles.folder(["pattern.png"])
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        try #require(try cli.run("scan", folder.path).status == 0)
        // Another process holds the pre-render lock.
        let lock = open(cli.library.appending(path: "prerender.lock").path, O_RDWR | O_CREAT, 0o644)
        defer { close(lock) }
        try #require(flock(lock, LOCK_EX) == 0)
        let refused = try cli.run("thumbnails", "--json")
        #expect(refused.status == 1)
        #expect(try refused.errorReport()["error"] as? String == "busy")
        flock(lock, LOCK_UN)
        #expect(try cli.run("thumbnails").status == 0)
    }

    // These two render 40 and 60 large images, and what they test — signals, the pre-render's files — is the
    // same on both engines: each runs on one (the engines' part, listing what to render, runs on both above).
    @Test(arguments: [LibraryEngine.postgres])
    func sigtermStopsAtOnceExitsZeroAndTheNextRunResumes(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = cli.directory.appending(path: "large")
        try ImageFiles.manyLargeImages(60, in: folder)
        defer { cli.cleanUp() }
        try #require(try cli.run("scan", folder.path).status == 0)
        let (process, out, err) = try cli.start(["thumbnails", "--jobs", "1", "--json"])
        let stdout = Photosync.Collector(out), stderr = Photosync.Collector(err)
        // Running, and some assets done: what status shows.
        var running: [String: Any]?
        let caught = try Photosync.waitUntil(seconds: 120) {
            running = try Self.prerender(cli)
            return running?["state"] as? String == "running" && (running?["completed"] as? Int ?? 0) >= 2 || !process.isRunning
        }
        try #require(caught && process.isRunning, "the pre-render ended before it could be interrupted")
        #expect(running?["pid"] as? Int == Int(process.processIdentifier))
        #expect(running?["total"] as? Int == 60)
        let text = try cli.run("status").stdout
        #expect(text.contains("pre-render: running (pid \(process.processIdentifier)) since "), "\(text)")
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(stderr.finish())")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(stdout.finish().utf8)) as? [String: Any])
        #expect(report["state"] as? String == "interrupted")
        let done = try #require(report["completed"] as? Int)
        #expect(done < 60)
        // No partial rendition: every file whole, nothing left in the temporary folder.
        let files = ImageFiles.renditions(of: cli.library)
        #expect(files.allSatisfy { $0.whole }, "\(files.filter { !$0.whole })")
        #expect(ImageFiles.incoming(of: cli.library).isEmpty)
        #expect(try Self.prerender(cli)?["state"] as? String == "interrupted")
        // The next run renders only what is missing.
        let next = try cli.run("thumbnails", "--json").json()
        #expect(next["alreadyCached"] as? Int == files.count)
        #expect(next["rendered"] as? Int == 120 - files.count, "\(next)")
    }

    @Test(arguments: [LibraryEngine.sqlite])
    func aPreRenderWhoseProcessDiedShowsAsInterrupted(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        let folder = cli.directory.appending(path: "large")
        try ImageFiles.manyLargeImages(40, in: folder)
        defer { cli.cleanUp() }
        try #require(try cli.run("scan", folder.path).status == 0)
        let (process, _, _) = try cli.start(["thumbnails", "--jobs", "1"])
        let caught = try Photosync.waitUntil(seconds: 120) {
            try Self.prerender(cli)?["state"] as? String == "running" || !process.isRunning
        }
        try #require(caught && process.isRunning)
        kill(process.processIdentifier, SIGKILL)
        process.waitUntilExit()
        // Its file still says running; the lock it held went with it.
        #expect(try Self.prerender(cli)?["state"] as? String == "interrupted")
        #expect(try cli.run("status").stdout.contains("pre-render: interrupted"))
    }
}
