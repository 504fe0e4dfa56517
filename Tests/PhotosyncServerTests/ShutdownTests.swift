import AsyncHTTPClient
import Foundation
import PhotoLibrary
import PhotosyncServer
import PhotosyncWire
import Testing

/// The `photosync` binary as a subprocess: `serve`, SIGTERM, `watch --serve`, `--add-key`.
@Suite struct ServeCommandTests {
    /// Starts `photosync serve` (or `watch … --serve`) and reads the bound port from its log.
    static func start(_ arguments: [String], directory: URL) async throws -> (Processes.Running, Client) {
        let running = try Processes.Running(Processes.photosync, arguments, environment: ["PHOTOSYNC_LOG_LEVEL": "info"])
        var base: String?
        #expect(await waitUntil(seconds: 30) {
            guard let range = running.stderr.text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else { return false }
            base = String(running.stderr.text[range])
            return true
        }, "the server never said where it listens: \(running.stderr.text)")
        return (running, Client(base: try #require(base)))
    }

    static func temporaryDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-serve-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    @Test("SIGTERM answers a waiting long-poll with the current token, ends an event stream cleanly, and exits 0")
    func sigterm() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try PhotoLibrary(url: directory.appending(path: "Library.photosync"))
        _ = try await Fixtures.addAssets(1, to: library, in: directory)
        let (server, client) = try await Self.start(["--library", library.url.path, "serve", "--listen", "127.0.0.1:0"], directory: directory)
        let token = try await client.token()
        let asked = ContinuousClock.now
        let poll = Task { try await client.get("/v1/changes?since=\(token)&wait=50") }
        let stream = try await EventReader(client, "/v1/changes/stream?since=\(token)")
        #expect(await waitUntil { (try? await metric(client, "photosync_longpoll_waiting")) == 1 })
        server.signal(SIGTERM)
        let reply = try await poll.value
        #expect(reply.status == 200)
        let page = try reply.decode(Wire.ChangesPage.self)
        let current = try library.currentChangeToken.stringValue
        #expect(page.changes.isEmpty && page.token == current)
        #expect(ContinuousClock.now - asked < .seconds(50), "answered only at the end of its wait")
        let after = try await stream.next()
        #expect(after == nil, "the stream did not end")
        #expect(stream.allComments.contains("the server is shutting down"))
        #expect(await server.exitStatus() == 0)
    }

    @Test("serve refuses an address other than loopback without --auth-file (usage, exit 2); --add-key prints a key that works")
    func addressesAndKeys() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try PhotoLibrary(url: directory.appending(path: "Library.photosync")).url.path
        let refused = try await Processes.run(Processes.photosync, ["--library", library, "serve", "--listen", "0.0.0.0:0"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--auth-file"), "\(refused.stderr)")
        let keys = directory.appending(path: "keys").path
        let added = try await Processes.run(Processes.photosync, ["serve", "--auth-file", keys, "--add-key", "phone", "--level", "read"])
        #expect(added.status == 0)
        let secret = added.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(secret.hasPrefix("psk_"))
        let (server, client) = try await Self.start(
            ["--library", library, "serve", "--listen", "127.0.0.1:0", "--auth-file", keys], directory: directory)
        try await client.get("/v1/token").expectError(401, "unauthorized")
        #expect(try await client.with(key: secret).get("/v1/token").status == 200)
        server.signal(SIGTERM)
        #expect(await server.exitStatus() == 0)
    }

    @Test("watch --serve mirrors and serves in one process: a file dropped into the folder wakes a long-poll")
    func watchServe() async throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let folder = try Fixtures.folder(in: directory, count: 2)
        let library = directory.appending(path: "Library.photosync").path
        let (daemon, client) = try await Self.start(
            ["--library", library, "watch", folder.path, "--settle", "0.2", "--serve", "127.0.0.1:0"], directory: directory)
        #expect(await waitUntil { (try? await client.get("/v1/assets").decode(Wire.AssetPage.self).assets.count) == 2 })
        // The first scan's progress, as the daemon published it.
        #expect(await waitUntil { (try? await metric(client, "photosync_scan_running")) == 0 })
        #expect(try await metric(client, "photosync_scan_files_found") == 2)
        #expect(try await metric(client, "photosync_scan_files_hashed") == 2)
        #expect(try await metric(client, "photosync_scan_bytes_hashed") ?? 0 > 0)
        let token = try await client.token()
        let poll = Task { try await client.get("/v1/changes?since=\(token)&wait=30") }
        try Fixtures.jpeg("dropped in").write(to: folder.appending(path: "new.jpg"))
        let page = try await poll.value.decode(Wire.ChangesPage.self)
        #expect(page.changes.first?.asset.paths.values.contains("new.jpg") == true, "\(page)")
        let measured = await waitUntil { (try? await client.get("/metrics").text.contains("photosync_watch_lag_seconds_count 1")) == true }
        let metrics = (try? await client.get("/metrics").text) ?? ""
        #expect(measured, "no watch lag measured: \(metrics)")
        daemon.signal(SIGTERM)
        #expect(await daemon.exitStatus() == 0)
    }
}

/// Graceful shutdown (what SIGTERM starts) reaching requests in every state.
@Suite struct GracefulShutdownTests {
    @Test("A long-poll already sending heartbeat spaces gets its JSON, with the current token, when the server shuts down")
    func longPollPastItsFirstHeartbeat() async throws {
        let server = try await LiveServer.start(ServerOptions(heartbeatInterval: .milliseconds(100)))
        defer { try? FileManager.default.removeItem(at: server.directory) }
        let client = Client(server)
        let token = try await client.token()
        let asked = ContinuousClock.now
        var request = HTTPClientRequest(url: client.base + "/v1/changes?since=\(token)&wait=50")
        request.method = .GET
        let response = try await Client.http.execute(request, timeout: .seconds(60))
        var body = response.body.makeAsyncIterator()
        var text = ""
        while text.count < 2, let chunk = try await body.next() { text += String(buffer: chunk) }
        #expect(text == "  ", "not in its heartbeat phase: \(text.prefix(40))")
        let stopped = Task { try await server.stop() }
        while let chunk = try await body.next() { text += String(buffer: chunk) }
        try await stopped.value
        let page = try Wire.makeDecoder().decode(Wire.ChangesPage.self, from: Data(text.utf8))
        let current = try server.library.currentChangeToken.stringValue
        #expect(page.changes.isEmpty && page.token == current)
        #expect(ContinuousClock.now - asked < .seconds(50), "answered only at the end of its wait")
    }
}
