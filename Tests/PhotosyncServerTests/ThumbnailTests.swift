import Foundation
import PhotoLibrary
import PhotosyncWire
import SyncWorker
import Testing

/// `GET /v1/assets/{id}/thumbnail` → the immutable rendition URL.
@Suite struct ThumbnailTests {
    @Test("A thumbnail redirects to an immutable URL named by the content hash; its bytes are a JPEG of the size asked, cached after the first render")
    func thumbnails() async throws {
        try await OriginalTests.mirroredServer(count: 0) { server, folder, _ in
            let client = Client(server)
            try Fixtures.sample("Family/IMG_2001.jpg").write(to: folder.appending(path: "photo.jpg"))
            _ = try await FolderMirror(library: server.library, root: folder).scan()
            let asset = try await client.get("/v1/assets").decode(Wire.AssetPage.self).assets[0]
            let redirect = try await client.get("/v1/assets/\(segment(asset.localIdentifier))/thumbnail?size=32&mode=fit")
            #expect(redirect.status == 302)
            let location = try #require(redirect.header("Location"))
            #expect(location.contains(try #require(asset.contentHash)) && location.hasSuffix("/32x32-fit.jpg"))
            let first = try await client.get(location)
            #expect(first.status == 200 && first.header("Content-Type") == "image/jpeg")
            #expect(first.header("Cache-Control") == "public, max-age=31536000, immutable")
            #expect(first.body.prefix(2) == Data([0xFF, 0xD8]))
            let etag = try #require(first.header("ETag"))
            #expect(try await client.get(location, headers: [("If-None-Match", etag)]).status == 304)
            let second = try await client.get(location)
            #expect(second.body == first.body)
            // Served again from what the second request checked: the same bytes and headers, and its 304.
            let third = try await client.get(location)
            #expect(third.body == first.body && third.header("ETag") == etag && third.header("Content-Type") == "image/jpeg")
            #expect(third.header("Cache-Control") == "public, max-age=31536000, immutable")
            let unchanged = try await client.get(location, headers: [("If-None-Match", etag)])
            #expect(unchanged.status == 304 && unchanged.body.isEmpty && unchanged.header("ETag") == etag)
            #expect(try await metric(client, "photosync_thumbnail_renders_total") == 1)
            #expect(try await metric(client, "photosync_thumbnail_cache_hits_total") == 2)
            // Counted under the route, like the requests the router looked up.
            #expect(try await metric(client, #"photosync_http_requests_total{route="/v1/renditions/**",method="GET",status="200"}"#) == 3)
            // New content: a new URL; the old one no longer serves (never other bytes under it).
            try Fixtures.sample("Family/IMG_2002.jpg").write(to: folder.appending(path: "photo.jpg"))
            _ = try await FolderMirror(library: server.library, root: folder).scan()
            // (The server sees the commit within milliseconds: its feed follows the library's notification.)
            #expect(await waitUntil {
                let moved = try? await client.get("/v1/assets/\(segment(asset.localIdentifier))/thumbnail?size=32&mode=fit")
                return moved?.header("Location").map { $0 != location } ?? false
            })
            #expect(await waitUntil { (try? await client.get(location).status) == 404 })
            try await client.get(location).expectError(404, "notFound")
        }
    }

    @Test("Bad sizes, modes and formats are 400s; an unknown asset a 404")
    func badThumbnailRequests() async throws {
        try await OriginalTests.mirroredServer(count: 1) { server, _, assets in
            let client = Client(server)
            let path = "/v1/assets/\(segment(try #require(assets["IMG_0000.jpg"]).localIdentifier))/thumbnail"
            for query in ["size=0", "size=5000", "size=12x", "mode=stretch", "format=gif", "colour=red"] {
                try await client.get("\(path)?\(query)").expectError(400, "invalidRequest")
            }
            try await client.get("/v1/assets/\(segment("00000000-0000-0000-0000-000000000000/L0/001"))/thumbnail").expectError(404, "notFound")
            try await client.get("/v1/renditions/x/y/32x32-fit.gif").expectError(404, "notFound")
        }
    }
}
