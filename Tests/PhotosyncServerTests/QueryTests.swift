import Foundation
import PhotoLibrary
import PhotosyncWire
import SeededRandom
import Testing

/// `GET /v1/assets`, `/v1/assets/{id}`, `/v1/albums`, `/v1/albums/{id}`, `/v1/albums/{id}/assets`, `/v1/state`.
@Suite struct QueryTests {
    @Test("Pages of a filtered, sorted query, followed by their cursors, are the whole query in its order")
    func pagesFollowTheirCursors() async throws {
        try await withServer { server in
            let client = Client(server)
            let ids = try await Fixtures.addAssets(23, to: server.library, in: server.directory)
            let hidden = ids[3]
            let hiddenAsset = try server.library.fetchAssets(withLocalIdentifiers: [hidden]).object(at: 0)
            try await server.library.performChanges { AssetChangeRequest(for: hiddenAsset).isHidden = true }
            for (query, expected) in [("", ids.filter { $0 != hidden }), ("sort=-creationDate", ids.filter { $0 != hidden }.reversed()),
                                      ("includeHidden=1", ids), ("where=\(encoded("creationDate < \"2023-11-15T00:00Z\""))", Array(ids.prefix(2)))]
            {
                var seen: [String] = []
                var cursor: String?
                repeat {
                    let path = "/v1/assets?limit=5&\(query)" + (cursor.map { "&cursor=\($0)" } ?? "")
                    let page = try await client.get(path).decode(Wire.AssetPage.self)
                    #expect(page.assets.count <= 5)
                    #expect(page.token == (try server.library.currentChangeToken.stringValue))
                    seen += page.assets.map(\.localIdentifier)
                    cursor = page.cursor
                } while cursor != nil
                #expect(seen == Array(expected), "query \(query)")
            }
        }
    }

    @Test("A bad predicate, sort key, cursor or limit is a 400 saying what is wrong")
    func badQueries() async throws {
        try await withServer { server in
            let client = Client(server)
            _ = try await Fixtures.addAssets(3, to: server.library, in: server.directory)
            var error = try await client.get("/v1/assets?where=\(encoded("isFavorit == YES"))").expectError(400, "invalidPredicate")
            #expect(error.message.contains("isFavorite"), "no did-you-mean: \(error.message)")
            error = try await client.get("/v1/assets?where=\(encoded("pixelWidth >"))").expectError(400, "invalidPredicate")
            error = try await client.get("/v1/assets?sort=-nope").expectError(400, "invalidPredicate")
            #expect(error.message.contains("nope"))
            try await client.get("/v1/assets?cursor=garbage").expectError(400, "invalidCursor")
            let page = try await client.get("/v1/assets?limit=1").decode(Wire.AssetPage.self)
            let cursor = try #require(page.cursor)
            error = try await client.get("/v1/assets?limit=1&sort=-creationDate&cursor=\(cursor)").expectError(400, "invalidCursor")
            #expect(error.message.contains("another query"))
            for limit in ["0", "1001", "x"] { try await client.get("/v1/assets?limit=\(limit)").expectError(400, "invalidRequest") }
            try await client.get("/v1/assets?colour=red").expectError(400, "invalidRequest")
            try await client.get("/v1/albums?type=folder").expectError(400, "invalidRequest")
        }
    }

    @Test("One asset by identifier, percent-encoded or with its slashes; an unknown one is a 404")
    func oneAsset() async throws {
        try await withServer { server in
            let client = Client(server)
            let id = try #require(try await Fixtures.addAssets(1, to: server.library, in: server.directory).first)
            for path in ["/v1/assets/\(segment(id))", "/v1/assets/\(id)"] {
                let asset = try await client.get(path).decode(Wire.Asset.self)
                #expect(asset.localIdentifier == id && asset.mediaType == "image")
            }
            let unknown = id.replacingOccurrences(of: String(id.prefix(8)), with: "00000000")
            try await client.get("/v1/assets/\(segment(unknown))").expectError(404, "notFound")
            try await client.get("/v1/assets/\(segment(unknown))/original").expectError(404, "notFound")
            try await client.get("/v1/nothing-here").expectError(404, "notFound")
        }
    }

    @Test("Albums, smart albums and moments; one album; an album's assets in its order, paged")
    func albums() async throws {
        try await withServer { server in
            let client = Client(server)
            let ids = try await Fixtures.addAssets(7, to: server.library, in: server.directory)
            let members = try ids.reversed().map { try server.library.fetchAssets(withLocalIdentifiers: [$0]).object(at: 0) }
            let albumID = try await server.library.performChanges { () -> String in
                let album = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
                album.addAssets(members)  // The album's own order: reversed.
                return album.placeholderForCreatedAssetCollection!.localIdentifier
            }
            let list = try await client.get("/v1/albums").decode(Wire.AlbumList.self)
            #expect(list.albums.contains { $0.localIdentifier == albumID && $0.localizedTitle == "Trip" && $0.estimatedAssetCount == 7 })
            #expect(list.albums.contains { $0.assetCollectionType == "smartAlbum" })
            #expect(list.albums.contains { $0.assetCollectionType == "moment" })
            let onlyAlbums = try await client.get("/v1/albums?type=album").decode(Wire.AlbumList.self)
            #expect(onlyAlbums.albums.map(\.localIdentifier) == [albumID])
            let album = try await client.get("/v1/albums/\(segment(albumID))").decode(Wire.Album.self)
            #expect(album.localizedTitle == "Trip")
            var seen: [String] = []
            var cursor: String?
            repeat {
                let page = try await client.get("/v1/albums/\(segment(albumID))/assets?limit=3" + (cursor.map { "&cursor=\($0)" } ?? ""))
                    .decode(Wire.AssetPage.self)
                seen += page.assets.map(\.localIdentifier)
                cursor = page.cursor
            } while cursor != nil
            #expect(seen == ids.reversed())
            try await client.get("/v1/albums/\(segment(ids[0]))").expectError(404, "notFound")
        }
    }

    @Test("The state is every identifier and the token of that instant, as JSON Lines with counts up front")
    func state() async throws {
        try await withServer { server in
            let client = Client(server)
            _ = try await Fixtures.addAssets(5, to: server.library, in: server.directory)
            try await server.library.performChanges { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "A") }
            let reply = try await client.get("/v1/state")
            #expect(reply.status == 200 && reply.header("Content-Type")?.hasPrefix("application/jsonl") == true)
            let lines = reply.text.split(separator: "\n").map { Data($0.utf8) }
            let header = try Wire.makeDecoder().decode(Wire.StateHeader.self, from: lines[0])
            let objects = try lines.dropFirst().map { try Wire.makeDecoder().decode(Wire.StateObject.self, from: $0) }
            let expected = try server.library.fetchCurrentState()
            #expect(header.token == expected.changeToken.stringValue)
            #expect(header.assets == expected.assetIdentifiers.count && header.assetCollections == expected.assetCollectionIdentifiers.count)
            #expect(objects.count == header.assets + header.assetCollections + header.collectionLists)
            #expect(Set(objects.filter { $0.objectType == "asset" }.map(\.localIdentifier)) == expected.assetIdentifiers)
            #expect(Set(objects.filter { $0.objectType == "assetCollection" }.map(\.localIdentifier)) == expected.assetCollectionIdentifiers)
            #expect(Set(objects.filter { $0.objectType == "collectionList" }.map(\.localIdentifier)) == expected.collectionListIdentifiers)
        }
    }
}

/// Paging while another process changes the library, against the journal as the oracle.
@Suite struct PagingModelTests {
    @Test("Paging while another process commits skips and repeats nothing it shouldn't; the changes since the first page's token name the rest")
    func pagingWhileTheLibraryChanges() async throws {
        try await withServer { server in
            let client = Client(server)
            var random = SplitMix64(seed: 41)
            // A library of 150 assets with random dates, some equal (ties broken by the internal order).
            try await server.library.performChanges {
                var g = SplitMix64(seed: 5)
                for index in 0..<150 {
                    let request = AssetChangeRequest.creationRequestForAsset(
                        fromFileAt: URL(fileURLWithPath: "/virtual/seed-\(index).jpg"),
                        options: AssetCreationOptions(storage: .referenced, contentHash: String(format: "%032x", index), fileSize: 1))
                    request.creationDate = Date(timeIntervalSince1970: Double(1_600_000_000 + g.int(in: 0...40) * 86_400))
                    request.isFavorite = g.chance(0.3)
                }
            }
            let writer = try Processes.Running(Processes.writer, [server.library.url.path, "commit-loop", "11"])
            var runs: [(query: String, token: String, seen: [String])] = []
            for query in ["", "sort=-creationDate", "sort=isFavorite,-creationDate", "where=\(encoded("NOT isFavorite"))&sort=creationDate"] {
                var seen: [String] = []
                var first: String?
                var cursor: String?
                repeat {
                    let path = "/v1/assets?limit=7&\(query)" + (cursor.map { "&cursor=\($0)" } ?? "")
                    let page = try await client.get(path).decode(Wire.AssetPage.self)
                    first = first ?? page.token
                    seen += page.assets.map(\.localIdentifier)
                    cursor = page.cursor
                    try await Task.sleep(for: .milliseconds(random.int(in: 0...25)))  // Random interleaving with the writer.
                } while cursor != nil
                runs.append((query, try #require(first), seen))
            }
            writer.signal(SIGKILL)
            _ = await writer.exitStatus()
            for run in runs {
                // Every change, not coalesced: an asset inserted then deleted meanwhile was touched too.
                let changes = try await client.get("/v1/changes?since=\(run.token)").decode(Wire.ChangesPage.self)
                let touched = Set(changes.changes.flatMap { $0.asset.inserted + $0.asset.updated + $0.asset.deleted })
                #expect(!touched.isEmpty, "the writer changed nothing during the paging of \(run.query)")
                var final: [String] = []
                var cursor: String?
                repeat {
                    let page = try await client.get("/v1/assets?limit=1000&\(run.query)" + (cursor.map { "&cursor=\($0)" } ?? ""))
                        .decode(Wire.AssetPage.self)
                    final += page.assets.map(\.localIdentifier)
                    cursor = page.cursor
                } while cursor != nil
                let counts = Dictionary(run.seen.map { ($0, 1) }, uniquingKeysWith: +)
                // Nothing repeated unless it changed meanwhile.
                #expect(counts.filter { $0.value > 1 && !touched.contains($0.key) }.isEmpty, "\(run.query): repeated untouched assets")
                // Nothing untouched skipped, and untouched assets in the query's order.
                let untouchedFinal = final.filter { !touched.contains($0) }
                let untouchedSeen = run.seen.filter { !touched.contains($0) }
                #expect(untouchedSeen == untouchedFinal, """
                    \(run.query): untouched assets skipped \(Set(untouchedFinal).subtracting(untouchedSeen)), \
                    extra \(Set(untouchedSeen).subtracting(untouchedFinal)), or out of order
                    """)
                #expect(untouchedFinal.count > 50)
            }
        }
    }
}
