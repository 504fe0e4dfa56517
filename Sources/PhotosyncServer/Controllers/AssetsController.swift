import Foundation
import Hummingbird
import MediaProbe
import NIOPosix
import PhotoLibrary
import PhotosyncWire
import SyncWorker

/// `/v1/assets`: the query, one asset, its original and thumbnail, uploads, edits and deletions.
struct AssetsController: Sendable {
    let environment: ServerEnvironment
    /// nil when the image manager could not start.
    let thumbnails: ThumbnailsController?

    func addRoutes(reads: RouterGroup<APIRequestContext>, adds: RouterGroup<APIRequestContext>, writes: RouterGroup<APIRequestContext>) {
        reads.get("v1/assets") { request, _ in try list(request) }
        adds.post("v1/assets") { request, context in try await upload(request, client: try context.requireIdentity()) }
        reads.get("v1/assets/**") { request, context in try await get(request, context) }
        reads.head("v1/assets/**") { request, context in try await get(request, context) }
        writes.patch("v1/assets/**") { request, context in try await edit(request, context) }
        writes.delete("v1/assets/**") { request, context in try await delete(request, context) }
    }

    private func list(_ request: Request) throws(APIError) -> Response {
        JSONResponse.make(try AssetQuery(request).page(in: nil, reads: environment.reads))
    }

    /// `GET /v1/assets/{id}`, `GET /v1/assets/{id}/original` and `GET /v1/assets/{id}/thumbnail`.
    private func get(_ request: Request, _ context: APIRequestContext) async throws(APIError) -> Response {
        let path = try ObjectPath(context, actions: ["original", "thumbnail"])
        if path.action == "thumbnail" {
            guard let thumbnails else { throw APIError(.serviceUnavailable, "unavailable", "thumbnails are unavailable: libvips did not start") }
            return try thumbnails.redirect(request, asset: try environment.headCache.asset(path.identifier, head: environment.feed.head.sequence))
        }
        _ = try QueryParameters(request, allowed: [])
        if path.action == "original" {
            let head = environment.feed.head.sequence
            let asset = try environment.headCache.asset(path.identifier, head: head)
            let roots = try environment.headCache.roots(head: head).allowed
            return try await OriginalResponse(files: environment.files, roots: roots).respond(to: request, asset: asset)
        }
        let asset = try environment.reads.asset(path.identifier)
        guard request.method == .get else { throw APIError(.methodNotAllowed, "methodNotAllowed", "HEAD is for originals") }
        return JSONResponse.make(environment.reads.wire(asset, paths: try environment.reads.mirrorPaths()))
    }

    /// `POST /v1/assets?filename=NAME`, the file's bytes as the body → 201 ``Wire/AssetWrite`` (200 with the
    /// existing asset when the library holds that content already: a retried upload creates nothing).
    private func upload(_ request: Request, client: APIClient) async throws -> Response {
        guard WritePrecondition.headerless(request) else { throw APIError.invalidRequest("If-Match applies to PATCH and DELETE") }
        let filename = try QueryParameters(request, allowed: ["filename"]).string("filename") ?? "upload"
        try UploadReceiver.validate(filename: filename)
        let receiver = UploadReceiver(
            directory: environment.library.url.appending(path: ".uploads"), limit: environment.options.maximumUploadSize)
        let upload = try await receiver.receive(request, filename: filename)
        defer { upload.remove() }
        let timeZone = environment.library.momentTimeZone
        let probe = try await NIOThreadPool.singleton.runIfActive {
            try MediaProbe.probe(fileAt: upload.file.path, timeZone: timeZone, options: .contentHash)
        }
        guard probe.isMedia, let hash = probe.contentHash?.description else {
            throw APIError(.unsupportedMediaType, "unsupportedMediaType",
                           "not a photo or video: media are recognised by their content (JPEG, PNG, HEIC, AVIF, WebP, GIF, TIFF, raw, MP4, MOV…)")
        }
        let reads = environment.reads
        if let existing = try existingAsset(contentHash: hash) {
            return JSONResponse.make(Wire.AssetWrite(asset: reads.wire(existing, paths: try reads.mirrorPaths()), token: try reads.currentToken().stringValue))
        }
        let before = try reads.currentToken()
        let file = upload.file
        let identifier = try await Writes.perform(environment.library, author: client.name) { () -> String in
            let creation = AssetChangeRequest.creationRequestForAsset(fromFileAt: file)
            creation.apply(probe)
            return creation.placeholderForCreatedAsset?.localIdentifier ?? ""
        }
        let token = committed(identifier, type: .asset, since: before)
        let asset = try reads.asset(identifier)
        return JSONResponse.make(
            Wire.AssetWrite(asset: reads.wire(asset, paths: try reads.mirrorPaths()), token: token.stringValue), status: .created,
            headers: [.location: "/v1/assets/" + Self.pathSegment(identifier)])
    }

    private func existingAsset(contentHash: String) throws(APIError) -> Asset? {
        do {
            let result = try environment.library.fetchAssets(options: FetchOptions(
                predicate: FetchFilter(Asset.contentHash == contentHash), includeHiddenAssets: true, includeAllBurstAssets: true))
            return result.count > 0 ? try result.object(at: 0) : nil
        } catch {
            throw APIError(error)
        }
    }

    /// `PATCH /v1/assets/{id}` with a ``Wire/AssetEdit`` → ``Wire/AssetWrite``.
    private func edit(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let path = try ObjectPath(context, actions: [])
        _ = try QueryParameters(request, allowed: [])
        let edit = try await JSONBody.decode(Wire.AssetEdit.self, from: request, context: context)
        guard !edit.isEmpty else {
            throw APIError.invalidRequest("the body changes nothing: give isFavorite, isHidden, creationDate or location")
        }
        let precondition = try WritePrecondition.of(request)
        let reads = environment.reads
        let asset = try reads.asset(path.identifier)
        let before = try reads.currentToken()
        let library = environment.library
        try await Writes.perform(library, author: try context.requireIdentity().name) {
            try precondition?.check([asset.localIdentifier], in: library)
            Self.apply(edit, to: AssetChangeRequest(for: asset))
        }
        let token = committed(asset.localIdentifier, type: .asset, since: before)
        let updated = try reads.asset(asset.localIdentifier)
        return JSONResponse.make(Wire.AssetWrite(asset: reads.wire(updated, paths: try reads.mirrorPaths()), token: token.stringValue))
    }

    private static func apply(_ edit: Wire.AssetEdit, to request: AssetChangeRequest) {
        if let isFavorite = edit.isFavorite { request.isFavorite = isFavorite }
        if let isHidden = edit.isHidden { request.isHidden = isHidden }
        switch edit.creationDate {
        case .keep: break
        case .clear:
            request.creationDate = nil
            request.creationTimeZoneOffset = nil
        case .set(let date):
            request.creationDate = date.date
            request.creationTimeZoneOffset = date.utcOffset
        }
        switch edit.location {
        case .keep: break
        case .clear: request.location = nil
        case .set(let place): request.location = Location(latitude: place.latitude, longitude: place.longitude, altitude: place.altitude)
        }
    }

    /// `DELETE /v1/assets/{id}` → ``Wire/Token`` of the deletion's commit. A mirrored asset is refused
    /// (409): its file would bring it back; delete the file instead.
    private func delete(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let path = try ObjectPath(context, actions: [])
        _ = try QueryParameters(request, allowed: [])
        let precondition = try WritePrecondition.of(request)
        let reads = environment.reads
        let asset = try reads.asset(path.identifier)
        if let mirrored = try reads.mirrorPaths().relativePath(of: asset) {
            throw APIError.conflict("asset \(asset.localIdentifier) mirrors the file \(mirrored): delete the file, and the daemon deletes the asset")
        }
        let before = try reads.currentToken()
        let library = environment.library
        try await Writes.perform(library, author: try context.requireIdentity().name) {
            try precondition?.check([asset.localIdentifier], in: library)
            AssetChangeRequest.deleteAssets([asset])
        }
        return JSONResponse.make(Wire.Token(token: committed(asset.localIdentifier, type: .asset, since: before).stringValue))
    }

    /// The token of the commit that touched `identifier` after `before`; the feed moves to it at once, so
    /// that the writer's next read of the feed sees its write.
    private func committed(_ identifier: String, type: ObjectType, since before: ChangeToken) -> ChangeToken {
        let token = CommitToken.of(identifier, type: type, since: before, in: environment.library)
        environment.feed.advance(to: token)
        return token
    }

    /// An identifier as one path segment (`/` percent-encoded).
    static func pathSegment(_ identifier: String) -> String {
        identifier.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? identifier
    }
}
