import Logging
import ServiceLifecycle

/// The mirror pass as a swift-service-lifecycle service: SIGINT and SIGTERM start a graceful shutdown, which
/// cancels the pass; the mirror finishes and commits its current batch, then returns.
struct MirrorService: Service {
    let body: @Sendable () async -> Void

    init(body: @escaping @Sendable () async -> Void) {
        self.body = body
    }

    func run() async throws {
        await cancelWhenGracefulShutdown { await body() }
    }

    /// Runs `service` in a group that shuts down gracefully on SIGINT and SIGTERM, and ends when it does.
    ///
    /// A pass that has not finished its batch a minute after the signal is cancelled harder (the group
    /// cancels its task), so that a stuck read cannot keep the process from exiting. The group logs through
    /// `logger` (``CommandLogging/lifecycleLogger(options:)``: its internals stay out of `--verbose`).
    static func runUntilSignalled(_ service: MirrorService, logger: Logger) async throws {
        var configuration = ServiceGroupConfiguration(
            services: [.init(service: service, successTerminationBehavior: .gracefullyShutdownGroup,
                             failureTerminationBehavior: .gracefullyShutdownGroup)],
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger)
        configuration.maximumGracefulShutdownDuration = .seconds(60)
        try await ServiceGroup(configuration: configuration).run()
    }
}
