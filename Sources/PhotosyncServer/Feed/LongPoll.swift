import Hummingbird
import Logging
import NIOCore
import PhotoLibrary

/// `GET /v1/changes?wait=S`: answered as soon as a change after the token is committed, by any process, or
/// after S seconds (at most 55) with none.
///
/// **Proxies.** A proxy that closes connections idle for 60 s (nginx's `proxy_read_timeout`, most load
/// balancers) would cut a long wait. A wait longer than one heartbeat interval (15 s) therefore sends the
/// response head after 15 s — `200`, chunked — and then one space every 15 s until the JSON follows:
/// whitespace before a JSON value is valid JSON, so clients parse the body as usual, and the bytes keep
/// every idle timer on the path alive. A wait that ends within the first 15 s (the common case) is an
/// ordinary response with a length. The token is checked before anything is sent, so token errors are
/// always statuses (410, 400); only an explicit expiry of the history while a request waits past its first
/// heartbeat can no longer change the status: the connection is then closed without a complete body, and
/// the client's retry gets the 410. Clients that want no such trade-off follow `/v1/changes/stream`.
///
/// **Filters.** Changes by `excludeAuthor` authors don't end the wait, but the answer's token moves past
/// them, so a filtering client never falls out of the retention window.
///
/// **Departures.** A client that goes away while its request waits is noticed as soon as its connection's
/// input ends (``ClientDeparture``): its wait ends then, not at the next heartbeat.
///
/// **Shutdown.** When the server shuts down, every waiting request is answered at once with what the
/// history holds then — usually no change, and the current token.
struct LongPoll: Sendable {
    let environment: ServerEnvironment

    private var feed: ChangeFeed { environment.feed }
    private var pages: ChangePages { environment.pages }
    private var metrics: ServerMetrics { environment.metrics }
    private var heartbeat: Duration { environment.options.heartbeatInterval }
    private var logger: Logger { environment.logger }

    enum Outcome {
        case page(ChangePage)
        case timedOut
        case stopping
    }

    /// The response to `query`, waiting up to `wait` for a change, on the connection `channel` (watched for the
    /// client's departure while the request waits: ``ClientDeparture``).
    ///
    /// - Throws: ``APIError`` for a token the history can't continue from, before anything is sent.
    func respond(_ query: ChangeQuery, wait: Duration, channel: any Channel) async throws(APIError) -> Response {
        let first = try await pages.page(query, head: feed.head.sequence)
        guard first.isEmpty, wait > .zero else { return answer(first, feed: "poll") }
        let deadline = ContinuousClock.now + wait
        var position = query.from(first.end)
        let departure = await ClientDeparture.watch(channel)
        let outcome: Outcome
        do {
            outcome = try await waitForChange(&position, until: min(deadline, .now + heartbeat), departure: departure)
        } catch {
            departure?.end()
            throw error
        }
        if outcome != .timedOut || ContinuousClock.now >= deadline { departure?.end() }
        switch outcome {
        case .page(let page):
            return answer(page, feed: "longpoll")
        case .stopping:
            return answer(try await pages.page(position, head: feed.head.sequence), feed: "longpoll")
        case .timedOut where ContinuousClock.now >= deadline:
            return answer(try await pages.page(position, head: feed.head.sequence), feed: "longpoll")
        case .timedOut:
            break
        }
        // Past the first heartbeat: the head goes out now, then whitespace until the JSON.
        let waiting = position
        return Response(status: .ok, headers: Self.headers, body: ResponseBody { writer in
            defer { departure?.end() }
            try await keepWaiting(waiting, until: deadline, departure: departure, writer: &writer)
        })
    }

    private func answer(_ page: ChangePage, feed: String) -> Response {
        metrics.changesServed(page.count, feed: feed)
        return Response(status: .ok, headers: Self.headers, body: ResponseBody(byteBuffer: page.body))
    }

    /// The headers of every answer, made once.
    static let headers: HTTPFields = [.contentType: JSONResponse.contentType, .cacheControl: "no-store"]

    /// The streamed part of a long wait: a space per heartbeat, then the page.
    private func keepWaiting(
        _ query: ChangeQuery, until deadline: ContinuousClock.Instant, departure: ClientDeparture?, writer: inout any ResponseBodyWriter
    ) async throws {
        var position = query
        var outcome: Outcome = .timedOut
        repeat {
            try await writer.write(ByteBuffer(string: " "))
            outcome = try await waitForChange(&position, until: min(deadline, .now + heartbeat), departure: departure)
        } while outcome == .timedOut && ContinuousClock.now < deadline
        let page: ChangePage
        if case .page(let found) = outcome {
            page = found
        } else {
            page = try await pages.page(position, head: feed.head.sequence)
        }
        metrics.changesServed(page.count, feed: "longpoll")
        try await writer.write(page.body)
        try await writer.finish(nil)
    }

    /// Waits on the feed until a page after `position` holds a change, or `deadline`, or shutdown, or the
    /// client's departure (answered like a shutdown: what the history holds, written to nobody or to a
    /// half-closed connection). Pages holding only changes left out for their author move `position` past
    /// them and the wait goes on.
    private func waitForChange(
        _ position: inout ChangeQuery, until deadline: ContinuousClock.Instant, departure: ClientDeparture?
    ) async throws(APIError) -> Outcome {
        while true {
            let since = position.since.sequence
            let wake = await feed.wait(after: since, until: deadline, kind: .longPoll, query: position, departure: departure)
            switch wake {
            case .timedOut: return .timedOut
            case .stopping, .departed: return .stopping
            case .changed:
                let page = try await pages.page(position, head: feed.head.sequence)
                if !page.isEmpty { return .page(page) }
                if page.end.sequence <= since {
                    // The feed is ahead of what this read saw (cannot happen while the head comes from
                    // committed reads): don't spin.
                    try? await Task.sleep(for: .milliseconds(50))
                }
                position = position.from(page.end)
            }
        }
    }
}

extension LongPoll.Outcome: Equatable {
    static func == (lhs: Self, rhs: Self) -> Bool {
        switch (lhs, rhs) {
        case (.timedOut, .timedOut), (.stopping, .stopping): true
        default: false
        }
    }
}
