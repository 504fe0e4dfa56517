import ArgumentParser
import Foundation
import PhotoLibrary
import PhotosyncWire
import Synchronization
import SyncWorker

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
            skipped files, and lists the first few files left out (--verbose lists them all). A pass that left \
            out files it could not read exits with code 5: the rest is mirrored, and the next pass tries them \
            again.

            Example: photosync scan ~/Pictures
            """)

    @OptionGroup var options: GlobalOptions
    @OptionGroup var mirror: MirrorOptions

    @Argument(help: ArgumentHelp("The folder to mirror.", valueName: "dir"))
    var directory: String

    static let interrupted = "interrupted: the batches committed so far are kept; the next scan continues from there"

    func run() async throws {
        try await reportingFailures(options) { run in
            let root = try FolderArgument.resolve(directory)
            try FolderArgument.checkOutsideLibraryFiles(root, location: try run.location())
            let library = try run.openOrCreateLibrary()
            try FolderArgument.checkNotNested(root, in: library)
            let logger = CommandLogging.logger(label: "photosync.scan", options: options)
            let folderMirror = try FolderMirror(library: library, root: root, options: mirror.mirrorOptions(logger: logger))
            let reporter = ProgressReporter.forCommand(options, logger: logger)
            let outcome = Mutex<Result<ScanSummary, SyncError>?>(nil)
            let service = MirrorService {
                do throws(SyncError) {
                    let summary = try await folderMirror.scan { reporter.report(.init($0)) }
                    outcome.withLock { $0 = .success(summary) }
                } catch {
                    outcome.withLock { $0 = .failure(error) }
                }
            }
            try await MirrorService.runUntilSignalled(service, logger: CommandLogging.lifecycleLogger(options: options))
            reporter.finish()
            CommandLogging.reportLeftOutWarnings(logger)
            switch outcome.withLock({ $0 }) {
            case .success(let summary):
                if summary.interrupted { options.say(Self.interrupted) }
                let report = Wire.ScanSummary(summary, root: root.path, token: try library.currentChangeToken.stringValue)
                try ScanReport.print(report, summary: summary, options: options)
                if report.partial && !summary.interrupted { throw CommandExit(status: .partial) }
            case .failure(let error):
                throw CommandFailure.from(error)
            case nil:
                // Stopped by a signal before the pass finished: committed batches stay.
                options.say(Self.interrupted)
            }
        }
    }
}
