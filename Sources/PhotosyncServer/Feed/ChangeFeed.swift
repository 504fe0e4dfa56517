import Dispatch
import Logging
import PhotoLibrary
import ServiceLifecycle
import Synchronization

/// The one waiter on the library's commits that every waiting request shares.
///
/// A single loop waits with ``PhotoLibrary/waitForChanges(after:timeout:excludedAuthors:)`` (woken through
/// the library's commit notification, whichever process commits) and moves the ``head`` token; every
/// long-poll and event stream suspends on this feed instead of running a wait loop of its own, and is
/// resumed when the head passes its token. Waking *n* requests after a commit costs one database read and
/// O(*n*) continuation resumptions, not *n* reads.
///
/// Waiters are plain continuations with a deadline (a dispatch timer each, so a suspended request holds no
/// task of its own), released by a commit, their deadline, their task's cancellation, their client's
/// departure, or ``stop()`` — the server's graceful shutdown, which answers every waiter at once.
final class ChangeFeed: Service, Sendable {
    /// Why a wait ended.
    enum Wake: Sendable, Equatable {
        /// The head moved past the waiter's token.
        case changed
        /// The deadline passed (or the waiting task was cancelled).
        case timedOut
        /// The server is shutting down: answer now.
        case stopping
        /// The client has gone (``ClientDeparture``): nobody to answer.
        case departed
    }

    /// Who waits, for the metrics of clients waiting.
    enum WaiterKind: Sendable {
        case longPoll
        case eventStream
    }

    private struct Waiter {
        let after: Int64
        let kind: WaiterKind
        /// What the waiter will ask once woken: computed ahead, for all the waiters asking it.
        let query: ChangeQuery?
        let continuation: CheckedContinuation<Wake, Never>
    }

    private struct State {
        var head: ChangeToken
        var waiters: [UInt64: Waiter] = [:]
        var nextID: UInt64 = 0
        var stopping = false
    }

    let library: PhotoLibrary
    private let state: Mutex<State>
    /// The one watch on the HTTP server's graceful shutdown (``stopOnServerShutdown()``).
    private let serverShutdownWatch = Mutex<Task<Void, Never>?>(nil)
    private let pages: ChangePages
    private let metrics: ServerMetrics
    private let logger: Logger
    /// How long the loop's one wait lasts before it starts again (it wakes at once on a commit).
    private let loopTimeout: Duration = .seconds(3600)

    /// A feed whose head is the library's current token.
    ///
    /// - Throws: a ``PhotoLibraryError`` when the library can't be read.
    init(library: PhotoLibrary, pages: ChangePages, metrics: ServerMetrics, logger: Logger) throws(PhotoLibraryError) {
        self.library = library
        self.pages = pages
        self.metrics = metrics
        self.logger = logger
        state = Mutex(State(head: try library.currentChangeToken))
    }

    /// The newest token the feed knows: every change up to it is committed.
    var head: ChangeToken { state.withLock { $0.head } }

    /// The number of requests waiting now, by kind.
    func waiting(_ kind: WaiterKind) -> Int {
        state.withLock { $0.waiters.values.count { $0.kind == kind } }
    }

    /// Suspends until the head passes `sequence`, `deadline` passes, the task is cancelled, the client departs,
    /// or the feed stops.
    ///
    /// Returns at once when the head is already past `sequence`, the feed is stopping, or the client has gone.
    ///
    /// - Parameters:
    ///   - query: what the waiter asks once woken; when the head moves, the feed computes the pages of its
    ///     waiters' questions before waking them (``ChangePages/prefetch(_:head:)``).
    ///   - departure: the watch on the waiter's client, which ends the wait with ``Wake/departed``.
    func wait(
        after sequence: Int64, until deadline: ContinuousClock.Instant, kind: WaiterKind, query: ChangeQuery? = nil,
        departure: ClientDeparture? = nil
    ) async -> Wake {
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Wake, Never>) in
                let immediate = state.withLock { state -> Wake? in
                    if state.stopping { return .stopping }
                    if state.head.sequence > sequence { return .changed }
                    if Task.isCancelled { return .timedOut }
                    state.waiters[id] = Waiter(after: sequence, kind: kind, query: query, continuation: continuation)
                    return nil
                }
                if let immediate {
                    continuation.resume(returning: immediate)
                    return
                }
                departure?.onDeparture { [self] in resume(id, with: .departed) }
                let remaining = ContinuousClock.now.duration(to: deadline)
                let nanoseconds = max(0, min(remaining.components.seconds, 86_400) * 1_000_000_000
                    + remaining.components.attoseconds / 1_000_000_000)
                DispatchQueue.global().asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [self] in
                    resume(id, with: .timedOut)
                }
            }
        } onCancel: {
            resume(id, with: .timedOut)
        }
    }

    private func resume(_ id: UInt64, with wake: Wake) {
        state.withLock { $0.waiters.removeValue(forKey: id) }?.continuation.resume(returning: wake)
    }

    /// Moves the head to `token` if it is newer, and wakes the waiters it passes — after computing the pages
    /// they will ask for. Called by the loop, and by the server's own writes (so that a client reads its
    /// write at once).
    ///
    /// - Complexity: one pass over the waiters under the lock to count their questions, one more to take
    ///   those passed (all of them, in the common case of waiters at the same token: the table is then
    ///   handed over whole, not copied), one history read per distinct question, then O(*n*) resumptions
    ///   outside the lock.
    func advance(to token: ChangeToken) {
        let questions = state.withLock { state -> [ChangeQuery: Int] in
            guard token.sequence > state.head.sequence else { return [:] }
            var questions: [ChangeQuery: Int] = [:]
            for waiter in state.waiters.values where waiter.after < token.sequence {
                if let query = waiter.query { questions[query, default: 0] += 1 }
            }
            return questions
        }
        if !questions.isEmpty { pages.prefetch(questions, head: token.sequence) }
        let woken = state.withLock { state -> [UInt64: Waiter] in
            guard token.sequence > state.head.sequence else { return [:] }
            metrics.headMoved(from: state.head, to: token)
            state.head = token
            return Self.takePassed(token.sequence, from: &state.waiters)
        }
        for waiter in woken.values { waiter.continuation.resume(returning: .changed) }
    }

    /// Removes and returns the waiters waiting for a head before `sequence`.
    private static func takePassed(_ sequence: Int64, from waiters: inout [UInt64: Waiter]) -> [UInt64: Waiter] {
        if waiters.values.allSatisfy({ $0.after < sequence }) {
            defer { waiters = [:] }
            return waiters
        }
        var passed: [UInt64: Waiter] = [:]
        for (id, waiter) in waiters where waiter.after < sequence { passed[id] = waiter }
        for id in passed.keys { waiters[id] = nil }
        return passed
    }

    /// Answers every waiter with ``Wake/stopping``, now and from now on: the server is shutting down.
    func stop() {
        let all = state.withLock { state -> [Waiter] in
            state.stopping = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in all { waiter.continuation.resume(returning: .stopping) }
    }

    /// Whether ``stop()`` was called.
    var isStopping: Bool { state.withLock { $0.stopping } }

    /// Calls ``stop()`` when the graceful shutdown of the calling task's service begins. Call it from the
    /// HTTP server's own task (its `onServerRunning`): the server's shutdown waits for its requests to end,
    /// and comes before the feed's own (services stop in reverse order), so waiting requests must be
    /// answered when the *server's* shutdown begins. One watch for all of them, instead of a handler each
    /// (which every wait registered and removed again: a lock and a task status record per wake-up).
    ///
    /// The watch ends with the feed's ``run()``, or when called again (it then follows the newer caller).
    func stopOnServerShutdown() {
        // An unstructured task inherits the caller's task-locals, among them its service's graceful shutdown.
        let watch = Task { [self] in
            do {
                try await gracefulShutdown()
                stop()
            } catch {
                // Cancelled: the feed ended first, or a newer watch replaced this one.
            }
        }
        let replaced = serverShutdownWatch.withLock { current -> Task<Void, Never>? in
            defer { current = watch }
            return current
        }
        replaced?.cancel()
    }

    /// Follows the library's commits until the service is shut down.
    func run() async throws {
        await cancelWhenGracefulShutdown { await self.follow() }
        stop()
        serverShutdownWatch.withLock { current -> Task<Void, Never>? in
            defer { current = nil }
            return current
        }?.cancel()
    }

    private func follow() async {
        while !Task.isCancelled {
            let head = self.head
            do {
                if try await library.waitForChanges(after: head, timeout: loopTimeout) {
                    advance(to: try library.currentChangeToken)
                }
            } catch {
                // The head token no longer fits the library (a library restored from a backup): start again
                // from the library's current token.
                logger.warning("the change feed restarts from the library's current token: \(error)")
                if let current = try? library.currentChangeToken { reset(to: current) }
                try? await Task.sleep(for: .seconds(1))
            }
        }
    }

    /// Sets the head, even backwards, and wakes every waiter (they re-read from their own tokens).
    private func reset(to token: ChangeToken) {
        let all = state.withLock { state -> [Waiter] in
            state.head = token
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in all { waiter.continuation.resume(returning: .changed) }
    }
}
