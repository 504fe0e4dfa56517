import Foundation
import Hummingbird
import PhotoLibrary
import PhotosyncWire

/// `/v1/albums`: albums, smart albums and moments; an album's assets; creating, editing (title, members)
/// and deleting user albums. Smart albums, moments and albums that mirror a directory are the library's and
/// the daemon's to maintain: changing them is a 409.
struct AlbumsController: Sendable {
    let environment: ServerEnvironment

    func addRoutes(reads: RouterGroup<APIRequestContext>, adds: RouterGroup<APIRequestContext>, writes: RouterGroup<APIRequestContext>) {
        reads.get("v1/albums") { request, _ in try list(request) }
        adds.post("v1/albums") { request, context in try await create(request, context) }
        reads.get("v1/albums/**") { request, context in try get(request, context) }
        writes.patch("v1/albums/**") { request, context in try await edit(request, context) }
        writes.delete("v1/albums/**") { request, context in try await delete(request, context) }
    }

    /// `GET /v1/albums?type=album|smartAlbum|moment` (repeatable; default all three) → ``Wire/AlbumList``.
    private func list(_ request: Request) throws(APIError) -> Response {
        let query = try QueryParameters(request, allowed: ["type"])
        var types: [AssetCollectionType] = []
        for name in query.all("type") {
            guard let type = AssetCollectionType.allCases.first(where: { $0.description == name }) else {
                throw .invalidRequest("unknown album type \"\(name)\" (album, smartAlbum or moment)")
            }
            types.append(type)
        }
        if types.isEmpty { types = [.album, .smartAlbum, .moment] }
        let reads = environment.reads
        let token = try reads.currentToken()
        let paths = try reads.mirrorPaths(directories: true)
        var albums: [Wire.Album] = []
        do {
            for type in types {
                let result = try environment.library.fetchAssetCollections(with: type)
                for collection in try result.objects(in: 0..<result.count) { albums.append(try reads.wire(collection, paths: paths)) }
            }
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(error as? PhotoLibraryError ?? .database(code: 0, message: "\(error)"))
        }
        return JSONResponse.make(Wire.AlbumList(albums: albums, token: token.stringValue))
    }

    /// `GET /v1/albums/{id}` → ``Wire/Album``; `GET /v1/albums/{id}/assets` → ``Wire/AssetPage``.
    private func get(_ request: Request, _ context: APIRequestContext) throws(APIError) -> Response {
        let path = try ObjectPath(context, actions: ["assets"])
        let reads = environment.reads
        let collection = try reads.collection(path.identifier)
        if path.action == "assets" {
            return JSONResponse.make(try AssetQuery(request).page(in: collection, reads: reads))
        }
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse.make(try reads.wire(collection, paths: try reads.mirrorPaths(directories: true)))
    }

    /// `POST /v1/albums` with a ``Wire/NewAlbum`` → 201 ``Wire/AlbumWrite``.
    private func create(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        guard WritePrecondition.headerless(request) else { throw APIError.invalidRequest("If-Match applies to PATCH and DELETE") }
        _ = try QueryParameters(request, allowed: [])
        let body = try await JSONBody.decode(Wire.NewAlbum.self, from: request, context: context)
        try Self.validate(title: body.title)
        let reads = environment.reads
        let members = try reads.assets(body.assets)
        let before = try reads.currentToken()
        let identifier = try await Writes.perform(environment.library, author: try context.requireIdentity().name) { () -> String in
            let creation = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: body.title)
            if !members.isEmpty { creation.addAssets(members) }
            return creation.placeholderForCreatedAssetCollection?.localIdentifier ?? ""
        }
        return try written(identifier, since: before, status: .created)
    }

    /// `PATCH /v1/albums/{id}` with a ``Wire/AlbumEdit`` (title, assets to add, assets to remove; one
    /// transaction) → ``Wire/AlbumWrite``.
    private func edit(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let path = try ObjectPath(context, actions: [])
        _ = try QueryParameters(request, allowed: [])
        let edit = try await JSONBody.decode(Wire.AlbumEdit.self, from: request, context: context)
        guard !edit.isEmpty else { throw APIError.invalidRequest("the body changes nothing: give title, addAssets or removeAssets") }
        if let title = edit.title { try Self.validate(title: title) }
        let precondition = try WritePrecondition.of(request)
        let reads = environment.reads
        let album = try userAlbum(path.identifier)
        let added = try reads.assets(edit.addAssets), removed = try reads.assets(edit.removeAssets)
        let before = try reads.currentToken()
        let library = environment.library
        try await Writes.perform(library, author: try context.requireIdentity().name) {
            try precondition?.check([album.localIdentifier], in: library)
            let change = AssetCollectionChangeRequest(for: album)
            if let title = edit.title { change.title = title }
            if !removed.isEmpty { change.removeAssets(removed) }
            if !added.isEmpty { change.addAssets(added) }
        }
        return try written(album.localIdentifier, since: before, status: .ok)
    }

    /// `DELETE /v1/albums/{id}` → ``Wire/Token`` of the deletion's commit.
    private func delete(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let path = try ObjectPath(context, actions: [])
        _ = try QueryParameters(request, allowed: [])
        let precondition = try WritePrecondition.of(request)
        let album = try userAlbum(path.identifier)
        let before = try environment.reads.currentToken()
        let library = environment.library
        try await Writes.perform(library, author: try context.requireIdentity().name) {
            try precondition?.check([album.localIdentifier], in: library)
            AssetCollectionChangeRequest.deleteAssetCollections([album])
        }
        let token = CommitToken.of(album.localIdentifier, type: .assetCollection, since: before, in: library)
        environment.feed.advance(to: token)
        return JSONResponse.make(Wire.Token(token: token.stringValue))
    }

    /// The user album with this identifier: 404 when unknown, 409 for a smart album, a moment or an album
    /// that mirrors a directory.
    private func userAlbum(_ identifier: String) throws(APIError) -> AssetCollection {
        let reads = environment.reads
        let collection = try reads.collection(identifier)
        guard collection.assetCollectionType == .album else {
            throw .conflict("\(identifier) is a \(collection.assetCollectionType): the library maintains it")
        }
        if let directory = try reads.mirrorPaths(directories: true).directoryPath(ofAlbum: identifier) {
            throw .conflict("album \(identifier) mirrors the directory \"\(directory)\": change the folder, and the daemon follows")
        }
        return collection
    }

    private static func validate(title: String) throws(APIError) {
        guard (1...1000).contains(title.count), !title.utf8.contains(0) else {
            throw .invalidRequest("\"title\" must be 1 to 1000 characters, without NUL")
        }
    }

    /// The album after a write, and its commit's token (the feed moves to it at once).
    private func written(_ identifier: String, since before: ChangeToken, status: HTTPResponse.Status) throws(APIError) -> Response {
        let token = CommitToken.of(identifier, type: .assetCollection, since: before, in: environment.library)
        environment.feed.advance(to: token)
        let reads = environment.reads
        let album = try reads.wire(try reads.collection(identifier), paths: try reads.mirrorPaths(directories: true))
        var headers = HTTPFields()
        if status == .created { headers[.location] = "/v1/albums/" + AssetsController.pathSegment(identifier) }
        return JSONResponse.make(Wire.AlbumWrite(album: album, token: token.stringValue), status: status, headers: headers)
    }
}
