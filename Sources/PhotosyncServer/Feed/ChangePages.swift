import Foundation
import NIOCore
import PhotoLibrary
import PhotosyncWire
import Synchronization

/// A question to the change history: the changes since a token, with the feed's options.
struct ChangeQuery: Hashable, Sendable {
    /// How the page is rendered.
    enum Format: Hashable, Sendable {
        /// One JSON object (``Wire/ChangesPage``): `GET /v1/changes`.
        case json
        /// Server-Sent Events, one per change (`GET /v1/changes/stream`).
        case events
    }

    var since: ChangeToken
    var limit: Int?
    var coalesce: Bool
    /// Sorted, so that equal sets make equal queries.
    var excludedAuthors: [String]
    var format: Format

    init(since: ChangeToken, limit: Int?, coalesce: Bool, excludedAuthors: some Sequence<String>, format: Format) {
        self.since = since
        self.limit = limit
        self.coalesce = coalesce
        self.excludedAuthors = Set(excludedAuthors).sorted()
        self.format = format
    }

    /// The same question from another token.
    func from(_ token: ChangeToken) -> ChangeQuery {
        var query = self
        query.since = token
        return query
    }
}

/// A page of changes, read once and rendered once, shared by every request asking the same question.
struct ChangePage: Sendable {
    /// How many changes it holds.
    let count: Int
    /// The token to continue from: after the last change covered, changes left out for their author
    /// included (so a filtering client keeps up with the head).
    let end: ChangeToken
    let hasMore: Bool
    /// The rendered body: a JSON object, or events.
    let body: ByteBuffer

    var isEmpty: Bool { count == 0 }
}

/// The change pages of the current head, computed once per question (single flight) and shared.
///
/// When a commit wakes 10,000 long-polls that all wait from the same token, the first one to ask reads the
/// history and renders the page; the others await that same computation and send the same bytes. A page is
/// kept until the head moves (``ChangeFeed/head``) and for at most ``lifetime``: a page computed at head
/// *h* is what any request arriving before the next commit would compute — except after an explicit expiry
/// of the history, which commits nothing: a token it expired may still get its (correct) page for up to
/// ``lifetime``, then gets its 410.
final class ChangePages: Sendable {
    /// A cached answer: computed already, or being computed by a task others can await.
    private enum Slot {
        case ready(Result<ChangePage, APIError>)
        case computing(Task<Result<ChangePage, APIError>, Never>)
    }

    private struct Entry {
        let slot: Slot
        let created: ContinuousClock.Instant
    }

    private struct Cache {
        var head: Int64 = -1
        var pages: [ChangeQuery: Entry] = [:]

        /// Forgets every page when the head moved past the one they were computed at.
        mutating func move(to head: Int64) {
            guard head > self.head else { return }
            pages.removeAll(keepingCapacity: true)
            self.head = head
        }

        /// The live entry for `query`, if any.
        func entry(_ query: ChangeQuery, now: ContinuousClock.Instant) -> Entry? {
            guard let entry = pages[query], now - entry.created < ChangePages.lifetime else { return nil }
            return entry
        }

        mutating func store(_ slot: Slot, for query: ChangeQuery, now: ContinuousClock.Instant) {
            if pages.count >= ChangePages.capacity { pages.removeAll(keepingCapacity: true) }
            pages[query] = Entry(slot: slot, created: now)
        }
    }

    /// Cached questions at most; past that the cache starts over (a flood of distinct tokens).
    static let capacity = 4096
    /// How long a page is reused at most.
    static let lifetime: Duration = .seconds(1)
    /// Questions computed ahead when the head moves, at most (the waiters' own, most shared first).
    static let prefetchLimit = 32

    private let library: PhotoLibrary
    private let cache = Mutex(Cache())

    init(library: PhotoLibrary) {
        self.library = library
    }

    /// The page answering `query`, computed at head `head` or later.
    ///
    /// Returns without suspending when the page is computed already (after ``prefetch(_:head:)``).
    ///
    /// - Throws: ``APIError``: the token errors (410 expired with the oldest token, 400 invalid), 503 when
    ///   the library can't be read.
    func page(_ query: ChangeQuery, head: Int64) async throws(APIError) -> ChangePage {
        let slot = cache.withLock { cache -> Slot in
            cache.move(to: head)
            let now = ContinuousClock.now
            if let entry = cache.entry(query, now: now) { return entry.slot }
            let library = self.library
            let task = Task { () -> Result<ChangePage, APIError> in
                do throws(APIError) { return .success(try Self.compute(query, library: library)) } catch { return .failure(error) }
            }
            cache.store(.computing(task), for: query, now: now)
            return .computing(task)
        }
        switch slot {
        case .ready(let result): return try result.get()
        case .computing(let task): return try await task.value.get()
        }
    }

    /// Computes, on the calling thread, the pages of the questions waiters ask when the head moves to
    /// `head`, before they are woken: each woken request then finds its page ready, instead of being
    /// scheduled twice (woken, then resumed again once the page is read).
    ///
    /// - Complexity: one history read per distinct question, at most ``prefetchLimit``.
    func prefetch(_ queries: [ChangeQuery: Int], head: Int64) {
        let wanted = queries.sorted { $0.value > $1.value }.prefix(Self.prefetchLimit).map(\.key)
        for query in wanted {
            let missing = cache.withLock { cache -> Bool in
                cache.move(to: head)
                return cache.entry(query, now: .now) == nil
            }
            guard missing else { continue }
            let result: Result<ChangePage, APIError>
            do throws(APIError) { result = .success(try Self.compute(query, library: library)) } catch { result = .failure(error) }
            cache.withLock { cache in
                cache.move(to: head)
                if cache.entry(query, now: .now) == nil { cache.store(.ready(result), for: query, now: .now) }
            }
        }
    }

    /// Reads and renders one page.
    static func compute(_ query: ChangeQuery, library: PhotoLibrary) throws(APIError) -> ChangePage {
        do {
            let result = try library.fetchPersistentChanges(
                since: query.since,
                options: PersistentChangeFetchOptions(
                    limit: query.limit, excludedAuthors: Set(query.excludedAuthors), coalesced: query.coalesce))
            let page = try Wire.ChangesPage(result, library: library)
            let body: ByteBuffer
            switch query.format {
            case .json: body = JSONResponse.buffer(page)
            case .events: body = EventStream.render(page, since: query.since)
            }
            return ChangePage(count: page.changes.count, end: result.endToken, hasMore: result.hasMore, body: body)
        } catch {
            throw APIError(error)
        }
    }
}
