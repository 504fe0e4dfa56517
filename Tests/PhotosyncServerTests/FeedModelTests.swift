import Foundation
import PhotoLibrary
import PhotosyncWire
import SeededRandom
import Testing

/// The feed's promises, against the journal as the oracle, while another process commits at random:
/// no gaps, no duplicates, tokens only after commit, resumable from any change's token — for long-polls with
/// random limits, and for an event stream, followed at the same time.
@Suite struct FeedModelTests {
    @Test("Followed with long-polls and a stream while another process commits: every change once, in order, resumable anywhere")
    func noGapsNoDuplicatesResumable() async throws {
        try await withServer { server in
            let client = Client(server)
            let start = try await client.token()
            let stream = try await EventReader(client, "/v1/changes/stream?since=\(start)")
            let writer = try Processes.Running(Processes.writer, [server.library.url.path, "commit-loop", "7"])
            var random = SplitMix64(seed: 14)
            var polled: [Wire.Change] = []
            var token = start
            let deadline = ContinuousClock.now + .seconds(4)
            while ContinuousClock.now < deadline || polled.count < 30 {
                let limit = random.int(in: 1...6)
                let page = try await client.get("/v1/changes?since=\(token)&limit=\(limit)&wait=2").decode(Wire.ChangesPage.self)
                #expect(page.changes.count <= limit)
                for change in page.changes {
                    // Only committed changes: the token names a transaction the library has now.
                    #expect((try? server.library.fetchPersistentChanges(since: ChangeToken(string: change.token))) != nil)
                }
                polled += page.changes
                token = page.token
                // Resume from a random change's token seen so far: the feed continues exactly after it.
                if let index = polled.indices.randomElement(using: &random) {
                    let resumed = try await client.get("/v1/changes?since=\(polled[index].token)&limit=3").decode(Wire.ChangesPage.self)
                    let expected = polled.dropFirst(index + 1).prefix(3)
                    #expect(Array(resumed.changes.prefix(expected.count)).map(\.token) == expected.map(\.token))
                }
                if ContinuousClock.now > deadline + .seconds(20) { break }
            }
            writer.signal(SIGKILL)
            _ = await writer.exitStatus()
            // Drain what the writer committed last.
            while true {
                let page = try await client.get("/v1/changes?since=\(token)").decode(Wire.ChangesPage.self)
                polled += page.changes
                token = page.token
                if page.changes.isEmpty { break }
            }
            let journal = try Wire.ChangesPage(
                server.library.fetchPersistentChanges(since: ChangeToken(string: start)), library: server.library)
            #expect(polled.count >= 30, "the writer committed too little to test anything")
            #expect(polled.map(\.token) == journal.changes.map(\.token), "long-polls: gaps or duplicates")
            #expect(polled.map(\.asset.inserted) == journal.changes.map(\.asset.inserted))
            #expect(polled.map(\.asset.deleted) == journal.changes.map(\.asset.deleted))
            #expect(token == journal.token)
            // The stream, read meanwhile: the same changes.
            var streamed: [Wire.Change] = []
            while streamed.count < journal.changes.count, let change = try await stream.nextChange() { streamed.append(change) }
            #expect(streamed.map(\.token) == journal.changes.map(\.token), "stream: gaps or duplicates")
        }
    }
}
