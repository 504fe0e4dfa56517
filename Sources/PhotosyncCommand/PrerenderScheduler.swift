import Foundation
import Logging
import PhotoLibrary
import PhotosyncWire
import Synchronization
import SyncWorker

/// The daemon's pre-rendering of the standard renditions (`watch`, unless `--no-prerender`).
///
/// After the initial scan, every asset's renditions are pre-rendered (those already cached are skipped: a
/// daemon restarted resumes where it was); after that, each batch that adds files or changes their content
/// is followed by a pre-render of just those assets (`thumbnails --since` the last token covered). Each
/// pre-render is a `photosync thumbnails --background --jobs 1` child process (``PrerenderChild``): nice 10,
/// one render at a time, one libvips thread — the mirror always goes first. A pre-render starts only when
/// the mirror has been quiet for ``Settings/quietPeriod`` (or has been busy longer than
/// ``Settings/longestDeferral``), never during the initial scan. When the daemon stops, the child gets
/// SIGTERM and the daemon waits for it. A failed run is retried after ``Settings/retryDelay``.
final class PrerenderScheduler: Sendable {
    struct Settings: Sendable {
        var sizes: [ThumbnailSize]
        var quietPeriod: Duration = .seconds(2)
        var longestDeferral: Duration = .seconds(60)
        var retryDelay: Duration = .seconds(60)
    }

    private struct State {
        /// The initial scan is over: pre-rendering may start.
        var ready = false
        /// Nil until a pass over every asset has succeeded; then the token it covered up to.
        var coveredThrough: ChangeToken?
        /// Batches committed content changes after `coveredThrough`, since the first of them.
        var pendingSince: ContinuousClock.Instant?
        var lastBatch: ContinuousClock.Instant?
        var notBefore: ContinuousClock.Instant?
    }

    private let library: PhotoLibrary
    /// Where the child finds the library (a PostgreSQL URL goes through its environment, never its arguments,
    /// which other users' `ps` shows).
    private let location: LibraryLocation
    private let settings: Settings
    private let logger: Logger
    private let state = Mutex(State())
    private let wake = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))

    init(library: PhotoLibrary, location: LibraryLocation, settings: Settings, logger: Logger) {
        self.library = library
        self.location = location
        self.settings = settings
        self.logger = logger
    }

    /// The mirror's scan progress: the end of the initial scan lets pre-rendering start.
    func note(_ progress: ScanProgress) {
        guard progress.phase == .done else { return }
        state.withLock { $0.ready = true }
        wake.continuation.yield()
    }

    /// The mirror's events: batches that add or change content are pre-rendered after them.
    func note(_ event: MirrorEvent) {
        switch event {
        case .batchCommitted(let summary, _) where summary.inserted + summary.updated > 0:
            let now = ContinuousClock.now
            state.withLock { state in
                state.lastBatch = now
                if state.pendingSince == nil { state.pendingSince = now }
            }
        case .massDeletionRefused:
            state.withLock { $0.ready = true }  // The initial scan ended without its last step.
        default:
            return
        }
        wake.continuation.yield()
    }

    /// Starts pre-renders as the mirror makes them due, until cancelled.
    func run() async {
        var wakeUps = wake.stream.makeAsyncIterator()
        while !Task.isCancelled {
            guard let delay = nextRun() else {
                _ = await wakeUps.next()  // Something changed.
                continue
            }
            if delay > .zero {
                try? await Task.sleep(for: delay)
                continue
            }
            await runOnce()
        }
    }

    /// Nil when nothing is due; else how long to wait before the next pre-render (zero: now).
    private func nextRun(at now: ContinuousClock.Instant = .now) -> Duration? {
        state.withLock { state -> Duration? in
            guard state.ready, state.coveredThrough == nil || state.pendingSince != nil else { return nil }
            var start = state.notBefore ?? now
            if let lastBatch = state.lastBatch, let pendingSince = state.pendingSince {
                // Quiet for a moment, unless the mirror has been busy for long.
                start = max(start, min(lastBatch + settings.quietPeriod, pendingSince + settings.longestDeferral))
            }
            return max(.zero, start - now)
        }
    }

    /// One pre-render: every asset the first time, then the changes since the last token covered.
    private func runOnce() async {
        // Pending changes are taken before the token is read: a batch committed in between is both covered
        // and pending again (one pre-render too many, never one too few).
        let since = state.withLock { state in
            state.pendingSince = nil
            state.lastBatch = nil
            return state.coveredThrough
        }
        let upTo = try? library.currentChangeToken
        var arguments = [
            "thumbnails", "--sizes", ThumbnailSizeList(settings.sizes.map(\.size)).defaultValueDescription,
            "--jobs", "1", "--background", "--json",
        ]
        var environment: [String: String] = [:]
        switch location {
        case .sqlite(let url):
            arguments += ["--library", url.path]
        case .postgres(let url, let files):
            environment = ["PHOTOSYNC_LIBRARY": url.absoluteString, "PHOTOSYNC_LIBRARY_FILES": files.path]
        }
        if let since { arguments += ["--since", since.stringValue] }
        logger.debug("pre-rendering \(since == nil ? "every asset" : "the assets added or changed")")
        let outcome = await PrerenderChild(arguments: arguments, environment: environment).run()
        record(outcome, upTo: upTo)
    }

    private func record(_ outcome: PrerenderChild.Outcome, upTo: ChangeToken?) {
        switch outcome {
        case .ended(let run) where run.state == "finished" || run.state == "cacheFull":
            state.withLock { state in
                state.coveredThrough = upTo ?? state.coveredThrough
                state.notBefore = nil
            }
            if run.rendered + run.failed > 0 {
                logger.info("""
                    pre-rendered \(Plural.count(run.rendered, "rendition")) of \(Plural.count(run.total, "asset")) \
                    (sizes \(run.sizes.joined(separator: ", ")); \(run.alreadyCached) already cached, \(run.failed) failed)
                    """)
            }
            if run.failed > 0, let lastError = run.lastError { logger.warning("pre-render: \(run.failed) failed; the last: \(lastError)") }
            if run.state == "cacheFull" {
                logger.notice("pre-render stopped at the rendition cache's budget after \(run.completed)/\(run.total) assets; the rest renders on request")
            }
        case .ended(let run):
            retryLater("the pre-render was \(run.state) at \(run.completed)/\(run.total) assets")
        case .failed(let message, _):
            retryLater("the pre-render failed: \(message)")
        case .stopped:
            return
        }
    }

    private func retryLater(_ reason: String) {
        logger.warning("\(reason); trying again in \(settings.retryDelay)")
        let now = ContinuousClock.now
        state.withLock { state in
            state.notBefore = now + settings.retryDelay
            if state.coveredThrough != nil && state.pendingSince == nil { state.pendingSince = now }
        }
    }
}

extension MirrorService {
    /// This service with `scheduler`'s pre-rendering beside it (itself without a scheduler): when the mirror
    /// stops, a pre-render under way is stopped and waited for.
    func alongside(_ scheduler: PrerenderScheduler?) -> MirrorService {
        guard let scheduler else { return self }
        let body = self.body
        return MirrorService {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await scheduler.run() }
                await body()
                group.cancelAll()
            }
        }
    }
}
