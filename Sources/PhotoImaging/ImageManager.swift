public import Foundation
public import PhotoLibrary
import Synchronization

/// PhotoKit's image manager for a library, on libvips: images of assets at a target size, cached.
///
/// ```swift
/// let manager = try ImageManager(library: library)
/// for try await event in manager.requestImage(for: asset, targetSize: PixelSize(square: 256),
///                                             contentMode: .aspectFill) {
///     if let result = event.result { show(result.content, degraded: result.isDegraded) }
/// }
/// ```
///
/// There is no shared manager: make one per library (managers of one library share its rendition cache
/// on disk). Renders run on a fixed set of threads (``Configuration/maximumConcurrentRenders``), never on
/// Swift's cooperative pool; every render is one libvips pipeline opened with shrink-on-load
/// (`vips_thumbnail_source`), so a 24-megapixel JPEG is decoded at 1/8 scale for a 256-pixel thumbnail.
///
/// ## Requests
/// ``requestImage(for:targetSize:contentMode:options:)`` returns an async sequence. Nothing runs before
/// it is iterated, so nothing can be delivered before the call returns (PhotoKit may call its handler
/// first). Cancelling the iterating task ends the sequence: the render stops at its next file read or tile,
/// and nothing is delivered after the cancel (PhotoKit calls cancelled handlers). A request that can't
/// deliver throws a typed ``ImageError``: a result is never silently missing. What can be had at once is
/// delivered by the first `next()`, on the calling task, without a task or a thread hop: a final result in
/// the rendition cache (one indexed lookup in the library, then an open, an fstat and one read), or an EXIF
/// thumbnail that is the result as stored (read from the head of the file, nothing decoded). After such a
/// result, the final render starts when the next event is asked for.
///
/// ## Sizes (the pixel rule)
/// Let the image as displayed (orientation applied) be W×H, and the crop, if any, the pixel rectangle
/// `floor(x·W), floor(y·H)` to `ceil((x+w)·W), ceil((y+h)·H)` of size w×h (else the whole image). For a
/// target tw×th:
/// - the scale s is `min(tw/w, th/h)` for ``ContentMode/aspectFit`` and `max(tw/w, th/h)` for
///   ``ContentMode/aspectFill``, and never above 1 (images are never enlarged);
/// - each side scales to `max(1, round(side·s))`, rounding half up, computed exactly in integers (so the
///   limiting side is exactly the target's);
/// - fit delivers the scaled region; fill delivers its centre, `min(tw, scaled width)` ×
///   `min(th, scaled height)`, the cut starting at `floor((scaled − delivered) / 2)`.
///
/// ``ResizeMode/none`` (or ``maximumSize``) delivers the region at full size. ``ResizeMode/fast`` serves a
/// cached rendition of the same kind whose sides are 1–2× the exact ones when there is one, and otherwise
/// renders exactly.
///
/// ## Where we differ from PhotoKit, and why
/// - `normalizedCropRect` is honoured in every resize mode, in the displayed image's coordinates with a
///   top-left origin (PhotoKit honours it only with `.exact` and is unclear about its origin).
/// - Images are never enlarged; PhotoKit may upscale small images to the target.
/// - Results are encoded bytes (JPEG, WebP, PNG, AVIF) or RGBA8 pixels, not `UIImage`; info is typed
///   (``ImageResult``), not a dictionary; progress is an event of the sequence.
/// - Synchronous requests (``requestImageSynchronously(for:targetSize:contentMode:options:)``) are a
///   separate call that blocks the calling thread, not an option.
///
/// ## Versions
/// ``ImageVersion/current`` shows an asset's edit (the rendered result committed through
/// ``PhotoLibrary/AssetChangeRequest/contentEditingOutput``) when it has one; ``ImageVersion/unadjusted`` and
/// ``ImageVersion/original`` show the original file (the same file here: photosync keeps no RAW+JPEG pairs).
/// Renditions are keyed by the content hash of the file rendered, so an edit never serves the original's
/// renditions, and a revert finds them again.
///
/// ## Progress
/// A decode of a file of 1 MiB or more reports ``ImageRequestEvent/progress(_:)`` events: the share of the
/// file read so far, in percent steps, increasing, before the final result.
///
/// ## Colour, orientation, alpha
/// EXIF/HEIF orientations 1–8 are applied. An embedded ICC profile (or CMYK) is converted to sRGB; images
/// without a profile are taken as sRGB. Alpha is kept for PNG, WebP, AVIF and pixels; JPEG flattens it on
/// white. Results carry no metadata.
///
/// ## Videos
/// A video's image is its first decoded frame (its poster frame), rotated by the stream's display matrix,
/// through the same sizing. Frames are decoded with FFmpeg's libavformat/libavcodec/libswscale (Debian's
/// `libavformat-dev`), called directly rather than through libffmpegthumbnailer: its interrupt callback lets
/// a cancelled request stop reading at once, the frame size is checked against the pixel limit before
/// anything is decoded, packets read are bounded so a damaged file can't loop, and errors come back as
/// codes — ffmpegthumbnailer offers none of these and would add a C++ layer over the same libraries.
/// ``playbackURL(for:)`` gives the original's file for playback.
///
/// ## Bad input
/// Headers are read first: an image over ``Configuration/maximumPixelCount`` pixels (a decompression bomb,
/// an absurd size) is refused before decoding. Truncated files fail (`fail_on=truncated`). libvips'
/// operation cache is off (it keys on file names, so an edited file would be served stale) and its untrusted
/// loaders (ImageMagick, PDF, SVG…) are blocked.
public final class ImageManager: Sendable {
    /// How a manager works.
    public struct Configuration: Sendable {
        /// The largest image, in pixels, that is decoded (width × height as stored). Default 16384² ≈ 268 MP.
        public var maximumPixelCount: Int
        /// The rendition cache's byte budget; least recently used renditions are evicted past it. The budget
        /// is the cache's, shared by every manager of the library (other processes' too): a value given here
        /// is stored and becomes theirs. nil (the default) keeps the stored budget — 1 GiB when none was set.
        public var renditionCacheBudget: Int64?
        /// How many renders run at once. Default: the number of processors.
        public var maximumConcurrentRenders: Int
        /// Where renditions are kept. Default: `renditions/` in the library directory.
        public var renditionDirectory: URL?

        public init(
            maximumPixelCount: Int = 16_384 * 16_384, renditionCacheBudget: Int64? = nil,
            maximumConcurrentRenders: Int = ProcessInfo.processInfo.activeProcessorCount,
            renditionDirectory: URL? = nil
        ) {
            self.maximumPixelCount = maximumPixelCount
            self.renditionCacheBudget = renditionCacheBudget
            self.maximumConcurrentRenders = maximumConcurrentRenders
            self.renditionDirectory = renditionDirectory
        }
    }

    /// PhotoKit's `PHImageManagerMaximumSize`: the full size, whatever the resize mode.
    public static let maximumSize = PixelSize(width: -1, height: -1)

    /// The library whose assets this manager renders.
    public let library: PhotoLibrary
    public let configuration: Configuration
    let cache: RenditionCache
    let pool: RenderPool
    let renders: InFlightRenders
    private let renderCounter = Atomic<Int>(0)
    private let runningCounter = Atomic<Int>(0)

    /// Makes a manager for `library`.
    ///
    /// - Throws: ``ImageError/encodingFailed(reason:)`` when libvips can't start,
    ///   ``ImageError/cacheUnavailable(path:reason:)`` when the rendition directory can't be made or a budget
    ///   given in `configuration` can't be stored, ``ImageError/invalidRequest(_:)`` for a budget that is not
    ///   positive.
    public init(library: PhotoLibrary, configuration: Configuration = Configuration()) throws(ImageError) {
        try VipsRuntime.start()
        self.library = library
        self.configuration = configuration
        let directory = configuration.renditionDirectory
            ?? library.url.appending(path: "renditions", directoryHint: .isDirectory)
        do { try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true) } catch {
            throw .cacheUnavailable(path: directory.path, reason: "\(error)")
        }
        cache = RenditionCache(directory: directory)
        if let budget = configuration.renditionCacheBudget { try cache.setBudget(budget) } else { cache.reloadBudget() }
        cache.removeStaleIncomingFiles()
        pool = RenderPool(threadCount: configuration.maximumConcurrentRenders)
        renders = InFlightRenders(pool: pool)
    }

    deinit { pool.shutdown() }

    /// The number of renders this manager ran from files (not served from the cache): a test hook.
    package var renderCount: Int { renderCounter.load(ordering: .relaxed) }

    /// The number of renders running now: a test hook.
    package var runningRenderCount: Int { runningCounter.load(ordering: .acquiring) }

    /// Counts a render for the test hooks while `body` runs.
    func countingRender<T>(_ body: () throws(ImageError) -> T) throws(ImageError) -> T {
        renderCounter.add(1, ordering: .relaxed)
        runningCounter.add(1, ordering: .acquiringAndReleasing)
        defer { runningCounter.subtract(1, ordering: .acquiringAndReleasing) }
        return try body()
    }

    /// Waits until no render of this manager runs. A cancelled request returns at once while its render
    /// stops at its next file read or tile; a process about to exit after cancelling its requests (a
    /// pre-render stopped by a signal) waits here, so that no render is cut off while it writes a rendition
    /// (that would leave a temporary file, removed an hour later, never a partial rendition).
    ///
    /// - Complexity: polls every 5 ms (also from a cancelled task: the wait is what cancellation needs).
    public func waitUntilRendersStop() async {
        await Task.detached { [self] in
            while runningCounter.load(ordering: .acquiring) > 0 { try? await Task.sleep(for: .milliseconds(5)) }
        }.value
    }

    /// The bytes the rendition cache holds.
    public var renditionCacheSize: Int64 { cache.totalBytes }

    /// The rendition cache's budget, as last read (it is read again before each eviction).
    public var renditionCacheBudget: Int64 { cache.budget }

    /// Sets the rendition cache's budget for every manager of the library (stored with the cache), and
    /// evicts down to it.
    ///
    /// - Throws: ``ImageError/invalidRequest(_:)`` for a budget that is not positive,
    ///   ``ImageError/cacheUnavailable(path:reason:)`` when it can't be stored.
    public func setRenditionCacheBudget(_ bytes: Int64) throws(ImageError) {
        try cache.setBudget(bytes)
        cache.evictIfNeeded()
    }

    /// Evicts least recently used renditions until the cache is within its budget.
    public func trimRenditionCache() { cache.evictIfNeeded() }

    /// Requests an image of an asset: an async sequence of results (and progress), ended by cancelling
    /// the iterating task.
    ///
    /// With ``DeliveryMode/opportunistic`` a degraded result (the file's embedded thumbnail or a smaller
    /// cached rendition) may come first; the final result is always last. Use ``maximumSize`` for the
    /// full size.
    ///
    /// - Returns: the request; nothing runs until it is iterated. Iterating throws an ``ImageError``.
    public func requestImage(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) -> ImageRequest {
        ImageRequest(manager: self, asset: asset, spec: spec(targetSize, contentMode, options), options: options)
    }

    /// Requests the final image and blocks the calling thread until it is ready (PhotoKit's
    /// `isSynchronous`). The delivery mode is ignored. Call it from a thread that may block, never from an
    /// async context.
    ///
    /// - Throws: every ``ImageError`` a request can throw.
    public func requestImageSynchronously(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode = .aspectFit,
        options: ImageRequestOptions = ImageRequestOptions()
    ) throws(ImageError) -> ImageResult {
        let spec = spec(targetSize, contentMode, options)
        let source = try resolveSource(of: asset, version: options.version)
        if let cached = cachedFinal(source: source, spec: spec, options: options) {
            return result(cached, source: source, degraded: false)
        }
        let outcome = try renderFinal(source: source, spec: spec, options: options, control: RenderControl())
        return result(outcome, source: source, degraded: false)
    }

    func spec(_ target: PixelSize, _ mode: ContentMode, _ options: ImageRequestOptions) -> RenderSpec {
        RenderSpec(
            target: target == Self.maximumSize ? nil : target, contentMode: mode, resizeMode: options.resizeMode,
            crop: options.normalizedCropRect, format: options.outputFormat,
            maximumPixelCount: configuration.maximumPixelCount)
    }

    func result(_ outcome: RenderOutcome, source: AssetSource, degraded: Bool) -> ImageResult {
        ImageResult(
            content: outcome.image.content, size: outcome.image.size, isDegraded: degraded, version: source.version,
            source: outcome.source, assetLocalIdentifier: source.localIdentifier, sourceContentHash: source.contentHash)
    }
}

extension ImageManager {
    /// The exact size a request delivers for an image of `displayedSize` (orientation applied), by the pixel
    /// rule (see ``ImageManager``, "Sizes"): for laying out a view before its image arrives.
    ///
    /// - Throws: ``ImageError/invalidRequest(_:)`` for an empty image, a target side below 1 or a bad crop.
    /// - Complexity: O(1).
    public static func resultSize(
        forDisplayedSize displayedSize: PixelSize, targetSize: PixelSize, contentMode: ContentMode,
        resizeMode: ResizeMode = .exact, normalizedCropRect: NormalizedRect? = nil
    ) throws(ImageError) -> PixelSize {
        try RenderGeometry.plan(
            source: displayedSize, target: targetSize == maximumSize ? nil : targetSize, mode: contentMode,
            resize: resizeMode, crop: normalizedCropRect
        ).outputSize
    }
}
