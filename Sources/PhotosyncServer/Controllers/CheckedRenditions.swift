import Hummingbird

/// Serves a rendition URL already checked at the current head (``ThumbnailsController/checkedRendition(_:)``)
/// before the router looks the route up: the route takes the rest of the path (`/v1/renditions/**`), and
/// its lookup cost more than the rest of such a request. Placed after authentication: a client without
/// read access, and every other request, go on to the router (and its 401 or 403).
struct CheckedRenditions: RouterMiddleware {
    typealias Context = APIRequestContext

    let thumbnails: ThumbnailsController

    static let prefix = "/v1/renditions/"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard request.method == .get, request.uri.path.hasPrefix(Self.prefix), context.identity?.level.allows(.read) == true,
              let response = thumbnails.checkedRendition(request)
        else {
            return try await next(request, context)
        }
        // The route the router would have matched: the request's metrics carry its label.
        context.coreContext.endpointPath.value = ThumbnailsController.renditionRoute
        return response
    }
}
