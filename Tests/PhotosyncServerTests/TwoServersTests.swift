import Foundation
import PhotosyncWire
import PostgresTestSupport
import Testing

/// Two `photosync serve` processes on one PostgreSQL library (issue 15): a client long-polling one, or
/// following its event stream, is woken by a write made through the other, or by `photosync import` in a
/// third process. The servers' 1 s re-check is off (`PHOTOSYNC_COMMIT_POLL_INTERVAL=off`): only the commit's
/// notification (LISTEN/NOTIFY) can answer the long-poll before its 50 s wait ends.
@Suite struct TwoServersTests {
    /// A PostgreSQL library (a database of the tests' cluster and a files directory) and what the processes
    /// sharing it need in their environment.
    struct Library {
        let directory: URL
        let environment: [String: String]

        init() throws {
            directory = FileManager.default.temporaryDirectory.appending(path: "photosync-two-servers-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            environment = [
                "PHOTOSYNC_LIBRARY": try PostgresCluster.shared().makeDatabase(prefix: "serve").absoluteString,
                "PHOTOSYNC_LIBRARY_FILES": directory.appending(path: "files").path,
                "PHOTOSYNC_LOG_LEVEL": "info",
                "PHOTOSYNC_COMMIT_POLL_INTERVAL": "off",
            ]
        }

        /// Runs `photosync arguments…` on the library to its end.
        func run(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await Processes.run(Processes.photosync, arguments, environment: environment)
        }

        /// Starts `photosync serve` on a free loopback port; its client once it says where it listens.
        func serve() async throws -> (Processes.Running, Client) {
            let running = try Processes.Running(Processes.photosync, ["serve", "--listen", "127.0.0.1:0"], environment: environment)
            var base: String?
            #expect(await waitUntil(seconds: 60) {
                guard let range = running.stderr.text.range(of: #"http://127\.0\.0\.1:[0-9]+"#, options: .regularExpression) else {
                    return running.process.isRunning ? false : true
                }
                base = String(running.stderr.text[range])
                return true
            }, "the server never said where it listens: \(running.stderr.text)")
            return (running, Client(base: try #require(base, "the server did not start: \(running.stderr.text)")))
        }
    }

    @Test("a long-poll and an event stream on server A are woken by a write through server B and by an import in a third process")
    func aWriteThroughOneServerWakesAClientOfTheOther() async throws {
        let library = try Library()
        defer { try? FileManager.default.removeItem(at: library.directory) }
        let initialised = try await library.run(["init"])
        #expect(initialised.status == 0, "\(initialised.stderr)")
        let (serverA, a) = try await library.serve()
        let (serverB, b) = try await library.serve()
        defer {
            for server in [serverA, serverB] where server.process.isRunning { server.signal(SIGTERM) }
        }
        let token = try await a.token()
        #expect(try await b.token() == token, "the two servers serve different libraries")

        // A long-poll and an event stream on A, both waiting before anything is written.
        let poll = Task { try await a.get("/v1/changes?since=\(token)&wait=50") }
        let stream = try await EventReader(a, "/v1/changes/stream?since=\(token)")
        #expect(await waitUntil { (try? await metric(a, "photosync_longpoll_waiting")) == 1 }, "the long-poll is not waiting")

        // A write through B: A's long-poll answers with it, long before its wait ends.
        let written = ContinuousClock.now
        let album = try await b.send(.POST, "/v1/albums", json: Wire.NewAlbum(title: "Written through B"))
        #expect(album.status == 201, "\(album.text)")
        let albumID = try album.decode(Wire.AlbumWrite.self).album.localIdentifier
        let reply = try await poll.value
        let latency = ContinuousClock.now - written
        #expect(reply.status == 200, "\(reply.text)")
        let page = try reply.decode(Wire.ChangesPage.self)
        #expect(page.changes.count == 1, "\(reply.text)")
        #expect(page.changes.first?.assetCollection.inserted == [albumID], "\(reply.text)")
        #expect(latency < .seconds(20), "A answered \(latency) after B's write: only at the end of its wait")
        let streamed = try #require(try await stream.nextChange())
        #expect(streamed.assetCollection.inserted == [albumID])

        // An import in a third process: A's stream delivers it.
        let samples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../Samples").standardizedFileURL
        let imported = try await library.run(["import", samples.path])
        #expect(imported.status == 0, "\(imported.stderr)")
        let next = try #require(try await stream.nextChange())
        #expect(next.author == "photosync-import")
        #expect(next.asset.inserted.count == 6)
        // Both servers now answer the same token, and B's long-poll from the first token sees both changes.
        #expect(try await a.token() == (try await b.token()))
        let fromB = try await b.get("/v1/changes?since=\(token)").decode(Wire.ChangesPage.self)
        #expect(fromB.changes.count == 2)

        serverA.signal(SIGTERM)
        serverB.signal(SIGTERM)
        #expect(await serverA.exitStatus() == 0)
        #expect(await serverB.exitStatus() == 0)
        for log in [serverA.stderr.finish(), serverB.stderr.finish()] {
            #expect(!log.contains(PostgresCluster.testPasswordInLogs), "a server logged the password: \(log)")
        }
    }
}

extension PostgresCluster {
    /// The password of the tests' cluster, which no log may show.
    static var testPasswordInLogs: String { "photosync-test-password" }
}
