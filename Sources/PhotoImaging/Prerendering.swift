public import PhotoLibrary
import Synchronization

/// Progress of a pre-render (see ``ImageManager/prerenderRenditions(of:sizes:contentMode:format:concurrency:)``).
public struct PrerenderProgress: Sendable, Equatable {
    /// Assets in the run.
    public let total: Int
    /// Assets done (rendered, already cached, or failed).
    public let completed: Int
    /// Renditions rendered by this run.
    public let rendered: Int
    /// Renditions found in the cache already (a run resumed, or assets rendered before).
    public let alreadyCached: Int
    /// Assets that could not be rendered (damaged files, missing files…), with the last such error.
    public let failed: Int
    public let lastError: ImageError?
    /// Whether the run stopped because the rendition cache reached its budget: rendering more would only
    /// evict renditions (the least recently used first — the ones requests used, or this run made). The
    /// assets not done are `total − completed`; a later run, after eviction made room or with a larger
    /// budget, goes on from there.
    public let stoppedAtBudget: Bool

    /// `completed / total`, 1 for an empty run.
    public var fractionCompleted: Double { total == 0 ? 1 : Double(completed) / Double(total) }
}

extension ImageManager {
    /// The standard sizes the daemon pre-renders: 256 and 1440 pixels, fit.
    public static let standardRenditionSizes = [PixelSize(square: 256), PixelSize(square: 1440)]

    /// Renders the renditions of `assets` into the cache at low priority (requests go first), and reports
    /// progress after each asset. Resumable: renditions already cached are skipped, so a run stopped and
    /// started again continues where it was. Cancel the iterating task to stop it. Damaged or missing files
    /// are counted and skipped, never fatal. A run never evicts: it stops
    /// (``PrerenderProgress/stoppedAtBudget``) before a render would take the cache past 95 % of its budget,
    /// so a library larger than the budget keeps the renditions of its first assets (give them newest first)
    /// instead of churning through all of them.
    ///
    /// - Parameters:
    ///   - assets: any collection of assets; a ``FetchResult`` is read lazily, in batches.
    ///   - concurrency: how many assets render at once (default: the manager's render limit).
    /// - Complexity: memory is bounded by `concurrency` renders, whatever the number of assets.
    public func prerenderRenditions<Assets: RandomAccessCollection & Sendable>(
        of assets: Assets, sizes: [PixelSize] = ImageManager.standardRenditionSizes,
        contentMode: ContentMode = .aspectFit, format: ImageOutputFormat = .jpeg(quality: 85),
        concurrency: Int? = nil
    ) -> AsyncStream<PrerenderProgress> where Assets.Element == Asset, Assets.Index == Int {
        let workers = max(1, concurrency ?? configuration.maximumConcurrentRenders)
        let (stream, continuation) = AsyncStream.makeStream(of: PrerenderProgress.self, bufferingPolicy: .bufferingNewest(1))
        let task = Task { [self] in
            let tally = PrerenderTally(total: assets.count)
            let next = PrerenderTally.Cursor()
            await withTaskGroup(of: Void.self) { group in
                for _ in 0..<workers {
                    group.addTask { [self] in
                        while !Task.isCancelled && !tally.isStopped {
                            let index = next.take()
                            guard index < assets.count else { return }
                            let asset = assets[assets.startIndex + index]
                            let outcome = await prerender(asset, sizes: sizes, contentMode: contentMode, format: format)
                            tally.record(outcome, into: continuation)
                        }
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Whether one more render could take the cache past 95 % of its budget (eviction starts past 100 %).
    var isRenditionCacheAtBudget: Bool { cache.totalBytes >= cache.budget / 20 * 19 }

    /// Renders one asset's renditions: how many were rendered and found cached, or the error. Stops short
    /// (``PrerenderOutcome/atBudget``) when the cache is at its budget.
    private func prerender(
        _ asset: Asset, sizes: [PixelSize], contentMode: ContentMode, format: ImageOutputFormat
    ) async -> PrerenderOutcome {
        do throws(ImageError) {
            let options = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact, outputFormat: format)
            let source = try resolveSource(of: asset, version: .current)
            var rendered = 0, cached = 0
            for size in sizes {
                let spec = spec(size, contentMode, options)
                if let hash = source.contentHash, cache.contains(RenditionKey(contentHash: hash, spec: spec)) {
                    cached += 1
                    continue
                }
                if isRenditionCacheAtBudget { return .atBudget(rendered: rendered, cached: cached) }
                _ = try await finalResult(source: source, spec: spec, options: options, priority: .background, progress: nil)
                rendered += 1
            }
            return .done(rendered: rendered, cached: cached)
        } catch {
            return .failed(error)
        }
    }
}

/// What pre-rendering one asset did.
private enum PrerenderOutcome {
    case done(rendered: Int, cached: Int)
    case failed(ImageError)
    /// Not done (what was rendered and found before counts): the cache is at its budget.
    case atBudget(rendered: Int, cached: Int)
}

/// The running totals of a pre-render.
private final class PrerenderTally: Sendable {
    /// Hands out asset indexes to the workers, each once.
    final class Cursor: Sendable {
        private let next = Mutex(0)
        func take() -> Int { next.withLock { value in defer { value += 1 }; return value } }
    }

    private struct Counts {
        var completed = 0, rendered = 0, cached = 0, failed = 0
        var lastError: ImageError?
        var stoppedAtBudget = false
    }

    private let total: Int
    private let counts = Mutex(Counts())

    init(total: Int) { self.total = total }

    /// Whether the run stopped at the cache's budget.
    var isStopped: Bool { counts.withLock { $0.stoppedAtBudget } }

    /// Counts `outcome` and yields the new totals, under the one lock: workers finishing at once yield in the
    /// order they counted, so the stream's last element is the run's end (with `bufferingNewest(1)`, a yield
    /// made after the lock could put an older total last).
    func record(_ outcome: PrerenderOutcome, into continuation: AsyncStream<PrerenderProgress>.Continuation) {
        counts.withLock { counts in
            _ = continuation.yield(Self.count(outcome, in: &counts, total: total))
        }
    }

    private static func count(_ outcome: PrerenderOutcome, in counts: inout Counts, total: Int) -> PrerenderProgress {
        switch outcome {
        case .done(let rendered, let cached):
            counts.completed += 1
            counts.rendered += rendered
            counts.cached += cached
        case .failed(let error):
            counts.completed += 1
            counts.failed += 1
            counts.lastError = error
        case .atBudget(let rendered, let cached):
            counts.rendered += rendered
            counts.cached += cached
            counts.stoppedAtBudget = true
        }
        return PrerenderProgress(
            total: total, completed: counts.completed, rendered: counts.rendered, alreadyCached: counts.cached,
            failed: counts.failed, lastError: counts.lastError, stoppedAtBudget: counts.stoppedAtBudget)
    }
}
