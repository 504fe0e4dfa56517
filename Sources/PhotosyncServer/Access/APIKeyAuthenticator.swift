import Hummingbird
import HummingbirdAuth

/// Finds the client of a request: with keys, the one whose secret the `Authorization: Bearer` header
/// holds (a header with no valid key is refused at once: 401); without keys, ``APIClient/local``.
struct APIKeyAuthenticator: AuthenticatorMiddleware {
    typealias Context = APIRequestContext

    /// The keys; nil when the server needs none.
    let keys: [APIKey]?

    func authenticate(request: Request, context: Context) async throws -> APIClient? {
        guard let keys else { return .local }
        guard request.headers[.authorization] != nil else { return nil }
        guard let bearer = request.headers.bearer, let key = keys.first(where: { $0.matches(bearer.token) }) else {
            throw APIError(.unauthorized, "unauthorized", "the API key is not valid", headers: Self.challenge)
        }
        return APIClient(name: key.name, level: key.level)
    }

    static let challenge: HTTPFields = [.wwwAuthenticate: "Bearer realm=\"photosync\""]
}

/// Lets a request through only if its client may do what the route needs: 401 without a key, 403 with a
/// key of a lower level.
struct AccessRequirement: RouterMiddleware {
    typealias Context = APIRequestContext

    let permission: AccessLevel.Permission

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let client = context.identity else {
            throw APIError(
                .unauthorized, "unauthorized", "this server needs an API key: send Authorization: Bearer KEY",
                headers: APIKeyAuthenticator.challenge)
        }
        guard client.level.allows(permission) else {
            throw APIError(
                .forbidden, "forbidden", "the key \"\(client.name)\" is \(client.level); this request needs \(Self.needed(permission))")
        }
        return try await next(request, context)
    }

    private static func needed(_ permission: AccessLevel.Permission) -> String {
        switch permission {
        case .read: "read access (read or read-write)"
        case .add: "add access (add-only or read-write)"
        case .modify: "read-write access"
        }
    }
}
