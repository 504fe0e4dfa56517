import Foundation
import PhotoLibrary
import PhotosyncServer
import PhotosyncWire
import SeededRandom
import SyncWorker
import Testing

/// Bad input of every kind, at random, at every route: the server answers each with a status below 500 and,
/// for an error, the JSON error body with a message — never a 500, never a dropped connection.
@Suite struct BadInputTests {
    /// What the random requests are made of: real identifiers and tokens mixed with malformed ones.
    struct Material {
        var assets: [String]
        var albums: [String]
        var tokens: [String]
        var cursor: String
        var rendition: String
    }

    @Test("Random malformed requests to every route (seeded): never a 5xx or a dropped connection; every error a JSON body with a message")
    func neverAServerError() async throws {
        try await withServer(ServerOptions(maximumUploadSize: 200_000, heartbeatInterval: .milliseconds(50))) { server in
            let material = try await Self.material(server)
            // PHOTOSYNC_FUZZ_SEED explores other seeds (the suite's is fixed, so a failure reproduces).
            let seed = ProcessInfo.processInfo.environment["PHOTOSYNC_FUZZ_SEED"].flatMap { UInt64($0) } ?? 1414
            var random = SplitMix64(seed: seed)
            let requests = (0..<900).map { _ in FuzzRequest.random(&random, material) }
            var failures: [String] = []
            for batch in stride(from: 0, to: requests.count, by: 8) {
                let answers = await withTaskGroup(of: (Int, RawHTTP.Answer).self) { group in
                    for index in batch..<min(batch + 8, requests.count) {
                        let request = requests[index]
                        group.addTask {
                            (index, await RawHTTP.exchange(
                                port: server.port, method: request.method, target: request.target, headers: request.headers,
                                body: request.body, timeout: request.isStream ? 3 : 30))
                        }
                    }
                    var answers: [(Int, RawHTTP.Answer)] = []
                    for await answer in group { answers.append(answer) }
                    return answers
                }
                for (index, answer) in answers {
                    if let problem = Self.problem(with: answer, to: requests[index]) { failures.append("\(requests[index]): \(problem)") }
                }
            }
            #expect(failures.isEmpty, "\(failures.count) bad answers, first ones:\n\(failures.prefix(15).joined(separator: "\n"))")
            #expect(try await Client(server).get("/healthz").status == 200)
        }
    }

    /// What is wrong with an answer, or nil.
    static func problem(with answer: RawHTTP.Answer, to request: FuzzRequest) -> String? {
        guard let status = answer.status else { return "no answer (connection dropped)" }
        guard status < 500 else { return "status \(status): \(String(decoding: answer.body.prefix(300), as: UTF8.self))" }
        if request.breaksFraming {
            // A method HTTP's parser doesn't know, a length that is no length, an unknown transfer coding: HTTP's
            // parser answers a bare 400 (the request never reaches a route) — or lets it through, to a route.
            return nil
        }
        guard status >= 400, request.method != "HEAD" else { return nil }
        guard let error = try? Wire.makeDecoder().decode(Wire.APIError.self, from: answer.body), !error.message.isEmpty else {
            return "status \(status) without the JSON error body: \(String(decoding: answer.body.prefix(200), as: UTF8.self))"
        }
        return nil
    }

    /// A library mirroring two photos (one renderable), with an album and an uploaded asset; its identifiers,
    /// tokens and a cursor.
    static func material(_ server: LiveServer) async throws -> Material {
        let client = Client(server)
        let start = try await client.token()
        let folder = server.directory.appending(path: "Pictures")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Fixtures.sample("Family/IMG_2001.jpg").write(to: folder.appending(path: "photo.jpg"))
        try Fixtures.jpeg("skeleton").write(to: folder.appending(path: "skeleton.jpg"))
        _ = try await FolderMirror(library: server.library, root: folder).scan()
        let copied = try await Fixtures.addAssets(2, to: server.library, in: server.directory)
        let album = try await client.send(.POST, "/v1/albums", json: Wire.NewAlbum(title: "Fuzz", assets: copied)).decode(Wire.AlbumWrite.self)
        let page = try await client.get("/v1/assets?limit=1").decode(Wire.AssetPage.self)
        let assets = try await client.get("/v1/assets").decode(Wire.AssetPage.self).assets.map(\.localIdentifier)
        let albums = try await client.get("/v1/albums").decode(Wire.AlbumList.self).albums.map(\.localIdentifier)
        let photo = try #require(try await client.get("/v1/assets?where=\(encoded("originalFilename == \"photo.jpg\""))")
            .decode(Wire.AssetPage.self).assets.first)
        let rendition = try #require(try await client.get("/v1/assets/\(segment(photo.localIdentifier))/thumbnail?size=16").header("Location"))
        let head = try await client.token()
        return Material(
            assets: assets, albums: [album.album.localIdentifier] + albums, tokens: [start, head, album.token],
            cursor: try #require(page.cursor), rendition: rendition)
    }
}

/// One random request: method, target (path and query, as sent), headers, body — a valid request of a
/// random route with zero to three things made wrong (a value, a parameter, the identifier, a header, the
/// body, the method, the encoding).
struct FuzzRequest: Sendable, CustomStringConvertible {
    var method: String
    var path: String
    var query: [(String, String)] = []
    var headers: [(String, String)] = []
    var body = Data()
    /// Query text replacing the encoded `query` (a broken encoding).
    var rawQuery: String?

    var target: String {
        let text = rawQuery ?? query.map { $0.0 + "=" + ($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1) }
            .joined(separator: "&")
        return text.isEmpty ? path : path + "?" + text
    }

    var isStream: Bool { path.hasPrefix("/v1/changes/stream") }

    /// Whether HTTP itself can't read the request: an unknown method, a `Content-Length` that is no length, a
    /// `Transfer-Encoding` (with the length the exchange sends, or a coding that isn't chunked).
    var breaksFraming: Bool {
        !Self.methods.contains(method) || headers.contains { $0.0 == "Transfer-Encoding" || ($0.0 == "Content-Length" && Int($0.1).map { $0 < 0 } ?? true) }
    }

    var description: String {
        let shownBody = body.count > 80 ? "\(body.count) bytes" : String(decoding: body, as: UTF8.self)
        return "\(method) \(target.prefix(160)) \(headers.map { "\($0.0): \($0.1.prefix(60))" }) \(shownBody)"
    }

    /// The methods HTTP knows (the others are refused by its parser, before any route).
    static let methods: Set<String> = ["GET", "HEAD", "POST", "PATCH", "DELETE", "PUT", "OPTIONS"]

    static func random(_ random: inout SplitMix64, _ material: BadInputTests.Material) -> FuzzRequest {
        var request = valid(&random, material)
        for _ in 0..<random.pick([0, 1, 1, 1, 2, 2, 3]) { request.mutate(&random, material) }
        if request.isStream, request.query.contains(where: { $0.0 == "since" && material.tokens.contains($0.1) }), random.chance(0.7) {
            // A stream from a valid token never ends (it is read for a second): most streams get a bad one.
            request.query = [("since", random.pick(badTokens))]
        }
        return request
    }

    /// A valid request of a random route.
    static func valid(_ random: inout SplitMix64, _ material: BadInputTests.Material) -> FuzzRequest {
        let asset = segment(random.pick(material.assets)), album = segment(random.pick(material.albums))
        let token = random.pick(material.tokens)
        var request: FuzzRequest
        switch random.int(in: 0...19) {
        case 0: request = FuzzRequest(method: "GET", path: "/v1/changes", query: [("since", token), ("limit", "3"), ("wait", "0.05")])
        case 1: request = FuzzRequest(method: "GET", path: "/v1/changes", query: [("since", token), ("coalesce", "1"), ("excludeAuthor", "local")])
        case 2: request = FuzzRequest(method: "GET", path: "/v1/changes/stream", query: [("since", token)])
        case 3: request = FuzzRequest(method: "GET", path: random.pick(["/v1/token", "/healthz", "/metrics", "/openapi.json", "/v1/state"]))
        case 4:
            request = FuzzRequest(method: "GET", path: "/v1/assets", query: [
                ("where", random.pick(goodPredicates)), ("sort", random.pick(["-creationDate", "pixelWidth,-creationDate"])), ("limit", "2"),
            ])
        case 5: request = FuzzRequest(method: "GET", path: "/v1/assets", query: [("cursor", material.cursor), ("limit", "1")])
        case 6: request = FuzzRequest(method: random.pick(["GET", "HEAD"]), path: "/v1/assets/\(asset)/original", headers: [("Range", "bytes=0-9")])
        case 7: request = FuzzRequest(method: "GET", path: "/v1/assets/\(asset)")
        case 8:
            request = FuzzRequest(method: "GET", path: "/v1/assets/\(asset)/thumbnail", query: [
                ("size", random.pick(["16", "24x16"])), ("mode", random.pick(["fill", "fit"])), ("format", random.pick(["jpeg", "webp", "png"])),
            ])
        case 9: request = FuzzRequest(method: "GET", path: material.rendition, headers: [("If-None-Match", "\"x\"")])
        case 10: request = FuzzRequest(method: "POST", path: "/v1/assets", query: [("filename", "x.jpg")], body: Fixtures.jpeg("fuzz \(random.int(in: 0...99))"))
        case 11:
            request = FuzzRequest(
                method: "PATCH", path: "/v1/assets/\(asset)", headers: [("Content-Type", "application/json")],
                body: Data(random.pick(goodAssetEdits).utf8))
        case 12: request = FuzzRequest(method: "DELETE", path: "/v1/assets/\(asset)", headers: [("If-Match", token)])
        case 13: request = FuzzRequest(method: "GET", path: "/v1/albums", query: [("type", random.pick(["album", "smartAlbum", "moment"]))])
        case 14: request = FuzzRequest(method: "GET", path: "/v1/albums/\(album)")
        case 15: request = FuzzRequest(method: "GET", path: "/v1/albums/\(album)/assets", query: [("limit", "2"), ("sort", "-creationDate")])
        case 16:
            request = FuzzRequest(
                method: "POST", path: "/v1/albums", headers: [("Content-Type", "application/json")],
                body: Data("{\"title\": \"Fuzz\", \"assets\": [\"\(random.pick(material.assets))\"]}".utf8))
        case 17:
            let member = random.pick(material.assets)
            request = FuzzRequest(
                method: "PATCH", path: "/v1/albums/\(album)", headers: [("Content-Type", "application/json")],
                body: Data(random.pick(["{\"title\": \"U\"}", "{\"addAssets\": [\"\(member)\"]}", "{\"removeAssets\": [\"\(member)\"]}"]).utf8))
        case 18: request = FuzzRequest(method: "DELETE", path: "/v1/albums/\(album)")
        default: request = FuzzRequest(method: "OPTIONS", path: "/v1/assets", headers: [("Origin", "https://example.org"), ("Access-Control-Request-Method", "GET")])
        }
        return request
    }

    /// Makes one thing about the request wrong.
    mutating func mutate(_ random: inout SplitMix64, _ material: BadInputTests.Material) {
        switch random.int(in: 0...8) {
        case 0 where !query.isEmpty:
            let index = random.int(in: 0...(query.count - 1))
            query[index].1 = Self.badValue(for: query[index].0, &random, material)
        case 1:
            let name = random.pick(Self.parameterNames)
            query.append((name, Self.badValue(for: name, &random, material)))
        case 2 where !query.isEmpty: query.append(random.pick(query))
        case 3: rawQuery = String(target.drop { $0 != "?" }.dropFirst()) + "&" + random.pick(Self.brokenEncodings)
        case 4: path = Self.breakIdentifier(in: path, &random)
        case 5:
            let (name, values) = random.pick(Self.headerValues(material))
            headers.append((name, random.pick(values)))
        case 6: body = Self.badBody(&random, material)
        case 7: method = random.pick(["GET", "HEAD", "POST", "PATCH", "DELETE", "PUT", "OPTIONS", "BREW", "get"])
        default: path = random.pick(["/", "/v1", "//v1//assets", "/v1/assets/", "/v1/nothing", path + "/other", path + "/", "/v1/assets/x/original/original"])
        }
    }

    static let goodPredicates = ["isFavorite == YES", "pixelWidth > 10", "originalFilename BEGINSWITH \"p\"", "NOT isHidden"]
    static let goodAssetEdits = [
        "{\"isFavorite\": true}", "{\"isHidden\": false}", "{\"creationDate\": \"2021-06-01T12:00:00+02:00\"}",
        "{\"location\": {\"latitude\": 1, \"longitude\": 2}}", "{\"location\": null, \"creationDate\": null}",
    ]

    static let parameterNames = [
        "since", "limit", "coalesce", "wait", "excludeAuthor", "where", "sort", "cursor", "includeHidden", "includeAllBursts",
        "type", "size", "mode", "format", "filename", "x", "",
    ]

    static let badTokens = [
        "", "garbage", "AAAA", String(repeating: "A", count: 3000), "UFNDVAEAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
        "-1", "0", "🙂", "PSCT", "=====", "\u{0}",
    ]

    static let brokenEncodings = ["%zz", "%", "x=%E0%80", "x=%00", "since=%FF", "a%2", "%C0%AF=1", "=", "&&"]

    static let numbers = [
        "0", "-1", "1", "3", "55", "56", "1000", "1001", "10000", "10001", "99999999999999999999", "1e309", "-1e309", "nan", "inf",
        "-inf", "0x10", "1.5", " 1", "", "-0", "1_000", "٣",
    ]

    static func breakIdentifier(in path: String, _ random: inout SplitMix64) -> String {
        let bad = random.pick([
            "..", "%2e%2e", "%2F", "%00", "%zz", "%", "a%2", String(repeating: "x", count: 3000), "%C0%AF", "%FF%FE", "%E6%97%A5", "id;x",
            "..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", "~", "*", "%20", "a%0D%0AX-Injected:%201", "../../../etc/passwd",
        ])
        for prefix in ["/v1/assets/", "/v1/albums/", "/v1/renditions/"] where path.hasPrefix(prefix) {
            var rest = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
            rest[0] = bad
            return prefix + rest.joined(separator: "/")
        }
        return path + "/" + bad
    }

    static func badValue(for name: String, _ random: inout SplitMix64, _ material: BadInputTests.Material) -> String {
        switch name {
        case "since", "excludeAuthor": return random.pick(badTokens)
        case "wait":
            // Long waits are valid (and keep the connection busy with heartbeats): only short or invalid ones.
            return random.pick(numbers.filter { Double($0).map { !(0.06...55).contains($0) } ?? true })
        case "limit", "coalesce", "includeHidden", "includeAllBursts": return random.pick(numbers + ["true", "false", "yes"])
        case "where":
            return random.pick([
                "pixelWidth >", "(((((", "creationDate < \"x\"", String(repeating: "a", count: 2000), "NOT", "isFavorite == YES AND",
                "\u{0}", "pixelWidth > 99999999999999999999", "localIdentifier IN {}", "creationDate > CAST(\"nan\", \"NSDate\")",
                String(repeating: "(", count: 5000) + "isFavorite == YES" + String(repeating: ")", count: 5000),
                String(repeating: "NOT ", count: 5000) + "isFavorite == YES", "originalFilename MATCHES \"(a*)*b\"", "duration > 1e309",
                "%@", "TRUEPREDICATE", "originalFilename == \"\u{0}\"", "pixelWidth BETWEEN {1}", "isFavorite == \"YES\"",
            ])
        case "sort": return random.pick(["-", "--creationDate", "creationDate,", ",", "nope", "-creationDate,-creationDate", "", "pixelWidth,-"])
        case "cursor": return random.pick(["", "garbage", String(material.cursor.dropLast(2)), material.cursor + "AA", "e30", "W10", "eyJrIjpbXX0"])
        case "size": return random.pick(["0", "4097", "12x", "x12", "16x9000", "-1", "1e3", "16x16x16", ""])
        case "mode": return random.pick(["stretch", "", "FILL"])
        case "format": return random.pick(["gif", "", "JPEG", "avif "])
        case "type": return random.pick(["folder", "", "Album"])
        case "filename": return random.pick(["..", "a/b.jpg", "\u{0}.jpg", "", String(repeating: "n", count: 300), "."])
        default: return random.pick(numbers.filter { Double($0).map { !(0.06...55).contains($0) } ?? true } + badTokens)
        }
    }

    static func headerValues(_ material: BadInputTests.Material) -> [(String, [String])] {
        [
            ("Range", ["bytes=0-0", "bytes=-0", "bytes=5-3", "bytes=0-", "bytes=99999999999999999999-", "bytes=-99999999999999999999",
                       "bytes=-", "bytes=a-b", "items=0-1", "bytes=0-1,2-3", "bytes= 1 - 2 ", "bytes=٣-"]),
            ("If-Match", ["*", "\"\"", "W/", "W/\"x\"", "garbage", "", "\"" + String(repeating: "A", count: 500) + "\""]),
            ("If-None-Match", ["*", "\"x\"", "", "W/", ",,,"]),
            ("If-Range", ["\"x\"", "", "Wed, 21 Oct 2015 07:28:00 GMT"]),
            ("Last-Event-ID", badTokens.filter { !$0.contains("\u{0}") }),
            ("Content-Type", ["text/plain", "application/json; charset=utf-16", "", "multipart/form-data; boundary=x", "application/jsonx"]),
            ("Content-Length", ["abc", "-1", "99999999999999999999"]),
            ("Transfer-Encoding", ["chunked", "gzip"]),
            ("Authorization", ["Bearer x", "Basic abc", "Bearer", ""]),
            ("Origin", ["https://example.org", "null"]),
            ("Accept", ["text/event-stream", "*/*", "image/webp"]),
        ]
    }

    static func badBody(_ random: inout SplitMix64, _ material: BadInputTests.Material) -> Data {
        let id = random.pick(material.assets)
        let texts = [
            "", "{}", "null", "[]", "{\"isFavorite\": 1}", "{\"title\": \"\"}", "{\"title\": \"x\", \"assets\": [\"nope\"]}",
            "{\"removeAssets\": [\"\(id)\", \"\(id)\"]}", "{\"addAssets\": [\"\(id)\", \"\(id)\"]}", "{\"creationDate\": \"2021-13-45T99:99\"}",
            "{\"creationDate\": 1e400}", "{\"location\": {\"latitude\": \"nan\"}}",
            "{\"location\": {\"latitude\": 1e308, \"longitude\": -1e308, \"altitude\": 1e400}}", "{\"title\": \"\\u0000\"}",
            "{\"isHidden\": true, \"isHidden\": false}", "{\"title\": \"a\", \"title\": 3}", "\"just a string\"", "{\"assets\": {}}",
            "{\"creationDate\": \"2021-06-01T12:00:00+99:00\"}", "{\"location\": {\"latitude\": 1, \"longitude\": 2, \"extra\": 3}}",
            "{\"location\": {\"latitude\": -91, \"longitude\": 181}}", "{\"creationDate\": \"-999999-01-01T00:00:00Z\"}",
            "{\"creationDate\": \"9999999-01-01T00:00:00Z\"}", "{\"title\": \"\\ud800\"}",
            String(repeating: "[", count: 100_000), String(repeating: "{\"a\":", count: 20_000),
            "{\"title\": \"" + String(repeating: "t", count: 70_000) + "\"}",
        ]
        switch random.int(in: 0...9) {
        case 0: return Data((0..<random.int(in: 1...200)).map { _ in UInt8.random(in: 0...255, using: &random) })
        case 1: return Data([0xFF, 0xFE, 0x7B, 0x22, 0xC0, 0xAF, 0x22, 0x7D])
        case 2: return Fixtures.jpeg("fuzz \(random.int(in: 0...3))")
        case 3: return Data(count: 300_000)
        default: return Data(random.pick(texts).utf8)
        }
    }
}
