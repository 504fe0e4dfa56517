import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import PhotosyncWire
import Testing

/// A response read whole.
struct Reply: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers.first(name: name) }

    /// The body as a wire shape.
    func decode<T: Decodable>(_ type: T.Type, sourceLocation: SourceLocation = #_sourceLocation) throws -> T {
        do {
            return try Wire.makeDecoder().decode(T.self, from: body)
        } catch {
            Issue.record("status \(status), not a \(T.self): \(text.prefix(500)) (\(error))", sourceLocation: sourceLocation)
            throw error
        }
    }

    /// The body as a ``Wire/APIError``, checking the status and code.
    @discardableResult
    func expectError(_ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Wire.APIError {
        #expect(self.status == status, "expected \(status) \(code), got \(self.status): \(text.prefix(300))", sourceLocation: sourceLocation)
        let error = try decode(Wire.APIError.self, sourceLocation: sourceLocation)
        #expect(error.error == code, "expected \(code): \(text.prefix(300))", sourceLocation: sourceLocation)
        #expect(!error.message.isEmpty, sourceLocation: sourceLocation)
        return error
    }
}

/// The HTTP client of the tests (AsyncHTTPClient), recording every response for the OpenAPI check when a
/// recorder is given.
struct Client: Sendable {
    let base: String
    var key: String?
    var recorder: SampleRecorder?

    init(_ server: LiveServer, key: String? = nil, recorder: SampleRecorder? = nil) {
        base = server.base
        self.key = key
        self.recorder = recorder
    }

    init(base: String) {
        self.base = base
    }

    /// One client for the process (never shut down), that doesn't follow redirects: tests see each status.
    static let http = HTTPClient(
        eventLoopGroupProvider: .singleton,
        configuration: HTTPClient.Configuration(redirectConfiguration: .disallow, connectionPool: .init(idleTimeout: .seconds(30))))

    func with(key: String?) -> Client {
        var copy = self
        copy.key = key
        return copy
    }

    func get(_ path: String, headers: [(String, String)] = [], timeout: TimeAmount = .seconds(60)) async throws -> Reply {
        try await send(.GET, path, headers: headers, timeout: timeout)
    }

    func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = [], body: Data? = nil,
              timeout: TimeAmount = .seconds(60)) async throws -> Reply {
        var request = HTTPClientRequest(url: base + path)
        request.method = method
        if let key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await Self.http.execute(request, timeout: timeout)
        let buffer = try await response.body.collect(upTo: 64 << 20)
        let reply = Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: buffer))
        recorder?.record(method: method.rawValue, path: path, reply: reply)
        return reply
    }

    /// `method path` with a JSON body.
    func send(_ method: HTTPMethod, _ path: String, json: some Encodable, headers: [(String, String)] = []) async throws -> Reply {
        try await send(method, path, headers: [("Content-Type", "application/json")] + headers, body: try Wire.makeEncoder().encode(json))
    }

    /// The current token.
    func token() async throws -> String {
        try await get("/v1/token").decode(Wire.Token.self).token
    }
}

/// An identifier as one URL path segment.
func segment(_ identifier: String) -> String {
    identifier.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? identifier
}

/// A query value, percent-encoded.
func encoded(_ value: String) -> String {
    value.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? value
}

/// Polls `condition` every 20 ms until it holds or `seconds` pass; whether it held.
func waitUntil(seconds: Double = 20, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
