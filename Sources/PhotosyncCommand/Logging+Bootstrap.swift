import Foundation
import Logging
import Synchronization

/// The process's logging: swift-log's stream handler on stderr, at a level set by `--verbose` / `--quiet`.
enum CommandLogging {
    private static let bootstrapped = Mutex(false)

    /// A logger for `label`, bootstrapping the logging system on first use (once per process).
    ///
    /// Levels: `--quiet` → warning, default → info, `--verbose` → debug; `PHOTOSYNC_LOG_LEVEL` (trace, debug,
    /// info, notice, warning, error, critical) overrides both.
    static func logger(label: String, options: GlobalOptions) -> Logger {
        bootstrapped.withLock { done in
            guard !done else { return }
            done = true
            LoggingSystem.bootstrap { label in
                var handler = StreamLogHandler.standardError(label: label)
                handler.logLevel = level(options)
                return handler
            }
        }
        var logger = Logger(label: label)
        logger.logLevel = level(options)
        return logger
    }

    static func level(_ options: GlobalOptions) -> Logger.Level {
        if let name = ProcessInfo.processInfo.environment["PHOTOSYNC_LOG_LEVEL"], let level = Logger.Level(rawValue: name.lowercased()) {
            return level
        }
        return options.quiet ? .warning : options.verbose ? .debug : .info
    }
}
