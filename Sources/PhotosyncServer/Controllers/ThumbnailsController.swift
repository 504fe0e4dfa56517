import Foundation
import Hummingbird
import NIOCore
import PhotoImaging
import PhotoLibrary

/// Thumbnails through the image manager (libvips, a rendition cache keyed by content hash).
///
/// `GET /v1/assets/{id}/thumbnail?size=&mode=&format=` answers `302` to the rendition's immutable URL,
/// `/v1/renditions/{id}/{sourceHash}/{W}x{H}-{mode}.{ext}`: named by the content hash of the file rendered
/// (the asset's edit when it has one), so its bytes never change — it is served with
/// `Cache-Control: public, max-age=31536000, immutable` and a strong ETag, and a browser or proxy never asks
/// twice. When the asset's content changes, its thumbnail URL changes with it; an old URL whose source is
/// gone is a 404, never other bytes.
struct ThumbnailsController: Sendable {
    let environment: ServerEnvironment
    let images: ImageManager

    static let immutable = "public, max-age=31536000, immutable"

    /// The route of the immutable renditions (also the label of their metrics).
    static let renditionRoute = "/v1/renditions/**"

    func addRoutes(to reads: RouterGroup<APIRequestContext>) {
        reads.get(RouterPath(Self.renditionRoute)) { request, context in try await rendition(request, context) }
    }

    /// `GET /v1/assets/{id}/thumbnail`: 302 to the immutable rendition URL (no render yet).
    func redirect(_ request: Request, asset: Asset) throws(APIError) -> Response {
        let query = try QueryParameters(request, allowed: ["size", "mode", "format"])
        let spec = try RenditionSpec(
            size: try query.string("size") ?? "256", mode: try query.string("mode") ?? "fill", format: try query.string("format") ?? "jpeg")
        let hash = try sourceHash(of: asset)
        let location = "/v1/renditions/\(AssetsController.pathSegment(asset.localIdentifier))/\(hash)/\(spec.fileName)"
        return Response(status: .found, headers: [.location: location, .cacheControl: "no-cache"])
    }

    /// The file a rendition of the asset's current version is made from (its edit when it has one), and that
    /// file's hash; the file's URL only when `withFile` (making it costs more than the rest).
    private func source(of asset: Asset, withFile: Bool) throws(APIError) -> (hash: String, file: URL?) {
        if asset.hasAdjustments {
            do {
                if let edit = try environment.library.fetchAdjustment(for: asset) { return (edit.renderedContentHash, edit.renderedFileURL) }
            } catch {
                throw APIError(error)
            }
        }
        guard let hash = asset.contentHash else { throw .notFound("asset \(asset.localIdentifier) has no content hash yet") }
        return (hash, withFile ? asset.fileURL(in: environment.library) : nil)
    }

    private func sourceHash(of asset: Asset) throws(APIError) -> String { try source(of: asset, withFile: false).hash }

    /// Checks, before a render, that the file it reads is served by the same rule as an original (see
    /// ``LibraryFiles``): a regular file, reached without a final symbolic link, inside the library's store
    /// or a mirrored folder. The image manager opens the file by its path: a symbolic link planted in the
    /// watched folder (in place of the file or of a directory above it) must not make it render a file
    /// outside. 404, like an original that isn't available.
    ///
    /// The image manager opens the path again after this check: a link planted in between, and removed
    /// again before ``confirmUnchanged(_:file:)``, is the remaining window.
    private func confinedSource(of asset: Asset) throws(APIError) -> (file: OpenFile, path: String) {
        guard let url = try source(of: asset, withFile: true).file else { throw .notFound("asset \(asset.localIdentifier) has no file") }
        let roots = try environment.headCache.roots(head: environment.feed.head.sequence).allowed
        let what = "the file of asset \(asset.localIdentifier)"
        return (try environment.files.open(url.path, roots: roots, what: what), url.path)
    }

    /// After a render: the file at the source's path is still the one checked before it (a link planted
    /// meanwhile makes it another).
    private func confirmUnchanged(_ checked: (file: OpenFile, path: String), asset: Asset) throws(APIError) {
        let roots = try environment.headCache.roots(head: environment.feed.head.sequence).allowed
        let again = try environment.files.open(checked.path, roots: roots, what: "the file of asset \(asset.localIdentifier)")
        guard LibraryFiles.sameFile(again, checked.file) else { throw .notFound("the file of asset \(asset.localIdentifier) is not available") }
    }

    /// The answer to a rendition URL served before at the current head, from what that request checked (its
    /// asset's content, its headers) and the rendition's bytes in memory — no parsing, no lookup; nil for any
    /// other request (``CheckedRenditions`` serves these before the router's lookup).
    func checkedRendition(_ request: Request) -> Response? {
        guard request.uri.query == nil,
              let checked = environment.headCache.rendition(request.uri.path, head: environment.feed.head.sequence),
              let bytes = environment.renditions.bytes(for: checked.key)
        else { return nil }
        return served(bytes, checked, request)
    }

    /// `GET /v1/renditions/{id}/{hash}/{spec}`: the rendition's bytes, immutable.
    private func rendition(_ request: Request, _ context: APIRequestContext) async throws(APIError) -> Response {
        // A URL already checked at this head never gets here: CheckedRenditions answered it before the router.
        let head = environment.feed.head.sequence
        _ = try QueryParameters(request, allowed: [])
        var segments = try ObjectPath.segments(context)
        guard segments.count >= 3 else { throw .notFound("no such rendition") }
        let spec = try RenditionSpec(fileName: segments.removeLast())
        let hash = segments.removeLast()
        let tag = EntityTag.strong("\(hash)-\(spec.fileName)")
        let headers: HTTPFields = [.eTag: tag, .cacheControl: Self.immutable]
        if let condition = request.headers[.ifNoneMatch], EntityTag.noneMatchHits(condition, tag: tag) {
            return Response(status: .notModified, headers: headers)
        }
        let asset = try environment.headCache.asset(segments.joined(separator: "/"), head: head)
        guard try sourceHash(of: asset) == hash else { throw .notFound("this rendition's source is no longer the asset's content") }
        var fields = headers
        fields[.contentType] = spec.mimeType
        let checked = HeadCache.CheckedRendition(key: "\(hash)/\(spec.fileName)", tag: tag, headers: fields)
        if let bytes = environment.renditions.bytes(for: checked.key) {
            environment.headCache.storeRendition(checked, path: request.uri.path, head: head)
            return served(bytes, checked, request)
        }
        let bytes = try await rendered(asset, spec: spec, hash: hash)
        environment.renditions.store(bytes, for: checked.key)
        return Response(status: .ok, headers: fields, body: ResponseBody(byteBuffer: bytes))
    }

    /// A rendition whose URL was checked at the current head, from memory: `200`, or `304` for a request
    /// that holds its tag.
    private func served(_ bytes: ByteBuffer, _ checked: HeadCache.CheckedRendition, _ request: Request) -> Response {
        if let condition = request.headers[.ifNoneMatch], EntityTag.noneMatchHits(condition, tag: checked.tag) {
            var headers = checked.headers
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        environment.metrics.renditionServed(rendered: false)
        return Response(status: .ok, headers: checked.headers, body: ResponseBody(byteBuffer: bytes))
    }

    /// Renders the rendition (or takes it from the image manager's cache on disk), checking that its source
    /// stayed the file checked before and that it is the content `hash` names.
    private func rendered(_ asset: Asset, spec: RenditionSpec, hash: String) async throws(APIError) -> ByteBuffer {
        let checked = try confinedSource(of: asset)
        let result = try await render(asset, spec: spec)
        try confirmUnchanged(checked, asset: asset)
        guard result.sourceContentHash == hash, let data = result.content.data else {
            throw .notFound("this rendition's source is no longer the asset's content")
        }
        environment.metrics.renditionServed(rendered: result.source == .rendered)
        return ByteBuffer(bytes: data)
    }

    private func render(_ asset: Asset, spec: RenditionSpec) async throws(APIError) -> ImageResult {
        let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact, outputFormat: spec.format)
        do {
            for try await event in images.requestImage(for: asset, targetSize: spec.size, contentMode: spec.mode, options: options) {
                if let result = event.result, !result.isDegraded { return result }
            }
        } catch {
            throw Self.apiError(error)
        }
        throw APIError(.serviceUnavailable, "unavailable", "the thumbnail could not be rendered now; retry")
    }

    private static func apiError(_ error: ImageError) -> APIError {
        switch error {
        case .library(let error): APIError(error)
        case .fileMissing, .noImage: .notFound("\(error)")
        case .unsupportedFormat, .corruptImage, .imageTooLarge: APIError(.conflict, "conflict", "no thumbnail: \(error)")
        case .invalidRequest: .invalidRequest("\(error)")
        case .fileUnreadable, .cacheUnavailable, .encodingFailed, .cancelled: APIError(.serviceUnavailable, "unavailable", "\(error)")
        }
    }
}

/// A rendition's size, mode and format, as query parameters and as the file name of its immutable URL
/// (`256x256-fill.jpg`).
struct RenditionSpec: Equatable {
    let size: PixelSize
    let mode: ContentMode
    let format: ImageOutputFormat

    static let maximumSide = 4096
    static let formats: [(name: String, ext: String, format: ImageOutputFormat, mime: String)] = [
        ("jpeg", "jpg", .jpeg(quality: 82), "image/jpeg"), ("webp", "webp", .webp(quality: 80), "image/webp"),
        ("avif", "avif", .avif(quality: 55), "image/avif"), ("png", "png", .png, "image/png"),
    ]

    /// From query parameters: `size` (`256` or `320x240`, sides 1 to 4096), `mode` (`fill` or `fit`),
    /// `format` (`jpeg`, `webp`, `avif`, `png`).
    init(size: String, mode: String, format: String) throws(APIError) {
        self.size = try Self.size(size)
        switch mode {
        case "fill": self.mode = .aspectFill
        case "fit": self.mode = .aspectFit
        default: throw .invalidRequest("\"mode\" must be fill or fit (it was \"\(mode)\")")
        }
        guard let entry = Self.formats.first(where: { $0.name == format }) else {
            throw .invalidRequest("\"format\" must be jpeg, webp, avif or png (it was \"\(format)\")")
        }
        self.format = entry.format
    }

    /// From an immutable URL's file name.
    init(fileName: String) throws(APIError) {
        let parts = fileName.split(separator: ".", maxSplits: 1)
        let words = parts.first?.split(separator: "-") ?? []
        guard parts.count == 2, words.count == 2, let entry = Self.formats.first(where: { $0.ext == parts[1] }) else {
            throw .notFound("no such rendition")
        }
        try self.init(size: String(words[0]), mode: String(words[1]), format: entry.name)
    }

    var fileName: String {
        let ext = Self.formats.first { $0.format == format }?.ext ?? "jpg"
        return "\(size.width)x\(size.height)-\(mode == .aspectFill ? "fill" : "fit").\(ext)"
    }

    var mimeType: String { Self.formats.first { $0.format == format }?.mime ?? "application/octet-stream" }

    private static func size(_ text: String) throws(APIError) -> PixelSize {
        let sides = text.split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard (1...2).contains(sides.count), sides.allSatisfy({ ($0 ?? 0) >= 1 && ($0 ?? 0) <= maximumSide }) else {
            throw .invalidRequest("\"size\" must be N or WxH, sides from 1 to \(maximumSide) (it was \"\(text)\")")
        }
        return PixelSize(width: sides[0]!, height: sides.last!!)
    }
}
