public import Hummingbird
import NIOCore
import PhotosyncWire

/// A failed request: a status, a JSON body (``Wire/APIError``) and, for some statuses, headers.
///
/// Every failure a handler throws is one of these, or is turned into one by ``ErrorMiddleware``: a client
/// always gets a status and `{"error", "message", "oldestToken"}`, never an empty 500.
public struct APIError: Error, HTTPResponseError, Sendable, CustomStringConvertible {
    public let status: HTTPResponse.Status
    /// The body's `error` code.
    public let code: String
    public let message: String
    /// For `tokenExpired`: the oldest valid token.
    public let oldestToken: String?
    /// Extra headers (`WWW-Authenticate`, `Content-Range`, `Retry-After`).
    public var headers: HTTPFields

    /// An error with this status, code and message.
    public init(_ status: HTTPResponse.Status, _ code: String, _ message: String, oldestToken: String? = nil, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.oldestToken = oldestToken
        self.headers = headers
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// The JSON response.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = JSONResponse.make(Wire.APIError(error: code, message: message, oldestToken: oldestToken), status: status)
        response.headers.append(contentsOf: headers)
        return response
    }

    /// 400 `invalidRequest`: a malformed query, body or header.
    static func invalidRequest(_ message: String) -> APIError { APIError(.badRequest, "invalidRequest", message) }

    /// 404 `notFound`.
    static func notFound(_ message: String) -> APIError { APIError(.notFound, "notFound", message) }

    /// 409 `conflict`: the request doesn't apply to the object as it is.
    static func conflict(_ message: String) -> APIError { APIError(.conflict, "conflict", message) }
}
