import AsyncHTTPClient
import Foundation
import NIOCore
import PhotosyncWire

/// A Server-Sent Events client over AsyncHTTPClient: reads events as they arrive.
final class EventReader: @unchecked Sendable {
    // @unchecked: `iterator` and `pending` are only touched by the one task that calls `next()` (a test
    // reads its stream from one task); nothing else holds the reader.
    struct Event: Sendable {
        var name = "message"
        var id: String?
        var data = ""
        /// Comments received before this event (heartbeats).
        var comments: [String] = []
    }

    let status: Int
    let headers: [(String, String)]
    private var iterator: HTTPClientResponse.Body.AsyncIterator
    private var pending = ""
    private var comments: [String] = []
    /// Every comment line received so far.
    private(set) var allComments: [String] = []
    private(set) var ended = false
    /// Everything received so far, as text.
    private(set) var raw = ""

    /// Opens `path` with `Accept: text/event-stream` (and `Last-Event-ID`).
    init(_ client: Client, _ path: String, lastEventID: String? = nil) async throws {
        var request = HTTPClientRequest(url: client.base + path)
        request.headers.add(name: "Accept", value: "text/event-stream")
        if let key = client.key { request.headers.add(name: "Authorization", value: "Bearer \(key)") }
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response = try await Client.http.execute(request, timeout: .seconds(120))
        status = Int(response.status.code)
        headers = response.headers.map { ($0.name, $0.value) }
        iterator = response.body.makeAsyncIterator()
    }

    /// The next event, or nil when the stream ended.
    func next() async throws -> Event? {
        while true {
            if !events.isEmpty { return events.removeFirst() }
            guard try await pump() else { return nil }
        }
    }

    /// Reads until `count` comments (heartbeats) have arrived in all; false if the stream ended first.
    func waitForComments(_ count: Int) async throws -> Bool {
        while allComments.count < count {
            guard try await pump() else { return false }
        }
        return true
    }

    private var events: [Event] = []

    /// Reads one chunk and parses the complete blocks it ends; false at the end of the stream.
    private func pump() async throws -> Bool {
        guard let chunk = try await iterator.next() else {
            ended = true
            return false
        }
        pending += String(buffer: chunk)
        raw += String(buffer: chunk)
        while let range = pending.range(of: "\n\n") {
            let block = String(pending[..<range.lowerBound])
            pending.removeSubrange(..<range.upperBound)
            if let event = parse(block) { events.append(event) }
        }
        return true
    }

    /// An event from one block (nil for a block of comments only, which are collected).
    private func parse(_ block: String) -> Event? {
        var event = Event()
        var hasData = false
        for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(":") {
                comments.append(String(line.dropFirst()).trimmingCharacters(in: .whitespaces))
                allComments.append(comments.last!)
                continue
            }
            let (name, value) = Self.field(line)
            switch name {
            case "event": event.name = value
            case "id": event.id = value
            case "data":
                event.data += (hasData ? "\n" : "") + value
                hasData = true
            default: break
            }
        }
        guard hasData else { return nil }
        event.comments = comments
        comments = []
        return event
    }

    /// The next `change` event's change (skipping `token` events when `skipTokens`).
    func nextChange() async throws -> Wire.Change? {
        while let event = try await next() {
            if event.name == "change" { return try Wire.makeDecoder().decode(Wire.Change.self, from: Data(event.data.utf8)) }
        }
        return nil
    }

    private static func field(_ line: Substring) -> (String, String) {
        guard let colon = line.firstIndex(of: ":") else { return (String(line), "") }
        var value = line[line.index(after: colon)...]
        if value.hasPrefix(" ") { value = value.dropFirst() }
        return (String(line[..<colon]), String(value))
    }
}
