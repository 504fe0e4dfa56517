import Foundation
import PhotoLibrary
import PhotosyncServer
import PhotosyncWire
import SyncWorker
import Testing

/// Uploads, edits and deletions of assets; albums created, edited and deleted; `If-Match`.
@Suite struct WriteTests {
    @Test("An upload is streamed into the originals store: 201 with the asset and its commit's token; the same content again creates nothing")
    func upload() async throws {
        try await withServer { server in
            let client = Client(server)
            let before = try await client.token()
            let bytes = Fixtures.jpeg("uploaded from a phone")
            let reply = try await client.send(.POST, "/v1/assets?filename=IMG_7001.jpg", body: bytes)
            #expect(reply.status == 201, "\(reply.text)")
            let write = try reply.decode(Wire.AssetWrite.self)
            #expect(write.asset.originalFilename == "IMG_7001.jpg" && write.asset.mediaType == "image" && write.asset.pixelWidth == 64)
            #expect(reply.header("Location") == "/v1/assets/\(segment(write.asset.localIdentifier))")
            let stored = try server.library.fetchAssets(withLocalIdentifiers: [write.asset.localIdentifier]).object(at: 0)
            #expect(try Data(contentsOf: try #require(stored.fileURL(in: server.library))) == bytes)
            // The token is its commit's: the feed up to it holds the upload, authored by the client.
            let changes = try await client.get("/v1/changes?since=\(before)").decode(Wire.ChangesPage.self)
            #expect(changes.changes.last?.token == write.token && changes.changes.last?.author == "local")
            let again = try await client.send(.POST, "/v1/assets?filename=copy.jpg", body: bytes)
            #expect(again.status == 200)
            #expect(try again.decode(Wire.AssetWrite.self).asset.localIdentifier == write.asset.localIdentifier)
            #expect(try server.library.fetchAssets(options: FetchOptions(includeHiddenAssets: true)).count == 1)
            let uploads = server.library.url.appending(path: ".uploads")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? []).isEmpty, "temporary files left behind")
        }
    }

    @Test("An upload over the limit is a 413 and leaves nothing; not media is a 415; a bad file name is a 400")
    func refusedUploads() async throws {
        try await withServer(ServerOptions(maximumUploadSize: 1000)) { server in
            let client = Client(server)
            try await client.send(.POST, "/v1/assets?filename=big.jpg", body: Data(count: 5000)).expectError(413, "payloadTooLarge")
            try await client.send(.POST, "/v1/assets?filename=note.txt", body: Data("just text".utf8)).expectError(415, "unsupportedMediaType")
            for name in ["..", "a%2Fb.jpg", "x%00.jpg", ""] {
                try await client.send(.POST, "/v1/assets?filename=\(name)", body: Fixtures.jpeg("n")).expectError(400, "invalidRequest")
            }
            #expect(try server.library.fetchAssets().count == 0)
            let uploads = server.library.url.appending(path: ".uploads")
            #expect(((try? FileManager.default.contentsOfDirectory(atPath: uploads.path)) ?? []).isEmpty, "temporary files left behind")
        }
    }

    @Test("PATCH changes isFavorite, isHidden, creationDate and location; null clears; an unknown field or a wrong type is a 400")
    func editAsset() async throws {
        try await withServer { server in
            let client = Client(server)
            let id = try #require(try await Fixtures.addAssets(1, to: server.library, in: server.directory).first)
            let path = "/v1/assets/\(segment(id))"
            let date = try #require(Wire.Timestamp("2021-06-01T12:00:00+02:00"))
            let edit = Wire.AssetEdit(isFavorite: true, isHidden: true, creationDate: .set(date), location: .set(Wire.Location(latitude: 48.85, longitude: 2.35)))
            let written = try await client.send(.PATCH, path, json: edit).decode(Wire.AssetWrite.self)
            #expect(written.asset.isFavorite && written.asset.isHidden)
            #expect(written.asset.creationDate == date && written.asset.latitude == 48.85 && written.asset.longitude == 2.35)
            let cleared = try await client.send(.PATCH, path, json: Wire.AssetEdit(creationDate: .clear, location: .clear)).decode(Wire.AssetWrite.self)
            #expect(cleared.asset.creationDate == nil && cleared.asset.latitude == nil && cleared.asset.isFavorite)
            for (body, word) in [("{\"isFavourite\": true}", "isFavourite"), ("{\"isFavorite\": \"yes\"}", "isFavorite"),
                                 ("{}", "changes nothing"), ("not json", "JSON"), ("{\"creationDate\": \"yesterday\"}", "creationDate"),
                                 ("{\"location\": {\"latitude\": 95, \"longitude\": 0}}", "location")]
            {
                let reply = try await client.send(.PATCH, path, headers: [("Content-Type", "application/json")], body: Data(body.utf8))
                let error = try reply.expectError(400, "invalidRequest")
                #expect(error.message.contains(word), "\(body): \(error.message)")
            }
            try await client.send(.PATCH, "/v1/assets/\(segment(id.replacingOccurrences(of: "-", with: "0")))", json: edit).expectError(404, "notFound")
        }
    }

    @Test("If-Match: a write after a token is refused with 412 when the object changed since; applied when it didn't")
    func ifMatch() async throws {
        try await withServer { server in
            let client = Client(server)
            let id = try #require(try await Fixtures.addAssets(1, to: server.library, in: server.directory).first)
            let path = "/v1/assets/\(segment(id))"
            let read = try await client.token()
            // Another writer changes the asset after the client read it.
            let asset = try server.library.fetchAssets(withLocalIdentifiers: [id]).object(at: 0)
            try await server.library.performChanges(author: "other") { AssetChangeRequest(for: asset).isHidden = true }
            try await client.send(.PATCH, path, json: Wire.AssetEdit(isFavorite: true), headers: [("If-Match", "\"\(read)\"")])
                .expectError(412, "preconditionFailed")
            try await client.send(.DELETE, path, headers: [("If-Match", read)]).expectError(412, "preconditionFailed")
            #expect(try !server.library.fetchAssets(withLocalIdentifiers: [id]).object(at: 0).isFavorite)
            // A change to another object doesn't matter.
            let fresh = try await client.token()
            _ = try await Fixtures.addAssets(1, to: server.library, in: server.directory)
            let applied = try await client.send(.PATCH, path, json: Wire.AssetEdit(isFavorite: true), headers: [("If-Match", fresh)])
            #expect(applied.status == 200)
            try await client.send(.PATCH, path, json: Wire.AssetEdit(isFavorite: false), headers: [("If-Match", "nonsense")])
                .expectError(400, "tokenInvalid")
            // A token the history no longer reaches proves nothing.
            try server.library.expireHistory(before: try server.library.currentChangeToken)
            try await client.send(.PATCH, path, json: Wire.AssetEdit(isFavorite: false), headers: [("If-Match", fresh)])
                .expectError(412, "preconditionFailed")
        }
    }

    @Test("DELETE removes an asset and answers its commit's token; a mirrored asset is a 409 (its file would bring it back)")
    func deleteAsset() async throws {
        try await withServer { server in
            let client = Client(server)
            let id = try #require(try await Fixtures.addAssets(1, to: server.library, in: server.directory).first)
            let reply = try await client.send(.DELETE, "/v1/assets/\(segment(id))")
            let token = try reply.decode(Wire.Token.self).token
            #expect(token == (try server.library.currentChangeToken.stringValue))
            #expect(try server.library.fetchAssets(withLocalIdentifiers: [id]).count == 0)
            try await client.send(.DELETE, "/v1/assets/\(segment(id))").expectError(404, "notFound")
            let folder = try Fixtures.folder(in: server.directory, count: 1)
            _ = try await FolderMirror(library: server.library, root: folder).scan()
            let mirrored = try await client.get("/v1/assets").decode(Wire.AssetPage.self).assets[0]
            let error = try await client.send(.DELETE, "/v1/assets/\(segment(mirrored.localIdentifier))").expectError(409, "conflict")
            #expect(error.message.contains("IMG_0000.jpg"))
        }
    }

    @Test("Albums: create with assets, rename, add and remove in one PATCH, delete; smart albums, moments and mirrored albums are 409s")
    func albums() async throws {
        try await withServer { server in
            let client = Client(server)
            let ids = try await Fixtures.addAssets(4, to: server.library, in: server.directory)
            let created = try await client.send(.POST, "/v1/albums", json: Wire.NewAlbum(title: "Trip", assets: [ids[0], ids[1]]))
            #expect(created.status == 201)
            let album = try created.decode(Wire.AlbumWrite.self).album
            #expect(album.localizedTitle == "Trip" && album.estimatedAssetCount == 2)
            let path = "/v1/albums/\(segment(album.localIdentifier))"
            let edited = try await client.send(.PATCH, path, json: Wire.AlbumEdit(title: "Trip 2024", addAssets: [ids[2], ids[3]], removeAssets: [ids[0]]))
                .decode(Wire.AlbumWrite.self)
            #expect(edited.album.localizedTitle == "Trip 2024" && edited.album.estimatedAssetCount == 3)
            let members = try await client.get(path + "/assets").decode(Wire.AssetPage.self).assets.map(\.localIdentifier)
            #expect(members == [ids[1], ids[2], ids[3]])
            try await client.send(.PATCH, path, json: Wire.AlbumEdit(addAssets: [ids[1]])).expectError(409, "conflict")
            try await client.send(.PATCH, path, json: Wire.AlbumEdit(addAssets: ["no such asset"])).expectError(400, "invalidRequest")
            try await client.send(.POST, "/v1/albums", json: Wire.NewAlbum(title: "")).expectError(400, "invalidRequest")
            let smart = try await client.get("/v1/albums?type=smartAlbum").decode(Wire.AlbumList.self).albums[0]
            try await client.send(.PATCH, "/v1/albums/\(segment(smart.localIdentifier))", json: Wire.AlbumEdit(title: "Mine")).expectError(409, "conflict")
            let deleted = try await client.send(.DELETE, path)
            #expect(deleted.status == 200)
            #expect(try deleted.decode(Wire.Token.self).token == (try server.library.currentChangeToken.stringValue))
            try await client.get(path).expectError(404, "notFound")
            let folder = try Fixtures.folder(in: server.directory, count: 1, name: "Holidays")
            _ = try await FolderMirror(library: server.library, root: folder).scan()
            let mirrored = try #require(try await client.get("/v1/albums?type=album").decode(Wire.AlbumList.self).albums.first { $0.path != nil })
            try await client.send(.DELETE, "/v1/albums/\(segment(mirrored.localIdentifier))").expectError(409, "conflict")
        }
    }
}
