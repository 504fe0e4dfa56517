import ArgumentParser
import Foundation
import Logging
import PhotoLibrary
import ServiceLifecycle
import Synchronization
import SyncWorker

/// Options of the commands that mirror a folder (`scan`, `watch`).
struct MirrorOptions: ParsableArguments {
    @Flag(name: .customLong("allow-mass-deletion"), help: """
        Confirm a pass that deletes more than --max-deletion-share of the mirrored assets (by default such a \
        pass stops and deletes nothing).
        """)
    var allowMassDeletion = false

    @Option(name: .customLong("max-deletion-share"), help: ArgumentHelp(
        "The largest share of the mirrored assets one pass may delete without confirmation.", valueName: "0…1"))
    var maximumDeletionShare = 0.5

    func validate() throws {
        guard (0...1).contains(maximumDeletionShare) else { throw ValidationError("--max-deletion-share must be between 0 and 1") }
    }

    func mirrorOptions(logger: Logger) -> FolderMirrorOptions {
        var options = FolderMirrorOptions(logger: logger)
        options.allowMassDeletion = allowMassDeletion
        options.maximumDeletionShare = maximumDeletionShare
        return options
    }
}

struct ScanCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Mirror a folder into the library in one pass.",
        discussion: """
            Walks the folder (symlinks are not followed), hashes new and changed files (XXH3-128), and commits \
            inserts, edits, moves and deletions in batches. A renamed or moved file keeps its identity; each \
            directory holding media becomes an album, nested directories become folders. Files unchanged since \
            the last pass are not read again. A folder that is missing, unreadable or empty while the library \
            mirrors assets from it deletes nothing. SIGINT or SIGTERM stops after the current batch: what was \
            committed stays, and the next pass continues from there (exit 0).

            On a terminal a progress bar shows files and bytes per second and the time left; otherwise a \
            line is logged every few seconds. The summary counts inserted, updated, moved, deleted and \
            skipped files (with reasons).

            Example: photosync scan ~/Pictures
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var mirror: MirrorOptions

    @Argument(help: ArgumentHelp("The folder to mirror.", valueName: "dir"))
    var directory: String

    static let interrupted = "interrupted: the batches committed so far are kept; the next scan continues from there"

    func run() async throws {
        try await reportingFailures(options) {
            let library = try options.openLibrary()
            let root = try FolderArgument.resolve(directory, library: library)
            let logger = CommandLogging.logger(label: "photosync.scan", options: options)
            let folderMirror = try FolderMirror(library: library, root: root, options: mirror.mirrorOptions(logger: logger))
            let reporter = ProgressReporter(style: options.quiet || options.json ? .silent : nil)
            let outcome = Mutex<Result<ScanSummary, SyncError>?>(nil)
            let service = MirrorService(logger: logger) {
                do throws(SyncError) {
                    let summary = try await folderMirror.scan { reporter.report(.init($0)) }
                    outcome.withLock { $0 = .success(summary) }
                } catch {
                    outcome.withLock { $0 = .failure(error) }
                }
            }
            try await MirrorService.runUntilSignalled(service, logger: logger)
            reporter.finish()
            switch outcome.withLock({ $0 }) {
            case .success(let summary):
                if summary.interrupted {
                    options.say(Self.interrupted)
                }
                try ScanReport.print(summary, root: root, library: library, options: options)
            case .failure(let error):
                throw CommandFailure(code: 1, name: "error", message: error.message)
            case nil:
                // Stopped by a signal before the pass finished: committed batches stay.
                options.say(Self.interrupted)
            }
        }
    }
}

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
            SIGTERM finish and commit the current batch, then exit 0. Logs go to stderr (--verbose for more, \
            --quiet for warnings only). Without a folder, the bundled sample folder is watched.

            Example: photosync watch ~/Pictures
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var mirror: MirrorOptions

    @Option(name: .customLong("rescan-interval"), help: ArgumentHelp(
        "Seconds between full rescans (0: none).", valueName: "seconds"))
    var rescanInterval: Double = 3600

    @Option(name: .customLong("settle"), help: ArgumentHelp(
        "Seconds of quiet before a changed file is read.", valueName: "seconds"))
    var settle: Double = 1

    @Argument(help: ArgumentHelp("The folder to mirror (default: the bundled samples).", valueName: "dir"))
    var directory: String?

    func validate() throws {
        guard rescanInterval == 0 || (rescanInterval >= 1 && rescanInterval <= 30 * 86_400) else {
            throw ValidationError("--rescan-interval must be 0 (none) or between 1 and 2592000 seconds (30 days)")
        }
        guard settle >= 0 && settle <= 3600 else { throw ValidationError("--settle must be between 0 and 3600 seconds") }
    }

    func run() async throws {
        try await reportingFailures(options) {
            let library = try options.openLibrary()
            let root = try FolderArgument.resolve(directory ?? SampleFolder.path, library: library)
            let logger = CommandLogging.logger(label: "photosync.watch", options: options)
            var mirrorOptions = mirror.mirrorOptions(logger: logger)
            mirrorOptions.rescanInterval = rescanInterval > 0 ? .milliseconds(Int64(rescanInterval * 1000)) : nil
            mirrorOptions.settleInterval = .milliseconds(Int64(settle * 1000))
            let folderMirror = try FolderMirror(library: library, root: root, options: mirrorOptions)
            let reporter = ProgressReporter(style: options.quiet || options.json ? .silent : nil)
            let failure = Mutex<SyncError?>(nil)
            logger.info("watching \(root.path) into \(library.url.path) (pid \(getpid()))")
            let service = MirrorService(logger: logger) {
                do throws(SyncError) {
                    try await folderMirror.watch(progress: { reporter.report(.init($0)) }) { event in
                        reporter.finish()  // A log line never lands on the bar.
                        WatchLog.log(event, logger: logger)
                    }
                } catch {
                    failure.withLock { $0 = error }
                }
            }
            try await MirrorService.runUntilSignalled(service, logger: logger)
            reporter.finish()
            if let error = failure.withLock({ $0 }) {
                throw CommandFailure(code: 1, name: "error", message: error.message)
            }
            logger.info("stopped; the library is up to date with everything committed")
        }
    }
}

/// The mirror pass as a swift-service-lifecycle service: SIGINT and SIGTERM start a graceful shutdown, which
/// cancels the pass; the mirror finishes and commits its current batch, then returns.
struct MirrorService: Service {
    let logger: Logger
    let body: @Sendable () async -> Void

    init(logger: Logger, body: @escaping @Sendable () async -> Void) {
        self.logger = logger
        self.body = body
    }

    func run() async throws {
        await cancelWhenGracefulShutdown { await body() }
    }

    /// Runs `service` in a group that shuts down gracefully on SIGINT and SIGTERM, and ends when it does.
    ///
    /// A pass that has not finished its batch a minute after the signal is cancelled harder (the group
    /// cancels its task), so that a stuck read cannot keep the process from exiting.
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

/// The folder argument of the mirroring commands.
enum FolderArgument {
    /// The folder a command mirrors, absolute and standardized.
    ///
    /// - Throws: ``CommandFailure`` when it is not an existing folder (exit code 1).
    static func resolve(_ path: String) throws -> URL {
        try resolve(path, library: nil)
    }

    /// The folder a command mirrors into `library`, which must not be inside another folder the library
    /// mirrors, nor hold one (the same files would become two assets each).
    ///
    /// - Throws: ``CommandFailure`` (exit code 1): not an existing folder, or nested with a mirrored one.
    static func resolve(_ path: String, library: PhotoLibrary?) throws -> URL {
        let url = try resolveFolder(path)
        guard let library else { return url }
        for root in try library.fetchMirrorRoots().map(\.path) where root != url.path {
            if url.path.hasPrefix(root + "/") || root.hasPrefix(url.path + "/") {
                throw CommandFailure(
                    code: 1, name: "error",
                    message: "\(url.path) and \(root), which this library already mirrors, are nested: mirror one folder of a tree, not both (its files would be two assets each)")
            }
        }
        return url
    }

    private static func resolveFolder(_ path: String) throws -> URL {
        let url = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CommandFailure(code: 1, name: "error", message: "\(url.path) does not exist (an unmounted disk?); nothing was changed")
        }
        guard isDirectory.boolValue else {
            throw CommandFailure(code: 1, name: "error", message: "\(url.path) is not a folder")
        }
        return url
    }
}

extension ProgressReporter.Reading {
    init(_ progress: ScanProgress) {
        self.init(
            phase: progress.phase.rawValue, filesDone: progress.filesHashed,
            filesTotal: progress.filesToHash > 0 ? progress.filesToHash : nil,
            bytesDone: progress.bytesHashed, bytesTotal: progress.totalBytesToHash)
    }
}

/// The end-of-scan summary, plain or JSON.
enum ScanReport {
    static func print(_ summary: ScanSummary, root: URL, library: PhotoLibrary, options: GlobalOptions) throws {
        let token = try library.currentChangeToken.stringValue
        if options.json {
            printJSON([
                "root": root.path, "library": library.url.path, "inserted": summary.inserted, "updated": summary.updated,
                "moved": summary.moved, "deleted": summary.deleted, "unchanged": summary.unchanged,
                "filesHashed": summary.filesHashed, "bytesHashed": summary.bytesHashed, "batches": summary.batches, "repaired": summary.repaired,
                "skipped": summary.skipped.map { ["path": $0.path, "reason": $0.reason] },
                "metadataProblems": summary.metadataProblems, "seconds": summary.duration, "token": token,
                "interrupted": summary.interrupted,
            ] as [String: Any])
            return
        }
        guard !options.quiet else { return }
        Swift.print("""
            \(root.path): \(summary.inserted) inserted, \(summary.updated) updated, \(summary.moved) moved, \
            \(summary.deleted) deleted, \(summary.unchanged) unchanged, \(summary.skipped.count) skipped \
            (\(summary.filesHashed) files hashed, \(ProgressReporter.bytes(Double(summary.bytesHashed))), \
            \(String(format: "%.1f", summary.duration)) s)
            """)
        for skipped in summary.skipped.sorted(by: { $0.path < $1.path }) {
            Swift.print("  skipped \(skipped.path): \(skipped.reason)")
        }
        if options.verbose {
            for (path, problems) in summary.metadataProblems.sorted(by: { $0.key < $1.key }) {
                Swift.print("  \(path): mirrored with what could be read; \(problems.joined(separator: "; "))")
            }
        }
        Swift.print("change token: \(token)")
    }
}

/// What the daemon logs of what its mirror does.
enum WatchLog {
    static func log(_ event: MirrorEvent, logger: Logger) {
        switch event {
        case .batchCommitted(let summary, let token):
            guard summary.inserted + summary.updated + summary.moved + summary.deleted > 0 || !summary.skipped.isEmpty else { return }
            logger.info("committed", metadata: [
                "inserted": "\(summary.inserted)", "updated": "\(summary.updated)", "moved": "\(summary.moved)",
                "deleted": "\(summary.deleted)", "skipped": "\(summary.skipped.count)",
                "token": "\(token?.stringValue ?? "-")",
            ])
            for skipped in summary.skipped { logger.warning("skipped \(skipped.path): \(skipped.reason)") }
        case .rescanStarted(let reason):
            logger.info("rescan: \(reason)")
        case .watchLimitReached(let message):
            logger.warning("\(message)")
        case .rootUnavailable(let reason):
            logger.error("\(reason)")
        case .massDeletionRefused(let wouldDelete, let mirrored):
            logger.error("""
                refused a pass that would delete \(wouldDelete) of \(mirrored) mirrored assets; nothing was deleted. \
                If the files really are gone, run `photosync scan DIR --allow-mass-deletion` once.
                """)
        case .syncCookieProcessed(let cookie):
            logger.debug("sync barrier \(cookie) reached")
        }
    }
}
