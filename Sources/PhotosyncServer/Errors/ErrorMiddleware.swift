import Hummingbird
import Logging

/// Turns every failure into a JSON error response (``APIError``): Hummingbird's own errors (no route: 404,
/// a body too large to decode: 413) keep their status with the API's body; an unexpected error is logged
/// and answered 500 `internal` with its description — never an empty 500.
struct ErrorMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            return try error.response(from: request, context: context)
        } catch let error as HTTPError {
            let status = error.status
            let code: String
            switch status {
            case .notFound: code = "notFound"
            case .methodNotAllowed: code = "methodNotAllowed"
            case .contentTooLarge: code = "payloadTooLarge"
            case .unauthorized: code = "unauthorized"
            default: code = status.code < 500 ? "invalidRequest" : "internal"
            }
            let message = error.body ?? (status == .notFound ? "no such endpoint: \(request.method) \(request.uri.path)" : status.reasonPhrase)
            return try APIError(status, code, message, headers: error.headers).response(from: request, context: context)
        } catch {
            context.logger.error("unexpected error answering \(request.method) \(request.uri.path): \(error)")
            return try APIError(.internalServerError, "internal", "\(error)").response(from: request, context: context)
        }
    }
}
