import Foundation
import PhotoLibrary
import PhotosyncServer
import PhotosyncWire
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `GET /healthz` and `GET /metrics`.
@Suite struct MetricsTests {
    @Test("/healthz answers with the current token")
    func health() async throws {
        try await withServer { server in
            let health = try await Client(server).get("/healthz").decode(Wire.Health.self)
            let current = try server.library.currentChangeToken.stringValue
            #expect(health.status == "ok" && health.token == current)
        }
    }

    @Test("/metrics counts commits, changes served, waiting clients, requests by route with their latency, and each folder's last scan")
    func metrics() async throws {
        try await OriginalTests.mirroredServer(count: 2) { server, folder, _ in
            let client = Client(server)
            let start = try await client.token()
            let scanned = Double(try server.library.currentChangeToken.sequence)
            #expect(await waitUntil { (try? await metric(client, "photosync_change_sequence")) == scanned })
            let commits = try #require(try await metric(client, "photosync_commits_total"))
            let poll = Task { try await client.get("/v1/changes?since=\(start)&wait=20") }
            let stream = try await EventReader(client, "/v1/changes/stream?since=\(start)")
            #expect(await waitUntil { (try? await metric(client, "photosync_longpoll_waiting")) == 1 })
            #expect(await waitUntil { (try? await metric(client, "photosync_sse_clients")) == 1 })
            _ = try await Fixtures.addAssets(3, to: server.library, in: server.directory)
            _ = try await poll.value
            _ = try await stream.nextChange()
            #expect(await waitUntil { (try? await metric(client, "photosync_commits_total")) == commits + 1 })
            let text = try await client.get("/metrics").text
            #expect(text.contains("photosync_changes_served_total{feed=\"longpoll\"} 1"))
            #expect(text.contains("photosync_changes_served_total{feed=\"sse\"} 1"))
            #expect(text.contains("photosync_longpoll_waiting 0"))
            let sequence = try server.library.currentChangeToken.sequence
            #expect(text.contains("photosync_change_sequence \(sequence)"))
            #expect(text.contains(#"photosync_http_requests_total{route="/v1/changes",method="GET",status="200"} 1"#), "\(text)")
            #expect(text.contains(#"photosync_http_request_duration_seconds_count{route="/v1/changes",method="GET"} 1"#))
            #expect(text.contains("photosync_last_scan_duration_seconds{root=\"\(folder.path)\"}"))
            #expect(text.contains("# TYPE photosync_commits_total counter"))
        }
    }

    @Test(
        "A client that goes away while it waits stops being counted at once, not at the next heartbeat",
        arguments: ["stream", "long-poll"])
    func departedClientsLeaveTheCount(kind: String) async throws {
        // Heartbeats a minute apart: without watching the connection, the server would notice the client's
        // departure only at a failed write (the next heartbeat), or at the long-poll's end.
        try await withServer(ServerOptions(heartbeatInterval: .seconds(60))) { server in
            let client = Client(server)
            let start = try await client.token()
            let (target, gauge) = kind == "stream"
                ? ("/v1/changes/stream?since=\(start)", "photosync_sse_clients")
                : ("/v1/changes?since=\(start)&wait=55", "photosync_longpoll_waiting")
            let socket = try #require(RawHTTP.openRequest(port: server.port, target: target))
            #expect(await waitUntil { (try? await metric(client, gauge)) == 1 })
            close(socket)
            #expect(await waitUntil(seconds: 10) { (try? await metric(client, gauge)) == 0 })
            // The server still serves (the connection's watch left nothing behind that fails).
            let again = try #require(RawHTTP.openRequest(port: server.port, target: target))
            #expect(await waitUntil { (try? await metric(client, gauge)) == 1 })
            close(again)
            #expect(await waitUntil(seconds: 10) { (try? await metric(client, gauge)) == 0 })
        }
    }

    @Test("A connection that waited before is watched again when it waits again: its departure is seen at once")
    func departureAfterAnEarlierWaitOnTheConnection() async throws {
        // An ended watch leaves the pipeline only with the connection's next bytes: those must still reach the
        // server, and the new wait must have a watch of its own.
        try await withServer(ServerOptions(heartbeatInterval: .seconds(60))) { server in
            let client = Client(server)
            let start = try await client.token()
            let socket = try #require(RawHTTP.openRequest(port: server.port, target: "/v1/changes?since=\(start)&wait=0.3"))
            defer { close(socket) }
            // The first long-poll has been answered (after its 0.3 s).
            let answered = #"photosync_http_requests_total{route="/v1/changes",method="GET",status="200"}"#
            #expect(await waitUntil { (try? await metric(client, answered)) == 1 })
            #expect(RawHTTP.sendRequest(socket, target: "/v1/changes?since=\(start)&wait=55"))
            #expect(await waitUntil { (try? await metric(client, "photosync_longpoll_waiting")) == 1 })
            shutdown(socket, Int32(SHUT_WR))
            #expect(await waitUntil(seconds: 10) { (try? await metric(client, "photosync_longpoll_waiting")) == 0 })
        }
    }
}
