public import Hummingbird
public import Logging
public import PhotoLibrary
import Foundation
import HummingbirdAuth
import PhotoImaging

/// Builds the HTTP API over `library`: the routes, the access rules, the change feed (a service of the
/// application, running as long as it does).
///
/// Run it as a service (`try await app.runService()`, or in a `ServiceGroup` beside other services): SIGTERM
/// and SIGINT start a graceful shutdown, in which every waiting long-poll is answered with the current
/// token, every event stream ends cleanly, and the server stops accepting connections.
///
/// - Parameters:
///   - library: the library served.
///   - options: address, keys, CORS, limits.
///   - metrics: where the server counts (give the daemon's, to add its scan and watch lag).
///   - logger: the server's logger.
///   - onServerRunning: called with the bound port once the server listens (port 0 picks one).
/// - Throws: ``ServerOptions/Problem`` for options that can't be used (keys missing on a public address);
///   a ``PhotoLibraryError`` when the library can't be read.
public func buildApplication(
    library: PhotoLibrary, options: ServerOptions, metrics: ServerMetrics = ServerMetrics(), logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    try options.validate()
    let pages = ChangePages(library: library)
    let feed = try ChangeFeed(library: library, pages: pages, metrics: metrics, logger: logger)
    let environment = ServerEnvironment(
        library: library, options: options, feed: feed, pages: pages, metrics: metrics, logger: logger, headCache: HeadCache(library: library))
    removeStaleUploads(in: library.url.appending(path: ".uploads"))
    var images: ImageManager?
    do { images = try ImageManager(library: library) } catch {
        logger.error("thumbnails are unavailable: \(error)")
    }
    let router = makeRouter(environment, images: images)
    return Application(
        router: router,
        configuration: ApplicationConfiguration(address: .hostname(options.host, port: options.port), serverName: "photosync"),
        services: [feed],
        onServerRunning: { channel in
            // Runs in the server's task: its graceful shutdown answers the waiting requests.
            feed.stopOnServerShutdown()
            await onServerRunning(channel.localAddress?.port ?? options.port)
        },
        logger: logger)
}

/// The routes, each in the group of the access it needs.
func makeRouter(_ environment: ServerEnvironment, images: ImageManager?) -> Router<APIRequestContext> {
    let router = Router(context: APIRequestContext.self)
    router.add(middleware: MetricsMiddleware(metrics: environment.metrics))
    if !environment.options.corsOrigins.isEmpty { router.add(middleware: CORSPolicy(origins: environment.options.corsOrigins)) }
    router.add(middleware: ErrorMiddleware())
    router.add(middleware: GalleryKeyCookie(keys: environment.options.keys))
    router.add(middleware: APIKeyAuthenticator(keys: environment.options.keys))
    let thumbnails = images.map { ThumbnailsController(environment: environment, images: $0) }
    if let thumbnails { router.add(middleware: CheckedRenditions(thumbnails: thumbnails)) }
    let open = router.group()
    let reads = router.group().add(middleware: AccessRequirement(permission: .read))
    let adds = router.group().add(middleware: AccessRequirement(permission: .add))
    let writes = router.group().add(middleware: AccessRequirement(permission: .modify))
    ServiceController(environment: environment).addRoutes(public: open, reads: reads)
    GalleryController().addRoutes(to: open)
    ChangesController(environment: environment).addRoutes(to: reads)
    StateController(environment: environment).addRoutes(to: reads)
    thumbnails?.addRoutes(to: reads)
    AssetsController(environment: environment, thumbnails: thumbnails).addRoutes(reads: reads, adds: adds, writes: writes)
    AlbumsController(environment: environment).addRoutes(reads: reads, adds: adds, writes: writes)
    return router
}

/// Removes what uploads interrupted by a crash left behind (older than a day: a running server's are newer).
private func removeStaleUploads(in directory: URL) {
    let manager = FileManager.default
    let dayAgo = Date().addingTimeInterval(-86_400)
    for name in (try? manager.contentsOfDirectory(atPath: directory.path)) ?? [] {
        let url = directory.appending(path: name)
        let modified = (try? manager.attributesOfItem(atPath: url.path)[.modificationDate] as? Date) ?? nil
        if let modified, modified < dayAgo { try? manager.removeItem(at: url) }
    }
}
