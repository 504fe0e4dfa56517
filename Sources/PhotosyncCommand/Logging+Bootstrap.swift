import Foundation
import Logging
import Synchronization

/// The process's logging: swift-log's stream handler on stderr, at a level set by `--verbose` / `--quiet`,
/// with repeated warnings capped.
enum CommandLogging {
    private static let bootstrapped = Mutex(false)

    /// A logger for `label`, bootstrapping the logging system on first use (once per process).
    ///
    /// Levels: `--quiet` → errors only, default → info, `--verbose` → debug; `PHOTOSYNC_LOG_LEVEL` (trace,
    /// debug, info, notice, warning, error, critical) overrides both. Below debug, warnings are capped
    /// (``WarningBudget``): a pass over thousands of files with the same problem logs a few, then a count.
    static func logger(label: String, options: GlobalOptions) -> Logger {
        bootstrap(options)
        var logger = Logger(label: label)
        logger.logLevel = level(options)
        return logger
    }

    /// Makes every logger of the process — the libraries' own too (PostgreSQL's engine logs its migrations)
    /// — log on stderr at the options' level. Once per process; later calls do nothing.
    ///
    /// The PostgreSQL engine's logger (`photosync.postgres`) is also PostgresNIO's, whose debug lines are
    /// its internals (connections opened and closed), not photosync's: it says info and above, unless
    /// `PHOTOSYNC_LOG_LEVEL=trace` asks for everything.
    static func bootstrap(_ options: GlobalOptions) {
        let level = level(options)
        bootstrapped.withLock { done in
            guard !done else { return }
            done = true
            LoggingSystem.bootstrap { label in
                var handler = CappedLogHandler(StreamLogHandler.standardError(label: label), capped: level > .debug)
                handler.logLevel = label == postgresLabel && level != .trace ? max(level, .info) : level
                return handler
            }
        }
    }

    /// The label of the PostgreSQL engine's logger (`PostgresEngine`'s default).
    static let postgresLabel = "photosync.postgres"

    /// The logger handed to swift-service-lifecycle: its own debug lines (services starting, signals
    /// received) are internals, not photosync's; it says only warnings and errors, unless
    /// `PHOTOSYNC_LOG_LEVEL=trace` asks for everything.
    static func lifecycleLogger(options: GlobalOptions) -> Logger {
        var logger = logger(label: "photosync.lifecycle", options: options)
        logger.logLevel = level(options) == .trace ? .trace : max(logger.logLevel, .warning)
        return logger
    }

    static func level(_ options: GlobalOptions) -> Logger.Level {
        if let name = ProcessInfo.processInfo.environment["PHOTOSYNC_LOG_LEVEL"], let level = Logger.Level(rawValue: name.lowercased()) {
            return level
        }
        return options.quiet ? .error : options.verbose ? .debug : .info
    }

    /// Logs how many warnings the cap left out, if any (at the end of a pass).
    static func reportLeftOutWarnings(_ logger: Logger) {
        let leftOut = WarningBudget.shared.takeLeftOut()
        if leftOut > 0 {
            logger.notice("\(Plural.count(leftOut, "more warning")) left out (--verbose shows every one)")
        }
    }
}

/// A budget of warning lines: a burst of ``burst``, then one more per ``refill``. What is left out is
/// counted and said with the next warning that gets through (or at the end of a pass).
final class WarningBudget: Sendable {
    static let shared = WarningBudget()
    static let burst = 20.0
    static let refill = 3.0

    private struct State {
        var tokens = WarningBudget.burst
        var last = ContinuousClock.now
        var leftOut = 0
    }

    private let state = Mutex(State())

    /// Whether a warning may be logged now, and how many were left out before it.
    func spend(now: ContinuousClock.Instant = .now) -> (allowed: Bool, leftOutBefore: Int) {
        state.withLock { state in
            let elapsed = now - state.last
            state.last = now
            let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
            state.tokens = min(Self.burst, state.tokens + seconds / Self.refill)
            guard state.tokens >= 1 else {
                state.leftOut += 1
                return (false, 0)
            }
            state.tokens -= 1
            defer { state.leftOut = 0 }
            return (true, state.leftOut)
        }
    }

    /// The warnings left out since the last one logged, reset to zero.
    func takeLeftOut() -> Int {
        state.withLock { state in
            defer { state.leftOut = 0 }
            return state.leftOut
        }
    }
}

/// A log handler that passes warnings through ``WarningBudget``.
struct CappedLogHandler: LogHandler {
    private var inner: StreamLogHandler
    private let capped: Bool

    init(_ inner: StreamLogHandler, capped: Bool) {
        self.inner = inner
        self.capped = capped
    }

    var logLevel: Logger.Level {
        get { inner.logLevel }
        set { inner.logLevel = newValue }
    }

    var metadata: Logger.Metadata {
        get { inner.metadata }
        set { inner.metadata = newValue }
    }

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { inner[metadataKey: key] }
        set { inner[metadataKey: key] = newValue }
    }

    func log(event: LogEvent) {
        var event = event
        if capped && event.level == .warning {
            let (allowed, leftOut) = WarningBudget.shared.spend()
            guard allowed else { return }
            if leftOut > 0 { event.message = "\(event.message) (\(Plural.count(leftOut, "similar warning")) left out before this one)" }
        }
        inner.log(event: event)
    }
}
