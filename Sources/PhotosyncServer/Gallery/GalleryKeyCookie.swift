import Foundation
import Hummingbird

/// Lets the gallery's page read with its API key when the browser, not the page, makes the request.
///
/// `<img>`, `<video>` and `EventSource` can't send an `Authorization` header, so the page also keeps the key
/// it was given in a cookie, `photosync_key_PORT` (`SameSite=Strict`, one per origin: cookies don't tell
/// ports apart). For a `GET` or `HEAD` without an `Authorization` header, this middleware takes the first
/// such cookie holding one of the server's keys and hands it on as `Authorization: Bearer KEY`; the usual
/// authentication and access rules then apply. Writes never authenticate by cookie — they need the header —,
/// so a page of another site can't make a browser write (no cross-site request forgery); and `SameSite=Strict`
/// keeps other sites' pages from sending the cookie at all. Without keys (loopback, no `--auth-file`) it
/// does nothing.
struct GalleryKeyCookie: RouterMiddleware {
    typealias Context = APIRequestContext

    /// The server's keys; nil when it needs none.
    let keys: [APIKey]?

    /// The prefix of the cookies' names.
    static let prefix = "photosync_key"

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let keys, request.method == .get || request.method == .head, request.headers[.authorization] == nil else {
            return try await next(request, context)
        }
        let candidates = Self.candidates(in: request.headers[values: .cookie])
        guard let secret = candidates.first(where: { secret in keys.contains { $0.matches(secret) } }) ?? candidates.first else {
            return try await next(request, context)
        }
        var head = request.head
        head.headerFields[.authorization] = "Bearer " + secret
        return try await next(Request(head: head, body: request.body), context)
    }

    /// The values of the cookies named `photosync_key…` in `Cookie` header values (`a=1; b=2`).
    ///
    /// - Complexity: O(*n*) in the headers' length; at most 8 values are returned (a browser holds one per
    ///   origin of this host).
    static func candidates(in headers: [String]) -> [String] {
        var values: [String] = []
        for header in headers {
            for pair in header.split(separator: ";") {
                let parts = pair.split(separator: "=", maxSplits: 1)
                guard parts.count == 2, parts[0].drop(while: { $0 == " " }).hasPrefix(prefix) else { continue }
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                if !value.isEmpty, values.count < 8 { values.append(String(value)) }
            }
        }
        return values
    }
}
