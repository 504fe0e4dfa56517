import Foundation
import PostgresTestSupport
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Headless Chromium (Debian's `chromium`), driven over the DevTools protocol through a pipe:
/// `--remote-debugging-pipe` makes the browser read commands on its file descriptor 3 and write replies and
/// events on 4, each a JSON message ended by a NUL — no port, no WebSocket client.
///
/// The browser runs in a process group of its own (its helpers with it), with a profile directory of the
/// test's; ``close()`` asks it to quit and, failing that, kills the group.
final class Chromium: Sendable {
    /// A DevTools protocol error reply, or a browser that went away.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A message the browser sent without being asked (`Runtime.exceptionThrown`, …).
    struct Event: Sendable {
        let method: String
        let session: String?
        let params: JSONValue
    }

    private struct State {
        var nextID = 1
        var waiting: [Int: CheckedContinuation<JSONValue, any Error>] = [:]
        var events: [Event] = []
        var ended = false
    }

    let pid: pid_t
    let log: URL
    private let commands: Int32
    private let replies: Int32
    private let state = Mutex(State())
    private let exited = DispatchSemaphore(value: 0)

    static let executable = "/usr/bin/chromium"

    static var isInstalled: Bool { FileManager.default.isExecutableFile(atPath: executable) }

    /// Starts the browser with `profile` as its user data directory (kept between launches: localStorage
    /// and IndexedDB live there).
    static func launch(profile: URL) throws -> Chromium {
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        let arguments = [
            "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--remote-debugging-pipe",
            "--user-data-dir=\(profile.path)", "--no-first-run", "--no-default-browser-check", "--disable-background-networking",
            "--disable-component-update", "--disable-sync", "--disable-extensions", "--mute-audio", "--hide-scrollbars",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows",
            "--force-color-profile=srgb", "--lang=en-GB", "--window-size=1280,900", "about:blank",
        ]
        return try Chromium(arguments: arguments, log: profile.appending(path: "chromium.log"))
    }

    private init(arguments: [String], log: URL) throws {
        self.log = log
        var toBrowser: [Int32] = [0, 0], fromBrowser: [Int32] = [0, 0]
        guard pipe(&toBrowser) == 0, pipe(&fromBrowser) == 0 else {
            throw Failure(description: "pipe: \(String(cString: strerror(errno)))")
        }
        // Moved far from 3 and 4 (so that dup2 onto them in the child always copies, which drops
        // close-on-exec), and closed on exec in this process's other children.
        let (readEnd, writeEnd) = (Self.moveHigh(toBrowser[0]), Self.moveHigh(fromBrowser[1]))
        commands = Self.moveHigh(toBrowser[1])
        replies = Self.moveHigh(fromBrowser[0])
        let output = Glibc.open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        defer {
            Glibc.close(readEnd)
            Glibc.close(writeEnd)
            Glibc.close(output)
        }
        pid = try Self.spawn(Self.executable, arguments, descriptors: [(readEnd, 3), (writeEnd, 4), (output, 1), (output, 2)])
        let pid = pid
        let exited = exited
        Thread.detachNewThread {
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
            exited.signal()
        }
        Thread.detachNewThread { [self] in readReplies() }
    }

    private static func moveHigh(_ descriptor: Int32) -> Int32 {
        let moved = fcntl(descriptor, F_DUPFD_CLOEXEC, 64)
        Glibc.close(descriptor)
        return moved
    }

    private static func spawn(_ path: String, _ arguments: [String], descriptors: [(Int32, Int32)]) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        for (source, target) in descriptors { posix_spawn_file_actions_adddup2(&actions, source, target) }
        // Nothing else is inherited: the browser runs for as long as its test (see `addCloseFrom`).
        guard addCloseFrom(&actions, (descriptors.map(\.1).max() ?? 2) + 1) == 0 else {
            throw Failure(description: "cannot close inherited descriptors for \(path)")
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, &argv, environ)
        guard result == 0 else { throw Failure(description: "cannot start \(path): \(String(cString: strerror(result)))") }
        return pid
    }

    // MARK: Messages

    /// Sends a command and waits for its reply's `result`.
    ///
    /// - Throws: ``Failure`` for an error reply, or when the browser goes away first.
    @discardableResult
    func call(_ method: String, _ params: JSONValue = [:], session: String? = nil) async throws -> JSONValue {
        try await withCheckedThrowingContinuation { continuation in
            let id: Int? = state.withLock { state in
                guard !state.ended else { return nil }
                let id = state.nextID
                state.nextID += 1
                state.waiting[id] = continuation
                return id
            }
            guard let id else {
                continuation.resume(throwing: Failure(description: "the browser has gone away"))
                return
            }
            var message: [String: JSONValue] = ["id": .number(Double(id)), "method": .string(method), "params": params]
            if let session { message["sessionId"] = .string(session) }
            var bytes = Array((try? JSONEncoder().encode(JSONValue.object(message))) ?? Data())
            bytes.append(0)
            if !writeAll(bytes) {
                let waiting = state.withLock { $0.waiting.removeValue(forKey: id) }
                waiting?.resume(throwing: Failure(description: "cannot write to the browser: \(String(cString: strerror(errno)))"))
            }
        }
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { write(commands, $0.baseAddress, $0.count) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return false }
            offset += written
        }
        return true
    }

    private func readReplies() {
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(replies, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            pending.append(contentsOf: buffer[0..<count])
            while let end = pending.firstIndex(of: 0) {
                let message = try? JSONDecoder().decode(JSONValue.self, from: Data(pending[..<end]))
                pending.removeSubrange(...end)
                if let message { dispatch(message) }
            }
        }
        let waiting = state.withLock { state in
            state.ended = true
            defer { state.waiting = [:] }
            return state.waiting.values
        }
        for continuation in waiting { continuation.resume(throwing: Failure(description: "the browser has gone away")) }
    }

    private func dispatch(_ message: JSONValue) {
        guard let id = message["id"]?.int else {
            let event = Event(method: message["method"]?.string ?? "", session: message["sessionId"]?.string, params: message["params"] ?? .null)
            state.withLock { $0.events.append(event) }
            return
        }
        guard let continuation = state.withLock({ $0.waiting.removeValue(forKey: id) }) else { return }
        if let error = message["error"] {
            continuation.resume(throwing: Failure(description: "\(error["message"]?.string ?? "error") \(error["data"]?.string ?? "")"))
        } else {
            continuation.resume(returning: message["result"] ?? .null)
        }
    }

    /// The events received so far named `method`.
    func events(_ method: String) -> [Event] {
        state.withLock { $0.events.filter { $0.method == method } }
    }

    // MARK: Pages

    /// Opens a tab on `url` and attaches to it, with its runtime and log reported as events.
    func open(_ url: String, width: Int = 1280, height: Int = 900, scale: Double = 1, mobile: Bool = false) async throws -> BrowserPage {
        let target = try await call("Target.createTarget", ["url": "about:blank"])["targetId"]?.string ?? ""
        let session = try await call("Target.attachToTarget", ["targetId": .string(target), "flatten": true])["sessionId"]?.string ?? ""
        let page = BrowserPage(browser: self, target: target, session: session)
        try await page.call("Runtime.enable")
        try await page.call("Page.enable")
        try await page.resize(width: width, height: height, scale: scale, mobile: mobile)
        try await page.navigate(url)
        return page
    }

    /// Asks the browser to quit, then makes sure it and its helpers have (SIGKILL to its process group
    /// after 10 s).
    func close() async {
        _ = try? await call("Browser.close")
        let exited = exited
        let quit = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: exited.wait(timeout: .now() + 10) == .success) }
        }
        if !quit { kill(-pid, SIGKILL) }
        Glibc.close(commands)
        Glibc.close(replies)
    }

    /// What the browser wrote to its standard output and error (for failure messages).
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }
}

/// One tab of a ``Chromium``.
struct BrowserPage: Sendable {
    let browser: Chromium
    let target: String
    let session: String

    @discardableResult
    func call(_ method: String, _ params: JSONValue = [:]) async throws -> JSONValue {
        try await browser.call(method, params, session: session)
    }

    func navigate(_ url: String) async throws {
        try await call("Page.navigate", ["url": .string(url)])
    }

    func resize(width: Int, height: Int, scale: Double = 1, mobile: Bool = false) async throws {
        try await call("Emulation.setDeviceMetricsOverride", [
            "width": .number(Double(width)), "height": .number(Double(height)), "deviceScaleFactor": .number(scale), "mobile": .bool(mobile),
        ])
    }

    /// The value of a JavaScript expression (awaited if it is a promise).
    ///
    /// - Throws: ``Chromium/Failure`` with the exception's text when the expression throws.
    func evaluate(_ expression: String) async throws -> JSONValue {
        let reply = try await call("Runtime.evaluate", ["expression": .string(expression), "returnByValue": true, "awaitPromise": true])
        if let exception = reply["exceptionDetails"] {
            throw Chromium.Failure(description: "\(expression): \(exception["exception"]?["description"]?.string ?? exception["text"]?.string ?? "exception")")
        }
        return reply["result"]?["value"] ?? .null
    }

    /// A PNG of what the page shows.
    func screenshot() async throws -> Data {
        let reply = try await call("Page.captureScreenshot", ["format": "png"])
        guard let text = reply["data"]?.string, let data = Data(base64Encoded: text) else {
            throw Chromium.Failure(description: "no screenshot data")
        }
        return data
    }

    /// The page's uncaught exceptions so far (its scripts' errors, and promises rejected unhandled).
    var exceptions: [String] {
        browser.events("Runtime.exceptionThrown").filter { $0.session == session }.map { event in
            let details = event.params["exceptionDetails"]
            return "\(details?["exception"]?["description"]?.string ?? details?["text"]?.string ?? "?") at \(details?["url"]?.string ?? ""):\(details?["lineNumber"]?.int ?? 0)"
        }
    }

    func close() async throws {
        try await browser.call("Target.closeTarget", ["targetId": .string(target)])
    }
}
