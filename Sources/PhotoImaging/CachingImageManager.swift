public import PhotoLibrary
import Synchronization

/// PhotoKit's caching image manager: renders images ahead of need — the window around a scroll position —
/// into the rendition cache, so that requests with the same target size, content mode and options are
/// served from it (a cached rendition is read in well under a millisecond).
///
/// PhotoKit caches in memory; this manager caches on disk, in the library's rendition cache, which every
/// manager of the library (in any process) reads. At most ``maximumConcurrentCachingRenders`` renders run
/// for it at once, at background priority (requests of any manager of the library go first); the rest
/// wait in a queue. Stopping removes queued work and cancels running renders.
public final class CachingImageManager: Sendable {
    /// The manager whose requests the cache serves.
    public let imageManager: ImageManager
    /// How many caching renders run at once.
    public let maximumConcurrentCachingRenders: Int

    private struct Item: Hashable, Sendable {
        let localIdentifier: String
        let spec: RenderSpec
    }

    private struct State {
        var queue: [(Item, Asset, ImageRequestOptions)] = []
        var running: [Item: Task<Void, Never>] = [:]
        var allowsHighQuality = true
    }

    private let state = Mutex(State())

    /// Makes a caching manager over `imageManager`.
    public init(imageManager: ImageManager, maximumConcurrentCachingRenders: Int = 2) {
        self.imageManager = imageManager
        self.maximumConcurrentCachingRenders = max(1, maximumConcurrentCachingRenders)
    }

    /// Whether images are cached at the requested size (true, the default), or at half of it on each side
    /// (false: four times cheaper, for fast scrolling; a request then gets the half-size rendition as its
    /// degraded result at once, and renders the final one).
    public var allowsCachingHighQualityImages: Bool {
        get { state.withLock { $0.allowsHighQuality } }
        set { state.withLock { $0.allowsHighQuality = newValue } }
    }

    /// The assets queued or rendering now.
    public var cachingCount: Int { state.withLock { $0.queue.count + $0.running.count } }

    /// Requests an image, as ``ImageManager/requestImage(for:targetSize:contentMode:options:)``.
    public func requestImage(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) -> ImageRequest {
        imageManager.requestImage(for: asset, targetSize: targetSize, contentMode: contentMode, options: options)
    }

    /// Starts rendering images of `assets` into the cache, for later requests with the same target size,
    /// content mode and options. Assets already cached or already queued cost nothing.
    ///
    /// - Complexity: O(n) in the assets given and queued.
    public func startCachingImages(
        for assets: [Asset], targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) {
        let spec = cachingSpec(targetSize, contentMode, options)
        state.withLock { state in
            var known = Set(state.queue.map(\.0)).union(state.running.keys)
            for asset in assets {
                let item = Item(localIdentifier: asset.localIdentifier, spec: spec)
                if known.insert(item).inserted { state.queue.append((item, asset, options)) }
            }
        }
        pump()
    }

    /// Stops caching images of `assets` for these parameters: queued work is dropped, running renders are
    /// cancelled. Renditions already made stay in the cache.
    public func stopCachingImages(
        for assets: [Asset], targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) {
        let spec = cachingSpec(targetSize, contentMode, options)
        let items = Set(assets.map { Item(localIdentifier: $0.localIdentifier, spec: spec) })
        let cancelled = state.withLock { state -> [Task<Void, Never>] in
            state.queue.removeAll { items.contains($0.0) }
            return items.compactMap { state.running.removeValue(forKey: $0) }
        }
        for task in cancelled { task.cancel() }
        pump()
    }

    /// Stops all caching: the queue is emptied and running renders are cancelled.
    public func stopCachingImagesForAllAssets() {
        let cancelled = state.withLock { state -> [Task<Void, Never>] in
            state.queue.removeAll()
            defer { state.running.removeAll() }
            return Array(state.running.values)
        }
        for task in cancelled { task.cancel() }
    }

    private func cachingSpec(_ target: PixelSize, _ mode: ContentMode, _ options: ImageRequestOptions) -> RenderSpec {
        var options = options
        options.allowsCaching = true
        var spec = imageManager.spec(target, mode, options)
        if !allowsCachingHighQualityImages, let size = spec.target {
            spec.target = PixelSize(width: max(1, size.width / 2), height: max(1, size.height / 2))
        }
        return spec
    }

    /// Starts queued work while fewer than the limit run.
    private func pump() {
        while true {
            let started = state.withLock { state -> Bool in
                guard state.running.count < maximumConcurrentCachingRenders, !state.queue.isEmpty else { return false }
                let (item, asset, options) = state.queue.removeFirst()
                let manager = imageManager
                state.running[item] = Task { [weak self] in
                    if let source = try? manager.resolveSource(of: asset, version: options.version) {
                        _ = try? await manager.finalResult(
                            source: source, spec: item.spec, options: options, priority: .background, progress: nil)
                    }
                    self?.finished(item)
                }
                return true
            }
            if !started { return }
        }
    }

    private func finished(_ item: Item) {
        state.withLock { _ = $0.running.removeValue(forKey: item) }
        pump()
    }
}
