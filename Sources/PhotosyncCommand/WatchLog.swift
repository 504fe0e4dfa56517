import Logging
import PhotoLibrary
import PhotosyncWire
import Synchronization
import SyncWorker

/// What the daemon logs of what its mirror does: a line per committed batch, and with `--verbose` every
/// change in it, with paths and changed properties (read back from the journal).
final class WatchLog: Sendable {
    private let library: PhotoLibrary
    private let logger: Logger
    /// The token up to which committed changes were logged.
    private let logged: Mutex<ChangeToken>

    init(library: PhotoLibrary, logger: Logger) throws {
        self.library = library
        self.logger = logger
        self.logged = Mutex(try library.currentChangeToken)
    }

    func log(_ event: MirrorEvent) {
        switch event {
        case .batchCommitted(let summary, let token):
            logBatch(summary, token: token)
        case .rescanStarted(let reason):
            logger.info("rescan: \(reason)")
        case .watchLimitReached:
            break  // The sync worker logs it, once, with what to do.
        case .rootUnavailable:
            break  // The watch ends with this error, which the command reports once.
        case .massDeletionRefused(let wouldDelete, let mirrored):
            logger.error("""
                refused a pass that would delete \(Plural.count(wouldDelete, "asset")) of the \(mirrored) mirrored; nothing \
                was deleted. If the files really are gone, run `photosync scan DIR --allow-mass-deletion` once
                """)
        case .syncCookieProcessed(let cookie):
            logger.debug("sync barrier \(cookie) reached")
        }
    }

    private func logBatch(_ summary: ScanSummary, token: ChangeToken?) {
        guard summary.inserted + summary.updated + summary.moved + summary.deleted > 0 || !summary.skipped.isEmpty else { return }
        logger.info("committed", metadata: [
            "inserted": "\(summary.inserted)", "updated": "\(summary.updated)", "moved": "\(summary.moved)",
            "deleted": "\(summary.deleted)", "skipped": "\(summary.skipped.count)",
            "token": "\(token?.stringValue ?? "-")",
        ])
        for skipped in summary.skipped { logger.warning("skipped \(skipped.path): \(skipped.reason)") }
        if let token, logger.logLevel <= .debug { logChanges(upTo: token) }
    }

    /// Logs every change committed since the last batch logged, at debug level.
    private func logChanges(upTo token: ChangeToken) {
        let since = logged.withLock { $0 }
        guard since < token else { return }
        do {
            let result = try library.fetchPersistentChanges(since: since)
            let page = try Wire.ChangesPage(result, library: library)
            logged.withLock { $0 = max($0, result.endToken) }
            for change in page.changes {
                for line in ChangesText.objectLines(change, includeCollections: false) { logger.debug("\(line)") }
            }
        } catch {
            // The batch is committed whatever the log says; the next batch's changes are logged from here on.
            logger.warning("the changes committed since \(since.stringValue) can't be listed: \(error)")
            logged.withLock { $0 = max($0, token) }
        }
    }
}
