import Foundation
import PhotoLibrary
import PhotosyncServer
import PhotosyncWire
import Testing

/// `GET /v1/changes/stream`: Server-Sent Events.
@Suite struct EventStreamTests {
    @Test("Each change is one event whose id is its token; a reconnection with Last-Event-ID resumes right after it")
    func resumesWithLastEventID() async throws {
        try await withServer { server in
            let client = Client(server)
            let start = try await client.token()
            let first = try await EventReader(client, "/v1/changes/stream?since=\(start)")
            #expect(first.status == 200)
            #expect(first.headers.contains { $0.0.lowercased() == "content-type" && $0.1.hasPrefix("text/event-stream") })
            var received: [Wire.Change] = []
            for round in 0..<3 {
                _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: "round \(round)")
                received.append(try #require(try await first.nextChange()))
            }
            #expect(received.map(\.author) == ["round 0", "round 1", "round 2"])
            // Two more while disconnected (the first reader is dropped).
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: "round 3")
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: "round 4")
            let resumed = try await EventReader(client, "/v1/changes/stream?since=\(start)", lastEventID: received[1].token)
            var after: [String] = []
            for _ in 0..<3 { after.append(try #require(try await resumed.nextChange()).author) }
            #expect(after == ["round 2", "round 3", "round 4"])
            let journal = try Array(server.library.fetchPersistentChanges(since: ChangeToken(string: start)))
            #expect(received.map(\.token) == journal.prefix(3).map(\.changeToken.stringValue))
        }
    }

    @Test("A heartbeat comment arrives every interval while nothing changes")
    func heartbeats() async throws {
        try await withServer(ServerOptions(heartbeatInterval: .milliseconds(150))) { server in
            let client = Client(server)
            let reader = try await EventReader(client, "/v1/changes/stream?since=\(try await client.token())")
            #expect(try await reader.waitForComments(3))  // The greeting, then two heartbeats.
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory)
            let event = try #require(try await reader.next())
            #expect(event.name == "change")
            #expect(event.comments.filter { $0 == "heartbeat" }.count >= 2, "comments: \(event.comments)")
        }
    }

    @Test("Changes left out for their author move the stream's id forward with a token event")
    func filteredStreamsMoveTheirID() async throws {
        try await withServer { server in
            let client = Client(server)
            let reader = try await EventReader(client, "/v1/changes/stream?since=\(try await client.token())&excludeAuthor=phone")
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: "phone")
            let event = try #require(try await reader.next())
            let head = try server.library.currentChangeToken.stringValue
            #expect(event.name == "token" && event.id == head)
            #expect(try Wire.makeDecoder().decode(Wire.Token.self, from: Data(event.data.utf8)).token == head)
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: "laptop")
            #expect(try await reader.nextChange()?.author == "laptop")
        }
    }

    @Test("A stream from a token far behind delivers every change, in pages (256 a page), in order")
    func catchesUpFromFarBehind() async throws {
        try await withServer { server in
            let client = Client(server)
            let start = try await client.token()
            for index in 0..<(300) {
                try server.library.performChangesAndWait(author: "bulk \(index)") {
                    _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Album \(index)")
                }
            }
            let reader = try await EventReader(client, "/v1/changes/stream?since=\(start)")
            var authors: [String] = []
            while authors.count < 300, let change = try await reader.nextChange() { authors.append(change.author) }
            #expect(authors == (0..<(300)).map { "bulk \($0)" })
        }
    }
}
