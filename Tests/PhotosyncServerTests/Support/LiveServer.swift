import Foundation
import Hummingbird
import Logging
import PhotoLibrary
import PhotosyncServer
import ServiceLifecycle
import Synchronization

/// A live server on 127.0.0.1 and an ephemeral port, over a library in a temporary directory, run the way
/// the command runs it (a service group), stopped by a graceful shutdown as SIGTERM would.
final class LiveServer: Sendable {
    let directory: URL
    let library: PhotoLibrary
    let port: Int
    let metrics: ServerMetrics
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    var base: String { "http://127.0.0.1:\(port)" }

    /// Starts a server with `options` (its port replaced by 0) over a new library, or `library`.
    static func start(_ options: ServerOptions = ServerOptions(), library: PhotoLibrary? = nil) async throws -> LiveServer {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-server-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let library = try library ?? PhotoLibrary(url: directory.appending(path: "Library.photosync"))
        var options = options
        options.port = 0
        let metrics = ServerMetrics()
        var logger = Logger(label: "photosync.test-server")
        logger.logLevel = .error
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try buildApplication(library: library, options: options, metrics: metrics, logger: logger) { port in
            continuation.yield(port)
            continuation.finish()
        }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw ServerDidNotStart() }
        return LiveServer(directory: directory, library: library, port: port, metrics: metrics, group: group, task: task)
    }

    private init(directory: URL, library: PhotoLibrary, port: Int, metrics: ServerMetrics, group: ServiceGroup, task: Task<Void, any Error>) {
        self.directory = directory
        self.library = library
        self.port = port
        self.metrics = metrics
        self.group = group
        self.task = task
    }

    /// Starts the graceful shutdown SIGTERM starts, and waits until the server has stopped.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }

    /// Stops the server and removes its directory.
    func finish() async {
        try? await stop()
        try? FileManager.default.removeItem(at: directory)
    }

    struct ServerDidNotStart: Error {}
}

/// Runs `body` with a live server, then stops it and removes its files.
func withServer<T>(
    _ options: ServerOptions = ServerOptions(), library: PhotoLibrary? = nil, _ body: (LiveServer) async throws -> T
) async throws -> T {
    let server = try await LiveServer.start(options, library: library)
    do {
        let value = try await body(server)
        await server.finish()
        return value
    } catch {
        await server.finish()
        throw error
    }
}
