public import Hummingbird
public import HummingbirdAuth
import NIOCore

/// Who is calling: the API key's name and level.
public struct APIClient: Sendable, Hashable {
    /// The key's name: the author recorded for the client's writes.
    public let name: String
    public let level: AccessLevel

    /// The caller when the server needs no key (loopback without `--auth-file`): every permission, author
    /// `local`.
    public static let local = APIClient(name: "local", level: .readWrite)
}

/// The request context of every route: Hummingbird's core context, the client once authenticated, and the
/// connection (watched by waiting requests for their client's departure).
public struct APIRequestContext: AuthRequestContext, RequestContext {
    public var coreContext: CoreRequestContextStorage
    public var identity: APIClient?
    let channel: any Channel

    public init(source: Source) {
        coreContext = .init(source: source)
        identity = nil
        channel = source.channel
    }

    /// JSON bodies (edits) are small; uploads stream past this limit with their own.
    public var maxUploadSize: Int { 64 * 1024 }
}
