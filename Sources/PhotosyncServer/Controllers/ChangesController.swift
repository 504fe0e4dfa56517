import HTTPTypes
import Hummingbird
import NIOCore
import PhotoLibrary

/// `GET /v1/changes` (a page, or a long-poll with `wait`) and `GET /v1/changes/stream` (Server-Sent Events).
///
/// Tokens are stateless for the server: a client holds its own; two clients sharing a key can't disturb
/// each other.
struct ChangesController: Sendable {
    let environment: ServerEnvironment

    func addRoutes(to reads: RouterGroup<APIRequestContext>) {
        reads.get("v1/changes") { request, context in try await changes(request, channel: context.channel) }
        reads.get("v1/changes/stream") { request, context in try await stream(request, channel: context.channel) }
    }

    /// `?since=T&limit=N&coalesce=1&wait=S&excludeAuthor=A` → ``Wire/ChangesPage``.
    private func changes(_ request: Request, channel: any Channel) async throws(APIError) -> Response {
        let query = try QueryParameters(request, allowed: ["since", "limit", "coalesce", "wait", "excludeAuthor"])
        guard let since = try query.string("since") else {
            throw .invalidRequest("\"since\" is required: a change token (GET /v1/token gives the current one)")
        }
        let question = ChangeQuery(
            since: try Self.token(since), limit: try query.int("limit", in: 1...10_000), coalesce: try query.flag("coalesce") ?? false,
            excludedAuthors: query.all("excludeAuthor"), format: .json)
        let wait = try query.seconds("wait", in: 0...environment.options.maximumWait) ?? 0
        return try await LongPoll(environment: environment).respond(question, wait: .milliseconds(Int64(wait * 1000)), channel: channel)
    }

    /// `?since=T&excludeAuthor=A`, or the `Last-Event-ID` header (which wins: it is where a reconnecting
    /// client stopped) → `text/event-stream`.
    private func stream(_ request: Request, channel: any Channel) async throws(APIError) -> Response {
        let query = try QueryParameters(request, allowed: ["since", "excludeAuthor"])
        let lastEventID = request.headers[HTTPField.Name("Last-Event-ID")!].flatMap { $0.isEmpty ? nil : $0 }
        let given: String? = if let lastEventID { lastEventID } else { try query.string("since") }
        guard let since = given else {
            throw .invalidRequest("\"since\" (or a Last-Event-ID header) is required: a change token (GET /v1/token gives the current one)")
        }
        let question = ChangeQuery(
            since: try Self.token(since), limit: EventStream.pageSize, coalesce: false, excludedAuthors: query.all("excludeAuthor"),
            format: .events)
        return try await EventStream(environment: environment).respond(question, channel: channel)
    }

    /// A token from a request: 400 `tokenInvalid` when it doesn't decode.
    static func token(_ text: String) throws(APIError) -> ChangeToken {
        do { return try ChangeToken(string: text) } catch { throw APIError(error) }
    }
}
