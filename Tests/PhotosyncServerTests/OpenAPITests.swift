import Foundation
import NIOHTTP1
import PhotoLibrary
import PhotosyncServer
import PhotosyncWire
import SyncWorker
import Testing

/// Real responses of every endpoint, checked against the OpenAPI document the server serves
/// (`validate_responses.py`, with Debian's python3-jsonschema: JSON Schema 2020-12 as OpenAPI 3.1 uses it).
@Suite struct OpenAPITests {
    static let validator = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "validate_responses.py")

    @Test("Every endpoint's responses match the document, and every documented operation and status (but 503, 507) is exercised — the three access levels at every operation")
    func responsesMatchTheDocument() async throws {
        let recorder = SampleRecorder()
        let (keys, names) = AccessTests.threeKeys()
        let secrets: [AccessLevel: String] = [.read: names["reader"]!, .addOnly: names["phone"]!, .readWrite: names["admin"]!]
        let options = ServerOptions(keys: keys, maximumUploadSize: 100_000, heartbeatInterval: .milliseconds(100))
        let document = try await withServer(options) { server in
            let client = Client(server, key: secrets[.readWrite], recorder: recorder)
            try await tour(client, server: server, secrets: secrets)
            return try await client.get("/openapi.json").body
        }
        #expect(document == Data(PackageDocument.bytes), "the served document is not the file in the repository")
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-openapi-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try document.write(to: directory.appending(path: "openapi.json"))
        try JSONEncoder().encode(recorder.all).write(to: directory.appending(path: "samples.json"))
        let python = URL(fileURLWithPath: "/usr/bin/python3")
        let check = try await Processes.run(
            python, [Self.validator.path, directory.appending(path: "openapi.json").path, directory.appending(path: "samples.json").path])
        #expect(check.status == 0, """
            responses don't match the OpenAPI document (python3-jsonschema missing? run scripts/install-system-packages):
            \(check.stdout)\(check.stderr)
            """)
    }

    /// One request, or more, of every operation, with the statuses worth checking.
    private func tour(_ client: Client, server: LiveServer, secrets: [AccessLevel: String]) async throws {
        let secret = try #require(secrets[.readWrite])
        let start = try await client.token()
        #expect(try await client.get("/healthz").status == 200)
        #expect(try await client.get("/metrics").status == 200)
        try await client.get("/healthz?x=1").expectError(400, "invalidRequest")
        try await galleryTour(client)
        let folder = server.directory.appending(path: "Pictures")
        try FileManager.default.createDirectory(at: folder.appending(path: "Family"), withIntermediateDirectories: true)
        try Fixtures.sample("Family/IMG_2001.jpg").write(to: folder.appending(path: "Family/IMG_2001.jpg"))
        _ = try await FolderMirror(library: server.library, root: folder).scan()
        let uploaded = try await client.send(.POST, "/v1/assets?filename=up.jpg", body: Fixtures.jpeg("tour upload"))
        try await client.send(.POST, "/v1/assets?filename=up.jpg", body: Fixtures.jpeg("tour upload")).expectStatus(200)
        try await client.send(.POST, "/v1/assets?filename=x.txt", body: Data("text".utf8)).expectError(415, "unsupportedMediaType")
        let id = try uploaded.decode(Wire.AssetWrite.self).asset.localIdentifier
        let assets = try await client.get("/v1/assets?limit=1").decode(Wire.AssetPage.self)
        _ = try await client.get("/v1/assets?limit=1&cursor=\(try #require(assets.cursor))")
        try await client.get("/v1/assets?where=nope").expectError(400, "invalidPredicate")
        try await client.get("/v1/assets?cursor=nope").expectError(400, "invalidCursor")
        let mirrored = try #require(try await client.get("/v1/assets?where=\(encoded("path != nil"))").decode(Wire.AssetPage.self).assets.first)
        _ = try await client.get("/v1/assets/\(segment(id))")
        try await client.get("/v1/assets/\(segment("none/L0/001"))").expectError(404, "notFound")
        _ = try await client.get("/v1/assets/\(segment(mirrored.localIdentifier))/original")
        _ = try await client.get("/v1/assets/\(segment(mirrored.localIdentifier))/original", headers: [("Range", "bytes=0-3")])
        _ = try await client.get("/v1/assets/\(segment(mirrored.localIdentifier))/original", headers: [("If-None-Match", "*")])
        _ = try await client.get("/v1/assets/\(segment(mirrored.localIdentifier))/original", headers: [("Range", "bytes=999999-")])
        let thumbnail = try await client.get("/v1/assets/\(segment(mirrored.localIdentifier))/thumbnail?size=16")
        let rendition = try #require(thumbnail.header("Location"))
        _ = try await client.get(rendition)
        _ = try await client.get(rendition, headers: [("If-None-Match", "*")])
        try await client.get("/v1/assets/\(segment(mirrored.localIdentifier))/thumbnail?size=0").expectError(400, "invalidRequest")
        _ = try await client.send(.PATCH, "/v1/assets/\(segment(id))", json: Wire.AssetEdit(isFavorite: true, location: .set(.init(latitude: 1, longitude: 2))))
        try await client.send(.PATCH, "/v1/assets/\(segment(id))", json: Wire.AssetEdit(isHidden: true), headers: [("If-Match", start)])
            .expectError(412, "preconditionFailed")
        try await client.send(.PATCH, "/v1/assets/\(segment(id))", headers: [("Content-Type", "application/json")], body: Data("{\"x\":1}".utf8))
            .expectError(400, "invalidRequest")
        try await client.send(.DELETE, "/v1/assets/\(segment(mirrored.localIdentifier))").expectError(409, "conflict")
        let album = try await client.send(.POST, "/v1/albums", json: Wire.NewAlbum(title: "Tour", assets: [id])).decode(Wire.AlbumWrite.self).album
        _ = try await client.get("/v1/albums")
        _ = try await client.get("/v1/albums/\(segment(album.localIdentifier))")
        _ = try await client.get("/v1/albums/\(segment(album.localIdentifier))/assets")
        _ = try await client.send(.PATCH, "/v1/albums/\(segment(album.localIdentifier))", json: Wire.AlbumEdit(title: "Tour 2"))
        let objects = TourObjects(
            asset: id, album: album.localIdentifier, mirrored: mirrored.localIdentifier, rendition: rendition, token: try await client.token())
        try await accessTour(client, objects: objects, secrets: secrets)
        try await errorTour(client, server: server, objects: objects)
        _ = try await client.send(.DELETE, "/v1/albums/\(segment(album.localIdentifier))")
        _ = try await client.send(.DELETE, "/v1/assets/\(segment(id))")
        _ = try await client.get("/v1/state")
        _ = try await client.get("/v1/changes?since=\(start)")
        _ = try await client.get("/v1/changes?since=\(start)&coalesce=1")
        let head = try await client.token()
        _ = try await client.get("/v1/changes?since=\(head)&wait=0.3")  // Past the 100 ms heartbeat: whitespace, then JSON.
        try await client.get("/v1/changes?since=garbage").expectError(400, "tokenInvalid")
        // The stream, read up to the head, recorded as it came.
        let streamPath = "/v1/changes/stream?since=\(start)&excludeAuthor=photosync"
        let reader = try await EventReader(client, streamPath)
        while let event = try await reader.next(), event.id != head {}
        var headers = HTTPHeaders()
        for (name, value) in reader.headers { headers.add(name: name, value: value) }
        client.recorder?.record(method: "GET", path: streamPath, reply: Reply(status: reader.status, headers: headers, body: Data(reader.raw.utf8)))
        try await client.get("/v1/changes/stream?since=garbage").expectError(400, "tokenInvalid")
        try server.library.expireHistory(before: try server.library.currentChangeToken)
        // A page computed before the expiry may be reused for up to a second (ChangePages.lifetime).
        #expect(await waitUntil { (try? await client.with(key: secret).get("/v1/changes?since=\(start)").status) == 410 })
        try await client.get("/v1/changes?since=\(start)").expectError(410, "tokenExpired")
        try await client.get("/v1/changes/stream?since=\(start)").expectError(410, "tokenExpired")
    }
}

extension OpenAPITests {
    /// The web gallery's page and files: HTML, scripts, styles — documented with their media types.
    fileprivate func galleryTour(_ client: Client) async throws {
        let page = try await client.get("/")
        let tag = try #require(page.header("ETag"))
        try await client.get("/", headers: [("If-None-Match", tag)]).expectStatus(304)
        let files = try #require(page.text.firstMatch(of: /gallery\/[0-9a-f]{16}/)).output
        for name in ["app.js", "gallery.css", "icon.svg"] {
            let file = try await client.get("/\(files)/\(name)")
            try file.expectStatus(200)
            if name == "app.js" { try await client.get("/\(files)/\(name)", headers: [("If-None-Match", try #require(file.header("ETag")))]).expectStatus(304) }
        }
        try await client.get("/gallery/0000000000000000/app.js").expectError(404, "notFound")
    }
}

/// The document as the build embedded it, read from the repository for comparison.
enum PackageDocument {
    static var bytes: [UInt8] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appending(path: "Sources/PhotosyncServer/openapi.json")
        return (try? [UInt8](Data(contentsOf: file))) ?? []
    }
}

extension Reply {
    func expectStatus(_ status: Int, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(self.status == status, "expected \(status), got \(self.status): \(text.prefix(300))", sourceLocation: sourceLocation)
    }
}
