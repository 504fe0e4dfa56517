import Hummingbird

/// Cross-origin access for browsers: off unless origins are configured (`--cors-origin`). An allowed
/// origin (or any, with `*`) gets the `Access-Control-Allow-*` headers, and its preflight `OPTIONS` a 204;
/// other origins get no CORS header, so browsers keep their pages out.
struct CORSPolicy: RouterMiddleware {
    typealias Context = APIRequestContext

    let origins: Set<String>

    static let allowedMethods = "GET, HEAD, POST, PATCH, DELETE, OPTIONS"
    static let allowedHeaders = "Authorization, Content-Type, If-Match, If-None-Match, If-Range, Range, Last-Event-ID"
    static let exposedHeaders = "ETag, Content-Range, Content-Length, Location, Accept-Ranges"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains("*") || origins.contains(origin) else {
            return try await next(request, context)
        }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            var response = Response(status: .noContent)
            add(origin, to: &response.headers)
            response.headers[.accessControlAllowMethods] = Self.allowedMethods
            response.headers[.accessControlAllowHeaders] = Self.allowedHeaders
            response.headers[.accessControlMaxAge] = "600"
            return response
        }
        do {
            var response = try await next(request, context)
            add(origin, to: &response.headers)
            return response
        } catch let error as APIError {
            var error = error
            add(origin, to: &error.headers)
            throw error
        }
    }

    private func add(_ origin: String, to headers: inout HTTPFields) {
        headers[.accessControlAllowOrigin] = origin
        headers[.accessControlExposeHeaders] = Self.exposedHeaders
        headers[.vary] = "Origin"
    }
}
