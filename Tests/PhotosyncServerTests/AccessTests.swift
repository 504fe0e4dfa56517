import Foundation
import Logging
import PhotoLibrary
import PhotosyncServer
import PhotosyncWire
import SyncWorker
import Testing

/// API keys and their levels, CORS, the options' checks.
@Suite struct AccessTests {
    /// Three keys: `reader` (read), `phone` (add-only), `admin` (read-write); their secrets by name.
    static func threeKeys() -> (keys: [APIKey], secrets: [String: String]) {
        var keys: [APIKey] = []
        var secrets: [String: String] = [:]
        for (name, level) in [("reader", AccessLevel.read), ("phone", .addOnly), ("admin", .readWrite)] {
            let (key, secret) = APIKey.generate(name: name, level: level)
            keys.append(key)
            secrets[name] = secret
        }
        return (keys, secrets)
    }

    /// A server with the three keys; their secrets by name.
    static func serverWithKeys(_ body: (LiveServer, [String: String]) async throws -> Void) async throws {
        let (keys, secrets) = threeKeys()
        try await withServer(ServerOptions(keys: keys)) { server in try await body(server, secrets) }
    }

    @Test("Without a valid key: 401 with a Bearer challenge; /healthz and /openapi.json need none")
    func unauthorized() async throws {
        try await Self.serverWithKeys { server, secrets in
            let client = Client(server)
            for path in ["/v1/token", "/v1/assets", "/v1/changes?since=x", "/metrics", "/v1/state"] {
                let reply = try await client.get(path)
                try reply.expectError(401, "unauthorized")
                #expect(reply.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            }
            try await client.with(key: "psk_wrong").get("/v1/token").expectError(401, "unauthorized")
            try await client.with(key: secrets["reader"]! + "x").get("/v1/token").expectError(401, "unauthorized")
            #expect(try await client.get("/healthz").status == 200)
            #expect(try await client.get("/openapi.json").status == 200)
        }
    }

    @Test("read reads only; add-only adds only (no reads); read-write does everything — 403 beyond the level; the author is the key's name")
    func levels() async throws {
        try await Self.serverWithKeys { server, secrets in
            let base = Client(server)
            let reader = base.with(key: secrets["reader"]), phone = base.with(key: secrets["phone"]), admin = base.with(key: secrets["admin"])
            let start = try await reader.token()
            // read
            #expect(try await reader.get("/v1/assets").status == 200)
            #expect(try await reader.get("/metrics").status == 200)
            try await reader.send(.POST, "/v1/assets?filename=a.jpg", body: Fixtures.jpeg("r")).expectError(403, "forbidden")
            try await reader.send(.POST, "/v1/albums", json: Wire.NewAlbum(title: "R")).expectError(403, "forbidden")
            // add-only
            let uploaded = try await phone.send(.POST, "/v1/assets?filename=p.jpg", body: Fixtures.jpeg("from the phone"))
            #expect(uploaded.status == 201)
            let id = try uploaded.decode(Wire.AssetWrite.self).asset.localIdentifier
            #expect(try await phone.send(.POST, "/v1/albums", json: Wire.NewAlbum(title: "Camera")).status == 201)
            try await phone.get("/v1/assets").expectError(403, "forbidden")
            try await phone.get("/v1/changes?since=\(start)").expectError(403, "forbidden")
            try await phone.send(.PATCH, "/v1/assets/\(segment(id))", json: Wire.AssetEdit(isFavorite: true)).expectError(403, "forbidden")
            try await phone.send(.DELETE, "/v1/assets/\(segment(id))").expectError(403, "forbidden")
            // read-write
            try await reader.send(.PATCH, "/v1/assets/\(segment(id))", json: Wire.AssetEdit(isFavorite: true)).expectError(403, "forbidden")
            #expect(try await admin.send(.PATCH, "/v1/assets/\(segment(id))", json: Wire.AssetEdit(isFavorite: true)).status == 200)
            #expect(try await admin.get("/v1/assets").status == 200)
            // Authors: the keys' names, so that a client can leave out its own writes.
            let page = try await reader.get("/v1/changes?since=\(start)").decode(Wire.ChangesPage.self)
            #expect(page.changes.map(\.author) == ["phone", "phone", "admin"])
            let others = try await reader.get("/v1/changes?since=\(start)&excludeAuthor=phone").decode(Wire.ChangesPage.self)
            #expect(others.changes.map(\.author) == ["admin"] && others.token == page.token)
        }
    }

    @Test("A rendition served from its check still needs read access: 401 without a key, 403 for add-only")
    func checkedRenditionsNeedReadAccess() async throws {
        try await Self.serverWithKeys { server, secrets in
            let base = Client(server)
            let reader = base.with(key: secrets["reader"]), phone = base.with(key: secrets["phone"])
            let folder = try Fixtures.folder(in: server.directory, count: 0)
            try Fixtures.sample("Family/IMG_2001.jpg").write(to: folder.appending(path: "photo.jpg"))
            _ = try await FolderMirror(library: server.library, root: folder).scan()
            let asset = try await reader.get("/v1/assets").decode(Wire.AssetPage.self).assets[0]
            let identifier = try #require(asset.localIdentifier.addingPercentEncoding(withAllowedCharacters: .alphanumerics))
            let location = try #require(try await reader.get("/v1/assets/\(identifier)/thumbnail?size=32").header("Location"))
            // Rendered, then served from memory (which checks the URL), then from the check.
            for _ in 0..<3 { #expect(try await reader.get(location).status == 200) }
            #expect(try await metric(reader, "photosync_thumbnail_cache_hits_total") == 2)
            try await base.get(location).expectError(401, "unauthorized")
            try await phone.get(location).expectError(403, "forbidden")
        }
    }

    @Test("An address other than loopback needs keys; loopback addresses are recognised")
    func publicAddressesNeedKeys() throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-server-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let library = try PhotoLibrary(url: directory.appending(path: "Library.photosync"))
        #expect(throws: ServerOptions.Problem.self) {
            _ = try buildApplication(library: library, options: ServerOptions(host: "0.0.0.0", port: 0), logger: Logger(label: "test"))
        }
        let (key, _) = APIKey.generate(name: "k", level: .read)
        _ = try buildApplication(library: library, options: ServerOptions(host: "0.0.0.0", port: 0, keys: [key]), logger: Logger(label: "test"))
        for host in ["127.0.0.1", "127.1.2.3", "localhost", "::1"] { #expect(ServerOptions.isLoopback(host)) }
        for host in ["0.0.0.0", "192.168.1.2", "::", "example.org", "127.0.0.1.example.org"] { #expect(!ServerOptions.isLoopback(host)) }
    }

    @Test("The auth file stores keys hashed: a key added there works; the secret is nowhere in the file")
    func authFile() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-keys-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appending(path: "keys")
        let secret = try AuthFile.addKey(name: "phone", level: .addOnly, to: file)
        _ = try AuthFile.addKey(name: "laptop", level: .readWrite, to: file)
        #expect(throws: AuthFile.Problem.self) { try AuthFile.addKey(name: "phone", level: .read, to: file) }
        #expect(throws: AuthFile.Problem.self) { try AuthFile.addKey(name: "two words", level: .read, to: file) }
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(!text.contains(secret) && !text.contains(String(secret.dropFirst(4).prefix(20))))
        let attributes = try FileManager.default.attributesOfItem(atPath: file.path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let keys = try AuthFile.load(file)
        #expect(keys.map(\.name) == ["phone", "laptop"] && keys.map(\.level) == [.addOnly, .readWrite])
        #expect(keys[0].matches(secret) && !keys[1].matches(secret) && !keys[0].matches(secret + "x"))
        try "phone read hmac-sha256:AAAA:BBBB\n".write(to: file, atomically: true, encoding: .utf8)
        #expect(throws: AuthFile.Problem.self) { try AuthFile.load(file) }
    }

    @Test("CORS is off unless configured; a configured origin gets the headers and its preflight a 204")
    func cors() async throws {
        try await withServer { server in
            let reply = try await Client(server).get("/v1/token", headers: [("Origin", "https://gallery.example")])
            #expect(reply.status == 200 && reply.header("Access-Control-Allow-Origin") == nil)
        }
        try await withServer(ServerOptions(corsOrigins: ["https://gallery.example"])) { server in
            let client = Client(server)
            let allowed = try await client.get("/v1/token", headers: [("Origin", "https://gallery.example")])
            #expect(allowed.header("Access-Control-Allow-Origin") == "https://gallery.example")
            #expect(allowed.header("Vary") == "Origin")
            let other = try await client.get("/v1/token", headers: [("Origin", "https://evil.example")])
            #expect(other.header("Access-Control-Allow-Origin") == nil)
            let preflight = try await client.send(
                .OPTIONS, "/v1/assets/x", headers: [("Origin", "https://gallery.example"), ("Access-Control-Request-Method", "PATCH")])
            #expect(preflight.status == 204)
            #expect(preflight.header("Access-Control-Allow-Methods")?.contains("PATCH") == true)
            #expect(preflight.header("Access-Control-Allow-Headers")?.contains("If-Match") == true)
            let failed = try await client.get("/v1/changes?since=bad", headers: [("Origin", "https://gallery.example")])
            #expect(failed.status == 400 && failed.header("Access-Control-Allow-Origin") == "https://gallery.example")
        }
    }
}
