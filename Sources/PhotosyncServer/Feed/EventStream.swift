import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import PhotoLibrary
import PhotosyncWire

/// `GET /v1/changes/stream`: the changes feed as Server-Sent Events.
///
/// One `change` event per committed transaction, its `id:` the change's token, its data the change's JSON
/// (``Wire/Change``), so a client that reconnects with `Last-Event-ID` resumes exactly after the last event
/// it received. When changes are left out for their author, a `token` event (`id:` the head, data
/// `{"token": T}`) moves the client's last event id past them, so a filtering client never falls out of the
/// retention window. A comment line every heartbeat interval (15 s) keeps proxies' idle timers alive.
///
/// The token is checked before the stream starts: an expired token is a 410, an invalid one a 400, never an
/// event inside a 200. If the history stops reaching the stream's position later (only an explicit expiry
/// can do that), the stream ends; the client's reconnection then gets the 410. On shutdown the stream ends
/// cleanly, after a comment saying so. A client that goes away is noticed as soon as its connection's input
/// ends (``ClientDeparture``), not only at the next heartbeat's failed write.
struct EventStream: Sendable {
    let environment: ServerEnvironment

    private var feed: ChangeFeed { environment.feed }
    private var pages: ChangePages { environment.pages }
    private var metrics: ServerMetrics { environment.metrics }
    private var heartbeat: Duration { environment.options.heartbeatInterval }
    private var logger: Logger { environment.logger }

    /// Events read per page.
    static let pageSize = 256

    /// The response for a stream starting after `query.since`, on the connection `channel` (watched for the
    /// client's departure while the stream waits: ``ClientDeparture``).
    ///
    /// - Throws: ``APIError`` for a token the history can't continue from (410, 400).
    func respond(_ query: ChangeQuery, channel: any Channel) async throws(APIError) -> Response {
        let first = try await pages.page(query, head: feed.head.sequence)
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream; charset=utf-8"
        headers[.cacheControl] = "no-store"
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"  // nginx: don't buffer the stream
        return Response(status: .ok, headers: headers, body: ResponseBody { writer in
            let departure = await ClientDeparture.watch(channel)
            defer { departure?.end() }
            try await stream(query, first: first, departure: departure, to: &writer)
        })
    }

    private func stream(
        _ query: ChangeQuery, first: ChangePage, departure: ClientDeparture?, to writer: inout any ResponseBodyWriter
    ) async throws {
        metrics.streamOpened()
        defer { metrics.streamClosed() }
        try await writer.write(ByteBuffer(string: "retry: 1000\n: photosync change stream\n\n"))
        var page = first
        var cursor = query.since
        streaming: while true {
            if page.body.readableBytes > 0 { try await writer.write(page.body) }
            metrics.changesServed(page.count, feed: "sse")
            cursor = page.end
            if !page.hasMore || feed.isStopping {
                let wake = await feed.wait(
                    after: cursor.sequence, until: .now + heartbeat, kind: .eventStream, query: query.from(cursor), departure: departure)
                switch wake {
                case .changed:
                    break
                case .timedOut:
                    try await writer.write(ByteBuffer(string: ": heartbeat\n\n"))
                    page = ChangePage(count: 0, end: cursor, hasMore: false, body: ByteBuffer())
                    continue streaming
                case .stopping:
                    try await writer.write(ByteBuffer(string: ": the server is shutting down\n\n"))
                    break streaming
                case .departed:
                    break streaming
                }
            }
            guard let next = await nextPage(query.from(cursor)) else { break streaming }
            page = next
        }
        try await writer.finish(nil)
    }

    /// The next page, or nil when the history no longer continues from the stream's position: the stream
    /// then ends, and the client's reconnection gets the status that says why.
    private func nextPage(_ query: ChangeQuery) async -> ChangePage? {
        do {
            return try await pages.page(query, head: feed.head.sequence)
        } catch {
            logger.info("ending an event stream at \(query.since.stringValue): \(error)")
            return nil
        }
    }

    /// The events of a page: a `change` event per change; a `token` event when changes were left out for
    /// their author and the position moved past them.
    static func render(_ page: Wire.ChangesPage, since: ChangeToken) -> ByteBuffer {
        var buffer = ByteBuffer()
        for change in page.changes {
            buffer.writeString("event: change\nid: \(change.token)\ndata: ")
            buffer.writeString((try? Wire.line(change)) ?? "null")
            buffer.writeString("\n\n")
        }
        if page.changes.isEmpty, page.token != since.stringValue {
            buffer.writeString("event: token\nid: \(page.token)\ndata: ")
            buffer.writeString((try? Wire.line(Wire.Token(token: page.token))) ?? "null")
            buffer.writeString("\n\n")
        }
        return buffer
    }
}
