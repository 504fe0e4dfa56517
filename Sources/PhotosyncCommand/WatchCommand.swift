import ArgumentParser
import Foundation
import PhotoLibrary
import PhotosyncServer
import ServiceLifecycle
import Synchronization
import SyncWorker

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "The daemon: mirror a folder, then keep mirroring it as it changes.",
        discussion: """
            Runs a scan, then follows the folder with inotify: a file is read once it has been quiet for a \
            second, and changes are committed in batches (author "photosync"), so clients polling with \
            `photosync changes --wait` see them at once. Lost events (a full inotify queue, a directory that \
            could not be watched) trigger a rescan of what they concern, and a full rescan runs every hour \
            for file systems that send no events. If the kernel's inotify watch limit is reached, this is \
            logged once with the sysctl that raises it, and periodic rescans cover the rest.

            One daemon per library: a second one refuses, naming the pid of the running one. SIGINT and \
            SIGTERM finish and commit the current batch, then exit 0. Logs go to stderr (--verbose adds every \
            change committed, with its path; --quiet keeps errors only). Without a folder, the one folder the \
            library already mirrors is watched.

            After the scan, and after each batch that adds or changes files, the renditions of those assets \
            (256 and 1440 pixels, or --prerender-sizes) are pre-rendered into the library's rendition cache by \
            a `photosync thumbnails --background` child process: low priority, one render at a time, resumed \
            where it was by the next daemon, stopped with the daemon. `photosync status` shows its progress.

            Example: photosync watch ~/Pictures
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var mirror: MirrorOptions
    @OptionGroup var prerender: PrerenderOptions

    @Option(name: .customLong("rescan-interval"), help: ArgumentHelp(
        "Seconds between full rescans (0: none).", valueName: "seconds"))
    var rescanInterval: Double = 3600

    @Option(name: .customLong("settle"), help: ArgumentHelp(
        "Seconds of quiet before a changed file is read.", valueName: "seconds"))
    var settle: Double = 1

    @Argument(help: ArgumentHelp("The folder to mirror (default: the one folder the library mirrors).", valueName: "dir"))
    var directory: String?

    @Option(name: .long, help: ArgumentHelp("Also serve the HTTP API on [HOST:]PORT (see photosync serve).", valueName: "host:port"))
    var serve: String?

    @OptionGroup(title: "HTTP API (with --serve)") var serving: ServeOptions

    func validate() throws {
        guard rescanInterval == 0 || (rescanInterval >= 1 && rescanInterval <= 30 * 86_400) else {
            throw ValidationError("--rescan-interval must be 0 (none) or between 1 and 2592000 seconds (30 days)")
        }
        guard settle >= 0 && settle <= 3600 else { throw ValidationError("--settle must be between 0 and 3600 seconds") }
        if let serve { _ = try ServeOptions.address(serve, option: "--serve") }
    }

    func run() async throws {
        try await reportingFailures(options) { run in
            let location = try run.location()
            let (library, root) = try openLibraryAndFolder(run)
            try FolderArgument.checkOutsideLibraryFiles(root, location: location)
            try FolderArgument.checkNotNested(root, in: library)
            let logger = CommandLogging.logger(label: "photosync.watch", options: options)
            var mirrorOptions = mirror.mirrorOptions(logger: logger)
            mirrorOptions.rescanInterval = rescanInterval > 0 ? .milliseconds(Int64(rescanInterval * 1000)) : nil
            mirrorOptions.settleInterval = .milliseconds(Int64(settle * 1000))
            let folderMirror = try FolderMirror(library: library, root: root, options: mirrorOptions)
            let reporter = ProgressReporter.forCommand(options, logger: logger)
            let watchLog = try WatchLog(library: library, logger: logger)
            let failure = Mutex<SyncError?>(nil)
            let prerenderer = prerender.scheduler(library: library, location: location, logger: logger)
            let metrics = ServerMetrics()
            var services: [any Service] = []
            if let serve {
                services.append(try serving.application(
                    library: library, location: location, address: serve, option: "--serve", metrics: metrics, logger: logger))
                metrics.watchStarted(token: try library.currentChangeToken)
            }
            logger.info("watching \(root.path) into \(location.shown) (pid \(getpid()))")
            let service = MirrorService {
                do throws(SyncError) {
                    try await folderMirror.watch(progress: {
                        reporter.report(.init($0))
                        metrics.scanProgressed($0)
                        prerenderer?.note($0)
                    }) { event in
                        reporter.finish()  // A log line never lands on the bar.
                        watchLog.log(event)
                        prerenderer?.note(event)
                        if case .batchCommitted(let summary, let token) = event { metrics.batchCommitted(summary, token: token, library: library) }
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
            }
            try await ServeCommand.runUntilSignalled(
                [service.alongside(prerenderer)] + services, logger: CommandLogging.lifecycleLogger(options: options))
            reporter.finish()
            CommandLogging.reportLeftOutWarnings(logger)
            if let error = failure.withLock({ $0 }) { throw CommandFailure.from(error) }
            logger.info("stopped; the library is up to date with everything committed")
        }
    }

    /// The folder first (a missing one creates no library), then the library; without a folder, the
    /// library must exist and mirror exactly one.
    private func openLibraryAndFolder(_ run: CommandRun) throws -> (PhotoLibrary, URL) {
        if let directory {
            let root = try FolderArgument.resolve(directory)
            try FolderArgument.checkOutsideLibraryFiles(root, location: try run.location())
            return (try run.openOrCreateLibrary(), root)
        }
        guard try run.libraryExists() else {
            throw CommandFailure(
                .usage, code: "usage", "name the folder to watch: photosync watch DIR (there is no library at \(try run.location().shown) yet)")
        }
        let library = try run.openExistingLibrary()
        return (library, try FolderArgument.onlyMirroredFolder(of: library))
    }
}
