import Dispatch
import LibraryStorage
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// One subscription to a library's commit hints: a connection of its own that `LISTEN`s on the channel,
/// kept alive, and made again when it is lost (see ``PostgresEngine``'s commit signals).
///
/// The connection runs in a task on ``BridgeExecutor`` (never on Swift's cooperative pool, whose threads
/// may all be blocked in synchronous engine calls, nor blocking an event loop): it connects, `LISTEN`s,
/// then waits for notifications and, every ``Timing/heartbeat``, checks that the server still answers
/// (a connection cut without a reset, a server that stopped answering). When the connection breaks it
/// tries again after a backoff (``Timing/firstRetry`` doubling up to ``Timing/lastRetry``, with jitter),
/// and once `LISTEN` is in place again it signals once: hints published meanwhile were lost.
///
/// Cancelling (or releasing the subscription) cancels the task: it `UNLISTEN`s and closes the connection.
final class PostgresCommitListener: CommitSignalSubscription {
    /// How long the listener waits between its steps.
    struct Timing: Sendable {
        /// Between two checks that the server answers.
        var heartbeat: Duration = .seconds(30)
        /// How long a check may take before the connection counts as lost (and is closed).
        var heartbeatTimeout: Duration = .seconds(10)
        /// The first wait before connecting again; it doubles after each failure.
        var firstRetry: Duration = .milliseconds(50)
        /// The longest wait before connecting again.
        var lastRetry: Duration = .seconds(5)
    }

    private let loop: Loop
    private let task: Task<Void, Never>

    /// Starts listening and returns once `LISTEN` is in place or the first attempt failed.
    init(
        channel: String, source: String, configuration: PostgresConfiguration, logger: Logger, timing: Timing = Timing(),
        onSignal: @escaping @Sendable () -> Void
    ) {
        Blocking.checkNotOnEventLoop()
        let loop = Loop(
            channel: channel, source: source, configuration: configuration, logger: logger, timing: timing,
            onSignal: onSignal)
        let started = DispatchSemaphore(value: 0)
        task = Task(executorPreference: BridgeExecutor.shared) { await loop.run(started: started) }
        self.loop = loop
        started.wait()
    }

    deinit { cancel() }

    func cancel() {
        loop.stopSignalling()
        task.cancel()
    }

    /// The listening loop and what it needs; the task holds it, the subscription only cancels the task.
    private final class Loop: Sendable {
        let channel: String
        let source: String
        let configuration: PostgresConfiguration
        let logger: Logger
        let timing: Timing
        private let onSignal: @Sendable () -> Void
        private let signalling = Atomic<Bool>(true)

        init(
            channel: String, source: String, configuration: PostgresConfiguration, logger: Logger, timing: Timing,
            onSignal: @escaping @Sendable () -> Void
        ) {
            self.channel = channel
            self.source = source
            self.configuration = configuration
            self.logger = logger
            self.timing = timing
            self.onSignal = onSignal
        }

        func stopSignalling() { signalling.store(false, ordering: .sequentiallyConsistent) }

        private func signal() {
            if signalling.load(ordering: .sequentiallyConsistent) { onSignal() }
        }

        /// Listens until cancelled, connecting again after each loss; signals `started` after the first
        /// attempt, whatever its outcome.
        func run(started: DispatchSemaphore) async {
            var announced = false
            var failures = 0
            while !Task.isCancelled {
                let since = ContinuousClock.now
                do {
                    try await listenOnce {
                        // In place: the first time, the subscriber is told by returning; later, by a signal.
                        if announced { self.signal() } else { announced = true; started.signal() }
                    }
                } catch {
                    if !Task.isCancelled {
                        logger.info(
                            "commit listener: connection failed or lost; connecting again",
                            metadata: ["error": "\(String(reflecting: error))"])
                    }
                }
                if !announced { announced = true; started.signal() }
                // A connection that lived long was a success: the next loss starts the backoff again.
                failures = since.duration(to: .now) > timing.lastRetry * 2 ? 0 : failures + 1
                do { try await Task.sleep(for: backoff(after: failures)) } catch { return }
            }
        }

        /// How long to wait before the next attempt, after `failures` attempts in a row failed: doubling from
        /// ``Timing/firstRetry`` up to ``Timing/lastRetry``, times a random factor in [0.5, 1] so that many
        /// processes losing the server at once don't come back at the same instant.
        func backoff(after failures: Int) -> Duration {
            let doubled = timing.firstRetry * (1 << min(max(failures - 1, 0), 20))
            return min(doubled, timing.lastRetry) * Double.random(in: 0.5...1)
        }

        /// Connects, listens, and returns or throws when the connection ends.
        private func listenOnce(inPlace: () -> Void) async throws {
            var connectionConfiguration = try PostgresStore.connectionConfiguration(configuration)
            // Named in pg_stat_activity, for operators (and the tests that cut it).
            connectionConfiguration.options.additionalStartupParameters = [
                ("application_name", String("\(configuration.applicationName) listener".prefix(63)))
            ]
            let connection = try await PostgresConnection.connect(
                configuration: connectionConfiguration, id: 0, logger: logger)
            do {
                try await connection.listen(on: channel) { notifications in
                    inPlace()
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { try await self.receive(notifications) }
                        group.addTask { try await self.checkAlive(connection) }
                        // Either ends only with the connection (or cancellation): end the other.
                        try await group.next()
                        group.cancelAll()
                    }
                }
            } catch {
                try? await connection.close()
                throw error
            }
            try? await connection.close()
        }

        /// Signals for every notification but those this engine published.
        private func receive(_ notifications: PostgresNotificationSequence) async throws {
            for try await notification in notifications where notification.payload != source {
                signal()
            }
        }

        /// Every ``Timing/heartbeat``, checks that the server answers; closes the connection (which ends
        /// the notifications) when it doesn't within ``Timing/heartbeatTimeout``.
        private func checkAlive(_ connection: PostgresConnection) async throws {
            while true {
                try await Task.sleep(for: timing.heartbeat)
                let check: EventLoopFuture<PostgresQueryResult> = connection.query("SELECT 1", logger: logger)
                let timeout = connection.eventLoop.scheduleTask(in: .nanoseconds(timing.heartbeatTimeout.nanoseconds)) {
                    connection.closeInBackground()
                }
                check.whenComplete { _ in timeout.cancel() }
                _ = try await check.get()
            }
        }
    }
}

extension Duration {
    /// The duration in whole nanoseconds (saturating).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        return overflow ? .max : product &+ attoseconds / 1_000_000_000
    }
}
