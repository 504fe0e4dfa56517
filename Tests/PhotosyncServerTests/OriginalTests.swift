import Foundation
import PhotoLibrary
import PhotosyncServer
import PhotosyncWire
import SyncWorker
import Testing

/// `GET /v1/assets/{id}/original`: bytes from disk, ETag, ranges, 304 — and only files inside the library
/// and its mirrored folders.
@Suite struct OriginalTests {
    /// A server over a library mirroring a folder of `count` JPEGs; the folder and its assets by name.
    static func mirroredServer(count: Int, _ body: (LiveServer, URL, [String: Wire.Asset]) async throws -> Void) async throws {
        try await withServer { server in
            let folder = try Fixtures.folder(in: server.directory, count: count)
            _ = try await FolderMirror(library: server.library, root: folder).scan()
            let page = try await Client(server).get("/v1/assets").decode(Wire.AssetPage.self)
            try await body(server, folder, Dictionary(uniqueKeysWithValues: page.assets.map { ($0.originalFilename, $0) }))
        }
    }

    @Test("The original's bytes, its type, a strong ETag (the content hash), If-None-Match → 304, HEAD")
    func wholeFile() async throws {
        try await Self.mirroredServer(count: 2) { server, folder, assets in
            let client = Client(server)
            let asset = try #require(assets["IMG_0001.jpg"])
            let path = "/v1/assets/\(segment(asset.localIdentifier))/original"
            let reply = try await client.get(path)
            #expect(reply.status == 200)
            #expect(reply.body == (try Data(contentsOf: folder.appending(path: "IMG_0001.jpg"))))
            #expect(reply.header("Content-Type") == "image/jpeg")
            #expect(reply.header("ETag") == "\"\(try #require(asset.contentHash))\"")
            #expect(reply.header("Accept-Ranges") == "bytes")
            let etag = try #require(reply.header("ETag"))
            for condition in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
                let cached = try await client.get(path, headers: [("If-None-Match", condition)])
                #expect(cached.status == 304 && cached.body.isEmpty && cached.header("ETag") == etag, "If-None-Match: \(condition)")
            }
            #expect(try await client.get(path, headers: [("If-None-Match", "\"other\"")]).status == 200)
            let head = try await client.send(.HEAD, path)
            #expect(head.status == 200 && head.body.isEmpty && head.header("Content-Length") == String(reply.body.count))
        }
    }

    @Test("Byte ranges: 206 with Content-Range; suffix and open ranges; 416 past the end; If-Range with another tag → the whole file")
    func ranges() async throws {
        try await Self.mirroredServer(count: 1) { server, folder, assets in
            let client = Client(server)
            let asset = try #require(assets["IMG_0000.jpg"])
            let path = "/v1/assets/\(segment(asset.localIdentifier))/original"
            let bytes = try Data(contentsOf: folder.appending(path: "IMG_0000.jpg"))
            let size = bytes.count
            for (range, expected) in [("bytes=0-9", 0...9), ("bytes=5-", 5...(size - 1)), ("bytes=-4", (size - 4)...(size - 1)),
                                      ("bytes=3-100000", 3...(size - 1))]
            {
                let reply = try await client.get(path, headers: [("Range", range)])
                #expect(reply.status == 206, "\(range)")
                #expect(reply.body == bytes[expected], "\(range)")
                #expect(reply.header("Content-Range") == "bytes \(expected.lowerBound)-\(expected.upperBound)/\(size)")
            }
            let past = try await client.get(path, headers: [("Range", "bytes=\(size)-")])
            try past.expectError(416, "rangeNotSatisfiable")
            #expect(past.header("Content-Range") == "bytes */\(size)")
            let stale = try await client.get(path, headers: [("Range", "bytes=0-9"), ("If-Range", "\"stale\"")])
            #expect(stale.status == 200 && stale.body == bytes)
            let several = try await client.get(path, headers: [("Range", "bytes=0-1,4-5")])
            #expect(several.status == 200 && several.body == bytes)
        }
    }

    @Test("A mirrored file rewritten but not mirrored again is a 503 with Retry-After, never bytes under the old ETag")
    func changingFile() async throws {
        try await Self.mirroredServer(count: 1) { server, folder, assets in
            let asset = try #require(assets["IMG_0000.jpg"])
            try Fixtures.jpeg("a longer comment than before, so that the size differs").write(to: folder.appending(path: "IMG_0000.jpg"))
            let reply = try await Client(server).get("/v1/assets/\(segment(asset.localIdentifier))/original")
            try reply.expectError(503, "unavailable")
            #expect(reply.header("Retry-After") != nil)
        }
    }

    @Test("An empty original is an empty 200 (HEAD: length 0); any range of it a 416")
    func emptyOriginal() async throws {
        try await Self.mirroredServer(count: 0) { server, folder, _ in
            let file = folder.appending(path: "empty.jpg")
            try Data().write(to: file)
            let id = try await server.library.performChanges { () -> String in
                let request = AssetChangeRequest.creationRequestForAsset(
                    fromFileAt: file, options: AssetCreationOptions(storage: .referenced, contentHash: String(repeating: "0", count: 32), fileSize: 0))
                request.mediaType = .image
                return request.placeholderForCreatedAsset!.localIdentifier
            }
            let client = Client(server)
            let path = "/v1/assets/\(segment(id))/original"
            let reply = try await client.get(path)
            #expect(reply.status == 200 && reply.body.isEmpty)
            let head = try await client.send(.HEAD, path)
            #expect(head.status == 200 && head.header("Content-Length") == "0")
            for range in ["bytes=0-", "bytes=-1", "bytes=0-0"] {
                let past = try await client.get(path, headers: [("Range", range)])
                try past.expectError(416, "rangeNotSatisfiable")
                #expect(past.header("Content-Range") == "bytes */0")
            }
        }
    }

    @Test("A copied original is served from the library's originals store")
    func copiedOriginal() async throws {
        try await withServer { server in
            let id = try #require(try await Fixtures.addAssets(1, to: server.library, in: server.directory).first)
            let asset = try server.library.fetchAssets(withLocalIdentifiers: [id]).object(at: 0)
            let reply = try await Client(server).get("/v1/assets/\(segment(id))/original")
            #expect(reply.status == 200)
            #expect(reply.body == (try Data(contentsOf: try #require(asset.fileURL(in: server.library)))))
        }
    }
}

/// Requests that try to reach files outside the library and its mirrored folders.
@Suite struct TraversalTests {
    /// Mirrors `Pictures/top.jpg` and `Pictures/Trip/inside.jpg`, then plants symbolic links: the file replaced by
    /// a link to `Outside/secret.jpg`, the directory by a link to `Outside` (holding `inside.jpg`) — the outside
    /// files made by `outside` from the mirrored ones. The assets, as the API listed them before.
    static func mirrorThenPlantLinks(
        _ server: LiveServer, top: Data, inside: Data, outside: (URL) throws -> Data
    ) async throws -> [Wire.Asset] {
        let manager = FileManager.default
        let folder = server.directory.appending(path: "Pictures"), elsewhere = server.directory.appending(path: "Outside")
        try manager.createDirectory(at: folder.appending(path: "Trip"), withIntermediateDirectories: true)
        try top.write(to: folder.appending(path: "top.jpg"))
        try inside.write(to: folder.appending(path: "Trip/inside.jpg"))
        _ = try await FolderMirror(library: server.library, root: folder).scan()
        let assets = try await Client(server).get("/v1/assets").decode(Wire.AssetPage.self).assets
        try manager.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try outside(folder.appending(path: "top.jpg")).write(to: elsewhere.appending(path: "secret.jpg"))
        try outside(folder.appending(path: "Trip/inside.jpg")).write(to: elsewhere.appending(path: "inside.jpg"))
        try manager.removeItem(at: folder.appending(path: "top.jpg"))
        try manager.createSymbolicLink(at: folder.appending(path: "top.jpg"), withDestinationURL: elsewhere.appending(path: "secret.jpg"))
        try manager.removeItem(at: folder.appending(path: "Trip"))
        try manager.createSymbolicLink(at: folder.appending(path: "Trip"), withDestinationURL: elsewhere)
        return assets
    }

    @Test("Paths with .., encoded slashes and dots, or NUL reach no file: 404 or 400, never bytes")
    func pathTricks() async throws {
        try await OriginalTests.mirroredServer(count: 1) { server, _, _ in
            let client = Client(server)
            let secret = "/etc/passwd"
            for path in ["/v1/assets/..%2F..%2F..%2Fetc%2Fpasswd/original", "/v1/assets/../../../etc/passwd/original",
                         "/v1/assets/%2e%2e/%2e%2e/etc/passwd/original", "/v1/assets/%2Fetc%2Fpasswd/original",
                         "/v1/assets/\(encoded(secret))/original", "/v1/albums/..%2F..%2Fetc/assets", "/v1/../etc/passwd",
                         "/v1/assets/x%00y/original", "/v1/assets/%zz/original"]
            {
                let reply = try await client.get(path)
                #expect([400, 404].contains(reply.status), "\(path): \(reply.status)")
                #expect(!reply.text.contains("root:"), "\(path) served a file")
            }
            try await client.get("/v1/assets/x%00y/original").expectError(400, "invalidRequest")
        }
    }

    @Test("A symbolic link planted in the watched folder, in place of a mirrored file or directory, is never followed")
    func plantedSymbolicLinks() async throws {
        try await withServer { server in
            let client = Client(server)
            let assets = try await Self.mirrorThenPlantLinks(server, top: Fixtures.jpeg("top"), inside: Fixtures.jpeg("in trip")) { file in
                // Outside the folder: files with the same names and sizes, secrets.
                Data(repeating: UInt8(ascii: "S"), count: try Data(contentsOf: file).count)
            }
            let top = try #require(assets.first { $0.originalFilename == "top.jpg" })
            let inside = try #require(assets.first { $0.originalFilename == "inside.jpg" })
            for asset in [top, inside] {
                let reply = try await client.get("/v1/assets/\(segment(asset.localIdentifier))/original")
                try reply.expectError(404, "notFound")
                #expect(!reply.text.contains("SSSS"))
            }
        }
    }

    @Test("A thumbnail is never rendered from a file a planted symbolic link points to (outside the folder)")
    func plantedSymbolicLinksAndThumbnails() async throws {
        try await withServer { server in
            let client = Client(server)
            let assets = try await Self.mirrorThenPlantLinks(
                server, top: try Fixtures.sample("Family/IMG_2001.jpg"), inside: try Fixtures.sample("Family/IMG_2002.jpg")
            ) { file in
                // Outside the folder: private photos, exact copies of the mirrored files (same sizes), renderable.
                try Data(contentsOf: file)
            }
            for asset in assets {
                let redirect = try await client.get("/v1/assets/\(segment(asset.localIdentifier))/thumbnail?size=24")
                let location = try #require(redirect.header("Location"), "\(redirect.status) \(redirect.text)")
                let reply = try await client.get(location)
                try reply.expectError(404, "notFound")
                #expect(reply.header("Content-Type")?.hasPrefix("image/") != true, "\(asset.originalFilename): rendered from outside")
            }
            #expect(try await metric(client, "photosync_thumbnail_renders_total") ?? 0 == 0)
        }
    }
}
