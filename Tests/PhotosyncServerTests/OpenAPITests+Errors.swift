import Foundation
import NIOHTTP1
import PhotoLibrary
import PhotosyncServer
import PhotosyncWire
import Testing

/// The objects the error tours name.
struct TourObjects {
    /// A copied asset (the library's own).
    let asset: String
    /// A user album.
    let album: String
    /// An asset mirroring a file.
    let mirrored: String
    /// An immutable rendition URL.
    let rendition: String
    let token: String
}

/// One operation of the API, as the access and error tours send it.
struct TourOperation {
    let method: HTTPMethod
    let path: String
    var body: Data? = nil
    var contentType: String? = nil
    let permission: AccessLevel.Permission

    /// Whether the path names an object (an unknown one is a 404).
    var namesObject: Bool { path.contains("%2F") }

    var headers: [(String, String)] { contentType.map { [("Content-Type", $0)] } ?? [] }

    /// The path with one more query parameter.
    func adding(_ parameter: String) -> String { path + (path.contains("?") ? "&" : "?") + parameter }
}

extension OpenAPITests {
    /// Every operation of the document, sendable as it is.
    static func operations(_ objects: TourObjects) -> [TourOperation] {
        let asset = "/v1/assets/\(segment(objects.asset))", album = "/v1/albums/\(segment(objects.album))"
        let json = "application/json"
        return [
            TourOperation(method: .GET, path: "/metrics", permission: .read),
            TourOperation(method: .GET, path: "/v1/token", permission: .read),
            TourOperation(method: .GET, path: "/v1/changes?since=\(objects.token)", permission: .read),
            TourOperation(method: .GET, path: "/v1/changes/stream?since=\(objects.token)", permission: .read),
            TourOperation(method: .GET, path: "/v1/state", permission: .read),
            TourOperation(method: .GET, path: "/v1/assets", permission: .read),
            TourOperation(method: .POST, path: "/v1/assets?filename=access.jpg", body: Fixtures.jpeg("access tour"), permission: .add),
            TourOperation(method: .GET, path: asset, permission: .read),
            TourOperation(method: .PATCH, path: asset, body: Data("{\"isFavorite\": true}".utf8), contentType: json, permission: .modify),
            TourOperation(method: .DELETE, path: asset, permission: .modify),
            TourOperation(method: .GET, path: "/v1/assets/\(segment(objects.mirrored))/original", permission: .read),
            TourOperation(method: .HEAD, path: "/v1/assets/\(segment(objects.mirrored))/original", permission: .read),
            TourOperation(method: .GET, path: "/v1/assets/\(segment(objects.mirrored))/thumbnail", permission: .read),
            TourOperation(method: .GET, path: objects.rendition, permission: .read),
            TourOperation(method: .GET, path: "/v1/albums", permission: .read),
            TourOperation(method: .POST, path: "/v1/albums", body: Data("{\"title\": \"Access\"}".utf8), contentType: json, permission: .add),
            TourOperation(method: .GET, path: album, permission: .read),
            TourOperation(method: .PATCH, path: album, body: Data("{\"title\": \"Renamed\"}".utf8), contentType: json, permission: .modify),
            TourOperation(method: .DELETE, path: album, permission: .modify),
            TourOperation(method: .GET, path: album + "/assets", permission: .read),
        ]
    }

    /// The three access levels at every operation: no key is a 401, a key below the operation's level a 403
    /// (and changes nothing).
    func accessTour(_ client: Client, objects: TourObjects, secrets: [AccessLevel: String]) async throws {
        let before = try await client.token()
        for operation in Self.operations(objects) {
            let anonymous = try await client.with(key: nil).send(operation.method, operation.path, headers: operation.headers, body: operation.body)
            try anonymous.expectStatus(401)
            if operation.method != .HEAD { try anonymous.expectError(401, "unauthorized") }
            for level in AccessLevel.allCases where !level.allows(operation.permission) {
                let refused = try await client.with(key: secrets[level]).send(
                    operation.method, operation.path, headers: operation.headers, body: operation.body)
                try refused.expectStatus(403)
                if operation.method != .HEAD { try refused.expectError(403, "forbidden") }
            }
        }
        #expect(try await client.token() == before, "a refused request changed the library")
        try await client.with(key: "psk_not-a-key").get("/v1/token").expectError(401, "unauthorized")
    }

    /// The client errors of every operation: an unknown parameter (400), an unknown object (404), bodies too
    /// large or not JSON (413, 415), stale `If-Match` tokens (412), a file that makes no thumbnail (409).
    func errorTour(_ client: Client, server: LiveServer, objects: TourObjects) async throws {
        for operation in Self.operations(objects) {
            let reply = try await client.send(operation.method, operation.adding("bogus=1"), headers: operation.headers, body: operation.body)
            try reply.expectStatus(400)
            if operation.method != .HEAD { try reply.expectError(400, "invalidRequest") }
            if operation.namesObject {
                let unknown = operation.path.replacingOccurrences(of: "%2FL0%2F0", with: "%2FL9%2F9")
                let missing = try await client.send(operation.method, unknown, headers: operation.headers, body: operation.body)
                try missing.expectStatus(404)
                if operation.method != .HEAD { try missing.expectError(404, "notFound") }
            }
        }
        try await client.get("/openapi.json?bogus=1").expectError(400, "invalidRequest")
        let asset = "/v1/assets/\(segment(objects.asset))", album = "/v1/albums/\(segment(objects.album))"
        let large = Data("{\"title\": \"\(String(repeating: "t", count: 70_000))\"}".utf8)
        for (method, path) in [(HTTPMethod.PATCH, asset), (.POST, "/v1/albums"), (.PATCH, album)] {
            try await client.send(method, path, headers: [("Content-Type", "application/json")], body: large).expectError(413, "payloadTooLarge")
            try await client.send(method, path, headers: [("Content-Type", "text/plain")], body: Data("{}".utf8))
                .expectError(415, "unsupportedMediaType")
        }
        try await client.send(.POST, "/v1/assets?filename=big.jpg", body: Data(count: 200_000)).expectError(413, "payloadTooLarge")
        try await client.send(.POST, "/v1/assets", headers: [("If-Match", objects.token)], body: Fixtures.jpeg("x"))
            .expectError(400, "invalidRequest")
        // The album and the asset change after the token: writes conditional on it are refused.
        try await client.send(.PATCH, album, json: Wire.AlbumEdit(removeAssets: [objects.asset])).expectStatus(200)
        try await client.send(.PATCH, asset, json: Wire.AssetEdit(isFavorite: false)).expectStatus(200)
        try await client.send(.PATCH, album, json: Wire.AlbumEdit(title: "Stale"), headers: [("If-Match", objects.token)])
            .expectError(412, "preconditionFailed")
        try await client.send(.DELETE, album, headers: [("If-Match", objects.token)]).expectError(412, "preconditionFailed")
        try await client.send(.DELETE, asset, headers: [("If-Match", objects.token)]).expectError(412, "preconditionFailed")
        try await client.send(.PATCH, asset, json: Wire.AssetEdit(isFavorite: true), headers: [("If-Match", objects.token)])
            .expectError(412, "preconditionFailed")
        // The uploaded asset is a JPEG without pixels (the fixtures' skeleton): it makes no thumbnail, 409.
        let location = try #require(try await client.get("\(asset)/thumbnail").header("Location"))
        try await client.get(location).expectError(409, "conflict")
        try await client.get("/v1/albums/\(segment(objects.album))/assets?cursor=nope").expectError(400, "invalidCursor")
        // The library's own albums are not the client's to change.
        let smart = try #require(try await client.get("/v1/albums?type=smartAlbum").decode(Wire.AlbumList.self).albums.first)
        try await client.send(.PATCH, "/v1/albums/\(segment(smart.localIdentifier))", json: Wire.AlbumEdit(title: "Mine"))
            .expectError(409, "conflict")
        try await client.send(.DELETE, "/v1/albums/\(segment(smart.localIdentifier))").expectError(409, "conflict")
        // HEAD: GET's statuses and headers, no body.
        let original = "/v1/assets/\(segment(objects.mirrored))/original"
        for (headers, status) in [([(String, String)](), 200), ([("Range", "bytes=0-3")], 206), ([("If-None-Match", "*")], 304),
                                  ([("Range", "bytes=999999-")], 416)]
        {
            let reply = try await client.send(.HEAD, original, headers: headers)
            try reply.expectStatus(status)
            #expect(reply.body.isEmpty)
        }
    }
}
