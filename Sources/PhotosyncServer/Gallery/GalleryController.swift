import HTTPTypes
import Hummingbird
import NIOCore

/// The web gallery: its page at `/` and its files at `/gallery/{version}/{name}` (see ``GalleryBundle``).
///
/// Both need no key: they are the same code for everyone and hold no photo; the page asks for a key when
/// the API answers 401. The page is revalidated on every load (`Cache-Control: no-cache`, a strong ETag,
/// `If-None-Match` → 304); the versioned files are `immutable` for a year. A version other than the
/// binary's is a 404, never other bytes under an immutable URL (a page of an older binary gets the new
/// page at its next load). Every response carries a Content-Security-Policy that allows this origin's
/// scripts, styles, images, media and connections only — nothing inline, nothing from elsewhere.
struct GalleryController: Sendable {
    let bundle: GalleryBundle

    init(bundle: GalleryBundle = .embedded) {
        self.bundle = bundle
    }

    static let immutable = "public, max-age=31536000, immutable"
    static let contentSecurityPolicy =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; "
        + "connect-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

    func addRoutes(to open: RouterGroup<APIRequestContext>) {
        open.get("/") { request, _ in respond(request, with: bundle.page, cacheControl: "no-cache") }
        open.head("/") { request, _ in respond(request, with: bundle.page, cacheControl: "no-cache") }
        open.get("gallery/:version/:name") { request, context in try file(request, context) }
        open.head("gallery/:version/:name") { request, context in try file(request, context) }
    }

    private func file(_ request: Request, _ context: APIRequestContext) throws(APIError) -> Response {
        guard context.parameters.get("version") == bundle.version, let name = context.parameters.get("name"),
            let file = bundle.files[name]
        else {
            throw .notFound("no such gallery file (this server's gallery is version \(bundle.version): reload the page)")
        }
        return respond(request, with: file, cacheControl: Self.immutable)
    }

    /// The file's bytes (none for HEAD), or 304 when `If-None-Match` names its tag.
    private func respond(_ request: Request, with file: GalleryBundle.File, cacheControl: String) -> Response {
        var headers: HTTPFields = [
            .eTag: file.eTag, .cacheControl: cacheControl, .contentType: file.contentType,
            HTTPField.Name("X-Content-Type-Options")!: "nosniff", HTTPField.Name("Content-Security-Policy")!: Self.contentSecurityPolicy,
            HTTPField.Name("Referrer-Policy")!: "same-origin",
        ]
        if let condition = request.headers[.ifNoneMatch], EntityTag.noneMatchHits(condition, tag: file.eTag) {
            headers[.contentType] = nil
            return Response(status: .notModified, headers: headers)
        }
        if request.method == .head {
            headers[.contentLength] = String(file.bytes.readableBytes)
            return Response(status: .ok, headers: headers)
        }
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: file.bytes))
    }
}
