import Hummingbird
import NIOCore
import PhotosyncWire

/// `GET /healthz`, `GET /openapi.json` (no key needed), `GET /metrics` and `GET /v1/token`.
struct ServiceController: Sendable {
    let environment: ServerEnvironment

    func addRoutes(public open: RouterGroup<APIRequestContext>, reads: RouterGroup<APIRequestContext>) {
        open.get("healthz") { request, _ in try health(request) }
        open.get("openapi.json") { request, _ in try openAPI(request) }
        reads.get("metrics") { request, _ in try metrics(request) }
        reads.get("v1/token") { request, _ in try token(request) }
    }

    /// 200 `{"status": "ok", "token": T}` when the library can be read; 503 otherwise.
    private func health(_ request: Request) throws(APIError) -> Response {
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse.make(Wire.Health(status: "ok", token: try environment.reads.currentToken().stringValue), headers: [.cacheControl: "no-store"])
    }

    /// The OpenAPI 3.1 document of this API (`Sources/PhotosyncServer/openapi.json`, embedded at build time).
    private func openAPI(_ request: Request) throws(APIError) -> Response {
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse.make(buffer: Self.document)
    }

    static let document = ByteBuffer(bytes: PackageResources.openapi_json)

    /// The Prometheus text format.
    private func metrics(_ request: Request) throws(APIError) -> Response {
        _ = try QueryParameters(request, allowed: [])
        let bytes = environment.metrics.emit(feed: environment.feed, library: environment.library)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8", .cacheControl: "no-store"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    /// `{"token": T}`: the current change token (where a new client starts following).
    private func token(_ request: Request) throws(APIError) -> Response {
        _ = try QueryParameters(request, allowed: [])
        return JSONResponse.make(Wire.Token(token: try environment.reads.currentToken().stringValue), headers: [.cacheControl: "no-store"])
    }
}
