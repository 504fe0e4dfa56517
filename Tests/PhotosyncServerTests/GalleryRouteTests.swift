import Foundation
import PhotoLibrary
import PhotosyncServer
import Testing

/// The gallery's files over HTTP: what is served, with which headers, and the key cookie's rules.
@Suite struct GalleryRouteTests {
    /// The gallery's sources in the repository.
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appending(path: "Sources/PhotosyncServer/Gallery/Static")

    static func sourceNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: sources.path).filter { !$0.hasPrefix(".") }.sorted()
    }

    /// The versioned path the page names its files under (`gallery/0123456789abcdef`).
    static func assetsPath(in page: String) throws -> String {
        let match = try #require(page.firstMatch(of: /gallery\/[0-9a-f]{16}/), "the page names no versioned files")
        return String(match.output)
    }

    @Test("/ is the page: HTML, revalidated (no-cache and a strong ETag, 304 on If-None-Match), with a strict CSP; no key needed")
    func page() async throws {
        let keys = [APIKey.generate(name: "gallery", level: .read).key]
        try await withServer(ServerOptions(keys: keys)) { server in
            let client = Client(server)
            let page = try await client.get("/")
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.header("Cache-Control") == "no-cache")
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            let policy = try #require(page.header("Content-Security-Policy"))
            #expect(policy.contains("script-src 'self'") && policy.contains("default-src 'none'") && !policy.contains("unsafe"))
            let tag = try #require(page.header("ETag"))
            #expect(tag.hasPrefix("\"") && !tag.hasPrefix("W/"))
            #expect(page.text.contains("<script type=\"module\" src=\"\(try Self.assetsPath(in: page.text))/app.js\"></script>"))
            #expect(!page.text.contains("{{assets}}"))
            let again = try await client.get("/", headers: [("If-None-Match", tag)])
            #expect(again.status == 304 && again.body.isEmpty)
            #expect(again.header("ETag") == tag)
            let head = try await client.send(.HEAD, "/")
            #expect(head.status == 200 && head.body.isEmpty)
            #expect(head.header("Content-Length") == String(page.body.count))
            try await client.get("/v1/token").expectError(401, "unauthorized")
        }
    }

    @Test("every file of Gallery/Static is served under the page's versioned path, byte for byte, immutable, with its type")
    func files() async throws {
        try await withServer { server in
            let client = Client(server)
            let assets = try Self.assetsPath(in: try await client.get("/").text)
            let types = ["js": "text/javascript; charset=utf-8", "css": "text/css; charset=utf-8", "svg": "image/svg+xml"]
            for name in try Self.sourceNames() where name != "index.html" {
                let reply = try await client.get("/\(assets)/\(name)")
                #expect(reply.status == 200, "\(name): \(reply.status) \(reply.text.prefix(200))")
                #expect(reply.body == (try Data(contentsOf: Self.sources.appending(path: name))), "\(name) is not the source's bytes")
                #expect(reply.header("Content-Type") == types[String(name.split(separator: ".").last ?? "")], "\(name)")
                #expect(reply.header("Cache-Control") == "public, max-age=31536000, immutable", "\(name)")
                let tag = try #require(reply.header("ETag"))
                #expect(try await client.get("/\(assets)/\(name)", headers: [("If-None-Match", tag)]).status == 304)
            }
            try await client.get("/gallery/0000000000000000/app.js").expectError(404, "notFound")
            try await client.get("/\(assets)/missing.js").expectError(404, "notFound")
            try await client.get("/\(assets)/..%2Fopenapi.json").expectError(404, "notFound")
        }
    }

    @Test("every module the gallery imports is a file it serves; the page's files are all there")
    func imports() async throws {
        let names = Set(try Self.sourceNames())
        let page = try String(contentsOf: Self.sources.appending(path: "index.html"), encoding: .utf8)
        var referenced = Set(page.matches(of: /\{\{assets\}\}\/([A-Za-z0-9_.-]+)/).map { String($0.output.1) })
        for name in names where name.hasSuffix(".js") {
            let text = try String(contentsOf: Self.sources.appending(path: name), encoding: .utf8)
            referenced.formUnion(text.matches(of: /from '\.\/([A-Za-z0-9_.-]+)'/).map { String($0.output.1) })
            #expect(!text.contains("http://") && !text.contains("https://"), "\(name) names another site")
        }
        #expect(referenced.isSubset(of: names), "missing: \(referenced.subtracting(names).sorted())")
        #expect(names.subtracting(referenced).subtracting(["index.html"]).isEmpty, "never used: \(names.subtracting(referenced).sorted())")
    }

    @Test("with keys, a GET or HEAD may carry the key in a photosync_key_* cookie (images, videos, EventSource can't send headers); writes may not")
    func keyCookie() async throws {
        let (reader, secret) = APIKey.generate(name: "gallery", level: .readWrite)
        let (_, other) = APIKey.generate(name: "elsewhere", level: .read)
        try await withServer(ServerOptions(keys: [reader])) { server in
            let client = Client(server)
            #expect(try await client.get("/v1/token", headers: [("Cookie", "photosync_key_80=\(secret)")]).status == 200)
            // HEAD too (past the key: the unknown asset is a 404, not a 401).
            #expect(try await client.send(.HEAD, "/v1/assets/none/original").status == 401)
            #expect(try await client.send(.HEAD, "/v1/assets/none/original", headers: [("Cookie", "photosync_key_80=\(secret)")]).status == 404)
            // Another origin's cookie of the same host comes first: the one holding a key of this server is used.
            let both = "theme=dark; photosync_key_8080=\(other); photosync_key_80=\(secret)"
            #expect(try await client.get("/v1/token", headers: [("Cookie", both)]).status == 200)
            try await client.get("/v1/token", headers: [("Cookie", "photosync_key_80=\(other)")]).expectError(401, "unauthorized")
            try await client.get("/v1/token", headers: [("Cookie", "session=\(secret)")]).expectError(401, "unauthorized")
            // The header wins over the cookie.
            try await client.get("/v1/token", headers: [("Authorization", "Bearer \(other)"), ("Cookie", "photosync_key_80=\(secret)")])
                .expectError(401, "unauthorized")
            // Writes need the header.
            try await client.send(.POST, "/v1/albums", json: ["title": "Trip"], headers: [("Cookie", "photosync_key_80=\(secret)")])
                .expectError(401, "unauthorized")
            #expect(try await client.with(key: secret).send(.POST, "/v1/albums", json: ["title": "Trip"]).status == 201)
        }
    }
}
