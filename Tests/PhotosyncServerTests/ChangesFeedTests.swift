import AsyncHTTPClient
import Foundation
import PhotoLibrary
import PhotosyncServer
import PhotosyncWire
import SyncWorker
import Testing

/// `GET /v1/changes`: pages, long-polls, filters and token errors.
@Suite struct ChangesFeedTests {
    @Test("A page holds the changes since the token, each with its own token, and the token to store next")
    func pageOfChanges() async throws {
        try await withServer { server in
            let client = Client(server)
            let start = try await client.token()
            let ids = try await Fixtures.addAssets(2, to: server.library, in: server.directory, author: "me")
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: "you")
            let page = try await client.get("/v1/changes?since=\(start)").decode(Wire.ChangesPage.self)
            #expect(page.changes.map(\.author) == ["me", "you"])
            #expect(Set(page.changes[0].asset.inserted) == Set(ids))
            #expect(page.token == page.changes.last?.token)
            #expect(page.token == (try server.library.currentChangeToken.stringValue))
            #expect(!page.hasMore)
            let limited = try await client.get("/v1/changes?since=\(start)&limit=1").decode(Wire.ChangesPage.self)
            #expect(limited.changes.count == 1 && limited.hasMore && limited.token == page.changes[0].token)
            let coalesced = try await client.get("/v1/changes?since=\(start)&coalesce=1").decode(Wire.ChangesPage.self)
            #expect(coalesced.changes.count == 1 && coalesced.changes[0].asset.inserted.count == 3)
        }
    }

    @Test("A long-poll is answered as soon as another process commits")
    func longPollWokenByAnotherProcess() async throws {
        try await withServer { server in
            let client = Client(server)
            let start = try await client.token()
            let poll = Task { try await client.get("/v1/changes?since=\(start)&wait=20") }
            #expect(await waitUntil { (try? await metric(client, "photosync_longpoll_waiting")) == 1 })
            let begun = ContinuousClock.now
            let writer = try await Processes.run(Processes.writer, [server.library.url.path, "commit", "1"])
            #expect(writer.status == 0)
            let page = try await poll.value.decode(Wire.ChangesPage.self)
            #expect(page.changes.count == 1 && page.changes[0].author == "writer")
            #expect(page.changes[0].assetCollection.inserted.count == 1)
            // Woken by the commit, not by the end of its 20 s wait.
            #expect(ContinuousClock.now - begun < .seconds(15))
        }
    }

    @Test("A long-poll with nothing to say ends after its wait with the same token")
    func longPollTimesOut() async throws {
        try await withServer { server in
            let client = Client(server)
            let start = try await client.token()
            let reply = try await client.get("/v1/changes?since=\(start)&wait=0.3")
            let page = try reply.decode(Wire.ChangesPage.self)
            #expect(reply.status == 200 && page.changes.isEmpty && page.token == start)
        }
    }

    @Test("A wait past the heartbeat sends spaces before the JSON, which still parses")
    func longWaitsKeepProxiesAwake() async throws {
        try await withServer(ServerOptions(heartbeatInterval: .milliseconds(200))) { server in
            let client = Client(server)
            let start = try await client.token()
            var request = HTTPClientRequest(url: client.base + "/v1/changes?since=\(start)&wait=30")
            request.method = .GET
            let response = try await Client.http.execute(request, timeout: .seconds(60))
            #expect(response.status == .ok)
            var body = response.body.makeAsyncIterator()
            var text = ""
            // Two heartbeats have arrived before anything changed…
            while text.count < 2, let chunk = try await body.next() { text += String(buffer: chunk) }
            #expect(text == "  ", "no heartbeat whitespace: \(text.prefix(40))")
            // …then a change: the JSON follows the spaces.
            let ids = try await Fixtures.addAssets(1, to: server.library, in: server.directory)
            while let chunk = try await body.next() { text += String(buffer: chunk) }
            let page = try Wire.makeDecoder().decode(Wire.ChangesPage.self, from: Data(text.utf8))
            #expect(page.changes.first?.asset.inserted == ids)
        }
    }

    @Test("A page whose changes were all left out for their author still carries the head token")
    func filteredPagesCarryTheHeadToken() async throws {
        try await withServer { server in
            let client = Client(server)
            let start = try await client.token()
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: "phone")
            let page = try await client.get("/v1/changes?since=\(start)&excludeAuthor=phone").decode(Wire.ChangesPage.self)
            #expect(page.changes.isEmpty)
            #expect(page.token == (try server.library.currentChangeToken.stringValue))
            #expect(page.token != start)
        }
    }

    @Test("Changes by an excluded author don't end a long-poll; the next change does, with the head token")
    func filteredLongPollKeepsWaiting() async throws {
        try await withServer { server in
            let client = Client(server)
            let start = try await client.token()
            let poll = Task { try await client.get("/v1/changes?since=\(start)&excludeAuthor=phone&wait=20") }
            #expect(await waitUntil { (try? await metric(client, "photosync_longpoll_waiting")) == 1 })
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: "phone")
            // The server woke, re-read, and went back to waiting: the long-poll is still there.
            #expect(await waitUntil { (try? await metric(client, "photosync_commits_total")) == 1 })
            #expect(await waitUntil { (try? await metric(client, "photosync_longpoll_waiting")) == 1 })
            let other = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: "laptop")
            let page = try await poll.value.decode(Wire.ChangesPage.self)
            #expect(page.changes.map(\.author) == ["laptop"])
            #expect(page.changes[0].asset.inserted == other)
            #expect(page.token == (try server.library.currentChangeToken.stringValue))
        }
    }

    @Test("Long-polls asking different questions, woken by the same commits, each get their own answer")
    func oneWakeAnswersEachQuestion() async throws {
        // The feed computes one page per question and writes the same bytes to every waiter asking it: a
        // question that left out a filter would hand one group another group's page.
        try await withServer { server in
            let client = Client(server)
            let start = try await client.token()
            let groups = ["", "&excludeAuthor=phone", "&excludeAuthor=laptop", "&excludeAuthor=laptop&excludeAuthor=phone",
                          "&excludeAuthor=phone&limit=1&coalesce=1"]
            // One waiter per question: the test client keeps at most 8 connections to a host.
            let polls = groups.map { filter in Task { try await client.get("/v1/changes?since=\(start)\(filter)&wait=30") } }
            #expect(await waitUntil { (try? await metric(client, "photosync_longpoll_waiting")) == Double(groups.count) })
            var commits: [String: String] = [:]
            for (index, author) in ["phone", "laptop", "me"].enumerated() {
                _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: author)
                commits[author] = try server.library.currentChangeToken.stringValue
                #expect(await waitUntil { (try? await metric(client, "photosync_commits_total")) == Double(index + 1) })
            }
            // Each group is answered by the first commit it doesn't filter out, with that change alone.
            let expected = [("phone", groups[0]), ("laptop", groups[1]), ("phone", groups[2]), ("me", groups[3]), ("laptop", groups[4])]
            for (poll, (author, filter)) in zip(polls, expected) {
                let page = try await poll.value.decode(Wire.ChangesPage.self)
                #expect(page.changes.map(\.author) == [author], "since=start\(filter)")
                #expect(page.token == commits[author], "since=start\(filter)")
            }
        }
    }

    @Test("An expired token is a 410 with the oldest valid token, waiting or not")
    func expiredTokenIsGone() async throws {
        try await withServer { server in
            let client = Client(server)
            let old = try await client.token()
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory)
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory)
            let current = try server.library.currentChangeToken
            try server.library.expireHistory(before: current)
            for query in ["", "&wait=5"] {
                let error = try await client.get("/v1/changes?since=\(old)\(query)").expectError(410, "tokenExpired")
                #expect(error.oldestToken == current.stringValue)
            }
            let stream = try await client.get("/v1/changes/stream?since=\(old)")
            #expect(try stream.expectError(410, "tokenExpired").oldestToken == current.stringValue)
        }
    }

    @Test("An undecodable token, another library's and one ahead of the library are 400 tokenInvalid, with the reason")
    func invalidTokensAreBadRequests() async throws {
        try await withServer { server in
            let client = Client(server)
            let other = try PhotoLibrary(url: server.directory.appending(path: "Other.photosync"))
            _ = try await Fixtures.addAssets(1, to: other, in: server.directory)
            _ = try await Fixtures.addAssets(1, to: other, in: server.directory)
            let foreign = try other.currentChangeToken.stringValue
            // A copy of the library that moved on: its token is ahead of the served library.
            try FileManager.default.copyItem(at: server.library.url, to: server.directory.appending(path: "Copy.photosync"))
            let copy = try PhotoLibrary(url: server.directory.appending(path: "Copy.photosync"))
            _ = try await Fixtures.addAssets(1, to: copy, in: server.directory)
            let ahead = try copy.currentChangeToken.stringValue
            let cases = [("garbage", "not a change token"), (foreign, "belongs to library"), (ahead, "ahead of this library")]
            for (token, reason) in cases {
                for path in ["/v1/changes?since=\(encoded(token))&wait=5", "/v1/changes/stream?since=\(encoded(token))"] {
                    let error = try await client.get(path).expectError(400, "tokenInvalid")
                    #expect(error.message.contains(reason), "\(path): \(error.message)")
                }
            }
        }
    }

    @Test("A page is what `photosync changes --json` prints for the same question; 410 and 400 are its exit codes 3 and 4")
    func sameAsTheCommandLine() async throws {
        try await withServer { server in
            let client = Client(server)
            let start = try await client.token()
            _ = try await Fixtures.addAssets(2, to: server.library, in: server.directory, author: "me")
            let folder = try Fixtures.folder(in: server.directory, count: 2)
            _ = try await FolderMirror(library: server.library, root: folder).scan()
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory, author: "you")
            let library = server.library.url.path
            for (query, arguments) in [("", [String]()), ("&limit=2", ["--limit", "2"]), ("&coalesce=1", ["--coalesce"]),
                                       ("&excludeAuthor=me&excludeAuthor=you", ["--exclude-author", "me", "--exclude-author", "you"])]
            {
                let api = try await client.get("/v1/changes?since=\(start)\(query)")
                let cli = try await Processes.run(Processes.photosync, ["--library", library, "changes", "--since", start, "--json"] + arguments)
                #expect(cli.status == 0, "\(cli.stderr)")
                #expect(try Self.json(api.body) == Self.json(Data(cli.stdout.utf8)), "\(query): the API and the command line differ")
            }
            let other = try PhotoLibrary(url: server.directory.appending(path: "Other.photosync"))
            try server.library.expireHistory(before: try server.library.currentChangeToken)
            // A page computed before an explicit expiry may be reused for up to a second (ChangePages.lifetime).
            #expect(await waitUntil { (try? await client.get("/v1/changes?since=\(start)").status) == 410 })
            for (token, status, exitCode) in [(start, 410, Int32(3)), ("garbage", 400, 4), (try other.currentChangeToken.stringValue, 400, 4)] {
                let api = try await client.get("/v1/changes?since=\(encoded(token))")
                let cli = try await Processes.run(Processes.photosync, ["--library", library, "changes", "--since", token, "--json"])
                #expect(api.status == status && cli.status == exitCode, "\(token): \(api.status) and exit \(cli.status)")
                let error = try api.decode(Wire.APIError.self)
                let failure = try Wire.makeDecoder().decode(Wire.Error.self, from: Data(cli.stderr.utf8))
                #expect(error.error == failure.error && error.oldestToken == failure.oldestValidToken)
            }
        }
    }

    /// A JSON document as Foundation objects (equal whatever the key order and spacing).
    static func json(_ data: Data) throws -> NSObject {
        try #require(try JSONSerialization.jsonObject(with: data) as? NSObject)
    }

    @Test("Bad parameters are 400s naming the parameter")
    func badParameters() async throws {
        try await withServer { server in
            let client = Client(server)
            let token = try await client.token()
            for (query, word) in [("", "since"), ("?since=\(token)&wait=56", "wait"), ("?since=\(token)&wait=-1", "wait"),
                                  ("?since=\(token)&wait=abc", "wait"), ("?since=\(token)&limit=0", "limit"),
                                  ("?since=\(token)&coalesce=maybe", "coalesce"), ("?since=\(token)&sinse=1", "sinse"),
                                  ("?since=\(token)&since=\(token)", "since")]
            {
                let error = try await client.get("/v1/changes\(query)").expectError(400, "invalidRequest")
                #expect(error.message.contains(word), "\(query): \(error.message)")
            }
        }
    }
}

/// A metric's value from `/metrics` (the first sample of that name without labels).
func metric(_ client: Client, _ name: String) async throws -> Double? {
    let text = try await client.get("/metrics").text
    for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
        return Double(line.split(separator: " ")[1])
    }
    return nil
}
