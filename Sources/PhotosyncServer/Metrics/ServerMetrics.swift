import Foundation
public import PhotoLibrary
import PhotosyncWire
public import Prometheus
public import SyncWorker
import Synchronization

/// The server's metrics, in a Prometheus registry of its own (so that several servers in one process — tests
/// — don't mix theirs), served at `/metrics` in the Prometheus text format.
///
/// | metric | type | what |
/// |---|---|---|
/// | `photosync_commits_total` | counter | transactions committed to the library (by any process) since the server started |
/// | `photosync_change_sequence` | gauge | the sequence number of the library's current change token |
/// | `photosync_changes_served_total{feed}` | counter | changes sent: `poll` (answered at once), `longpoll`, `sse` |
/// | `photosync_longpoll_waiting` | gauge | long-poll requests waiting now |
/// | `photosync_sse_clients` | gauge | event streams open now |
/// | `photosync_scan_running`, `…_scan_files_found`, `…_scan_files_to_hash`, `…_scan_files_hashed`, `…_scan_bytes_hashed` | gauges | the daemon's current scan (`watch --serve`) |
/// | `photosync_last_scan_duration_seconds{root}`, `photosync_last_scan_end_timestamp_seconds{root}` | gauges | each mirrored folder's last completed scan |
/// | `photosync_watch_lag_seconds` | histogram | file changed on disk → committed, for files the daemon saw change while it watched |
/// | `photosync_thumbnail_renders_total`, `photosync_thumbnail_cache_hits_total` | counters | renditions rendered from files, and served from the rendition cache |
/// | `photosync_http_requests_total{route,method,status}` | counter | requests answered |
/// | `photosync_http_request_duration_seconds{route,method}` | histogram | time to the end of the response (a long-poll's includes its wait) |
public final class ServerMetrics: Sendable {
    /// The registry the metrics live in; `emit` writes the text format.
    public let registry: PrometheusCollectorRegistry

    private let commits: Counter
    private let sequence: Gauge
    private let longPollWaiting: Gauge
    private let sseClients: Gauge
    private let scanRunning: Gauge
    private let scanFilesFound: Gauge
    private let scanFilesToHash: Gauge
    private let scanFilesHashed: Gauge
    private let scanBytesHashed: Gauge
    private let watchLag: ValueHistogram
    private let thumbnailRenders: Counter
    private let thumbnailCacheHits: Counter
    private let openStreams = Atomic<Int>(0)
    /// The labelled metrics made so far: the registry's own look-up builds and compares label lists, too
    /// slow for every request when 10,000 are answered at once.
    private let requestMetrics = Mutex<[RequestKey: (Counter, DurationHistogram)]>([:])
    private let servedCounters = Mutex<[String: Counter]>([:])

    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }
    /// When the daemon started watching: changes older than that are no watch lag.
    private let watchStart = Mutex<Date?>(nil)
    private let lastWatchToken = Mutex<ChangeToken?>(nil)

    /// An empty registry with the server's metrics.
    public init() {
        let registry = PrometheusCollectorRegistry()
        self.registry = registry
        commits = registry.makeCounter(descriptor: Self.named("photosync_commits_total", "Transactions committed to the library since the server started, by any process."))
        sequence = registry.makeGauge(descriptor: Self.named("photosync_change_sequence", "The sequence number of the library's current change token."))
        longPollWaiting = registry.makeGauge(descriptor: Self.named("photosync_longpoll_waiting", "Long-poll requests waiting for a change."))
        sseClients = registry.makeGauge(descriptor: Self.named("photosync_sse_clients", "Open change event streams."))
        scanRunning = registry.makeGauge(descriptor: Self.named("photosync_scan_running", "1 while the daemon's scan runs."))
        scanFilesFound = registry.makeGauge(descriptor: Self.named("photosync_scan_files_found", "Media files the current or last scan found."))
        scanFilesToHash = registry.makeGauge(descriptor: Self.named("photosync_scan_files_to_hash", "Files the current or last scan has to hash."))
        scanFilesHashed = registry.makeGauge(descriptor: Self.named("photosync_scan_files_hashed", "Files the current or last scan hashed."))
        scanBytesHashed = registry.makeGauge(descriptor: Self.named("photosync_scan_bytes_hashed", "Bytes the current or last scan hashed."))
        thumbnailRenders = registry.makeCounter(descriptor: Self.named("photosync_thumbnail_renders_total", "Thumbnails rendered from their files."))
        thumbnailCacheHits = registry.makeCounter(
            descriptor: Self.named("photosync_thumbnail_cache_hits_total", "Thumbnails served from the rendition cache."))
        watchLag = registry.makeValueHistogram(descriptor: Self.named("photosync_watch_lag_seconds", "From a file's change on disk to its commit, for changes the daemon saw while watching."), buckets: [0.25, 0.5, 1, 1.25, 1.5, 2, 3, 5, 10, 30, 60, 300])
    }

    /// A metric's name and help text.
    static func named(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    // MARK: The feed

    /// The head moved from `old` to `new` (transactions are numbered without reuse).
    func headMoved(from old: ChangeToken, to new: ChangeToken) {
        if new.sequence > old.sequence { commits.increment(by: Int64(new.sequence - old.sequence)) }
        sequence.set(Double(new.sequence))
    }

    /// `count` changes were sent through `feed` (`poll`, `longpoll`, `sse`).
    func changesServed(_ count: Int, feed: String) {
        guard count > 0 else { return }
        let counter = servedCounters.withLock { counters in
            if let counter = counters[feed] { return counter }
            let counter = registry.makeCounter(
                descriptor: Self.named("photosync_changes_served_total", "Changes sent to clients, by feed."), labels: [("feed", feed)])
            counters[feed] = counter
            return counter
        }
        counter.increment(by: Int64(count))
    }

    /// A rendition was served: rendered by this request, or from the rendition cache.
    func renditionServed(rendered: Bool) {
        (rendered ? thumbnailRenders : thumbnailCacheHits).increment()
    }

    func streamOpened() { openStreams.add(1, ordering: .relaxed) }
    func streamClosed() { openStreams.subtract(1, ordering: .relaxed) }

    // MARK: HTTP

    /// A request to `route` answered with `status` after `duration`.
    func requestAnswered(route: String, method: String, status: Int, duration: Duration) {
        let key = RequestKey(route: route, method: method, status: status)
        let (counter, histogram) = requestMetrics.withLock { metrics in
            if let found = metrics[key] { return found }
            let made = (
                registry.makeCounter(
                    descriptor: Self.named("photosync_http_requests_total", "HTTP requests answered."),
                    labels: [("route", route), ("method", method), ("status", String(status))]),
                registry.makeDurationHistogram(
                    descriptor: Self.named("photosync_http_request_duration_seconds", "Time to the response head, by route."),
                    labels: [("route", route), ("method", method)], buckets: Self.latencyBuckets))
            metrics[key] = made
            return made
        }
        counter.increment()
        histogram.record(duration)
    }

    static let latencyBuckets: [Duration] = [
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2.5), .seconds(5), .seconds(15),
        .seconds(30), .seconds(60),
    ]

    // MARK: The daemon

    /// The daemon starts watching now (`photosync watch --serve`): its scan and watch lag are reported.
    public func watchStarted(token: ChangeToken) {
        watchStart.withLock { $0 = Date() }
        lastWatchToken.withLock { $0 = token }
    }

    /// A scan's progress (the callback of `FolderMirror.watch(progress:)`).
    public func scanProgressed(_ progress: ScanProgress) {
        scanRunning.set(progress.phase == .done ? 0.0 : 1.0)
        scanFilesFound.set(Double(progress.filesFound))
        scanFilesToHash.set(Double(progress.filesToHash))
        scanFilesHashed.set(Double(progress.filesHashed))
        scanBytesHashed.set(Double(progress.bytesHashed))
    }

    /// A batch the daemon committed: the watch lag of each file it inserted or changed that changed on disk
    /// after the daemon started (its modification or status-change time; a rename changes the latter).
    ///
    /// - Complexity: one read of the batch's changes, and a `stat` per file (at most 256 per batch).
    public func batchCommitted(_ summary: ScanSummary, token: ChangeToken?, library: PhotoLibrary) {
        let now = Date()
        if summary.batches > 0 || summary.inserted + summary.updated + summary.moved + summary.deleted > 0 { scanRunning.set(0.0) }
        guard let token, let start = watchStart.withLock({ $0 }) else { return }
        let previous = lastWatchToken.withLock { last -> ChangeToken? in
            defer { last = max(last ?? token, token) }
            return last
        }
        guard let previous, previous < token,
            let result = try? library.fetchPersistentChanges(since: previous, options: .init(excludedAuthors: [], coalesced: true)),
            let page = try? Wire.ChangesPage(result, library: library),
            let roots = try? MirrorPaths(library: library, includeDirectories: false).rootPaths
        else { return }
        let paths = page.changes.flatMap { $0.asset.paths.values }.prefix(256)
        for relative in paths {
            for root in roots {
                var info = stat()
                guard stat(root + "/" + relative, &info) == 0 else { continue }
                let changed = max(Self.date(info.st_mtim), Self.date(info.st_ctim))
                if changed >= start, changed <= now { watchLag.record(now.timeIntervalSince(changed)) }
                break
            }
        }
    }

    private static func date(_ time: timespec) -> Date {
        Date(timeIntervalSince1970: Double(time.tv_sec) + Double(time.tv_nsec) / 1e9)
    }

    // MARK: Scrapes

    /// Brings the gauges read at scrape time up to date, then writes the text format.
    func emit(feed: ChangeFeed, library: PhotoLibrary) -> [UInt8] {
        longPollWaiting.set(Double(feed.waiting(.longPoll)))
        sseClients.set(Double(openStreams.load(ordering: .relaxed)))
        sequence.set(Double(feed.head.sequence))
        for root in (try? library.fetchMirrorRoots()) ?? [] {
            guard let start = root.lastScanStart, let end = root.lastScanEnd, end >= start else { continue }
            registry.makeGauge(descriptor: Self.named("photosync_last_scan_duration_seconds", "Duration of each mirrored folder's last completed scan."), labels: [("root", root.path)]).set(end.timeIntervalSince(start))
            registry.makeGauge(descriptor: Self.named("photosync_last_scan_end_timestamp_seconds", "When each mirrored folder's last completed scan ended (Unix time)."), labels: [("root", root.path)]).set(end.timeIntervalSince1970)
        }
        return registry.emitToBuffer()
    }
}
