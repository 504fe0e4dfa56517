import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension ImageManager {
    /// The final result from the rendition cache, when it is there: the exact rendition, or with
    /// ``ResizeMode/fast`` one whose sides are 1–2× the exact ones.
    func cachedFinal(source: AssetSource, spec: RenderSpec, options: ImageRequestOptions) -> RenderOutcome? {
        guard options.allowsCaching, let hash = source.contentHash else { return nil }
        let key = RenditionKey(contentHash: hash, spec: spec)
        if let image = cache.lookup(key) { return RenderOutcome(image: image, source: .renditionCache) }
        guard spec.resizeMode == .fast, let exact = expectedSize(source: source, spec: spec) else { return nil }
        let image = cache.lookupSibling(of: key) { size in
            size.width >= exact.width && size.height >= exact.height && size.width <= 2 * exact.width
                && size.height <= 2 * exact.height
        }
        return image.map { RenderOutcome(image: $0, source: .renditionCache) }
    }

    /// The exact size of the final result, computed from the size the library recorded (nil when unknown).
    func expectedSize(source: AssetSource, spec: RenderSpec) -> PixelSize? {
        guard source.displayedSize.width > 0, source.displayedSize.height > 0 else { return nil }
        return try? spec.geometry(for: source.displayedSize).outputSize
    }

    /// Renders the final result from the file, on the calling thread, and stores it in the cache.
    func renderFinal(
        source: AssetSource, spec: RenderSpec, options: ImageRequestOptions, control: RenderControl
    ) throws(ImageError) -> RenderOutcome {
        try control.check()
        return try countingRender { () throws(ImageError) in
            let image = source.isVideo
                ? try VideoPoster.render(path: source.path, spec: spec, control: control)
                : try RenderPipeline.render(path: source.path, spec: spec, control: control)
            try control.check()
            if options.allowsCaching, let hash = source.contentHash, fileStillMatches(source) {
                // A cache that can't be written costs time, never the result.
                try? cache.store(image, for: RenditionKey(contentHash: hash, spec: spec))
            }
            return RenderOutcome(image: image, source: .rendered)
        }
    }

    /// Whether the file still has the size the library recorded with its hash: a file rewritten since
    /// (and not yet mirrored) must not be cached under its old hash.
    private func fileStillMatches(_ source: AssetSource) -> Bool {
        var status = stat()
        guard stat(source.path, &status) == 0 else { return false }
        return source.fileSize <= 0 || Int64(status.st_size) == source.fileSize
    }

    /// The final result: from the cache, else rendered once for all concurrent requests.
    func finalResult(
        source: AssetSource, spec: RenderSpec, options: ImageRequestOptions, priority: RenderPriority,
        progress: (@Sendable (Double) -> Void)?
    ) async throws(ImageError) -> RenderOutcome {
        if let cached = cachedFinal(source: source, spec: spec, options: options) { return cached }
        let key = source.contentHash.map { RenditionKey(contentHash: $0, spec: spec).canonical }
            ?? "path:\(source.path)|\(RenditionKey(contentHash: "-", spec: spec).canonical)"
        return try await renders.render(key: key, priority: priority, progress: progress) { [self] control throws(ImageError) in
            if let cached = cachedFinal(source: source, spec: spec, options: options) { return cached }
            return try renderFinal(source: source, spec: spec, options: options, control: control)
        }
    }

    /// A degraded result, as far as it can be had at once on the calling task: a smaller cached rendition
    /// of the same kind, else the file's embedded thumbnail when it is the result as stored; else what is
    /// left to render (``renderDegraded(_:source:spec:)``), or nothing.
    func immediateDegraded(source: AssetSource, spec: RenderSpec, options: ImageRequestOptions) -> DegradedStep {
        if options.allowsCaching, let hash = source.contentHash {
            let key = RenditionKey(contentHash: hash, spec: spec)
            let exact = expectedSize(source: source, spec: spec) ?? spec.target
            if let image = cache.lookupSibling(of: key, accepting: { size in
                guard let exact else { return true }
                return size.width * size.height < exact.width * exact.height
            }) {
                return .ready(RenderOutcome(image: image, source: .renditionCache))
            }
        }
        // A file that can't be read fails the final result, with its error; here it only has no thumbnail.
        guard !source.isVideo, let thumbnail = try? EmbeddedThumbnail.find(source, spec: spec) else { return .none }
        switch thumbnail {
        case .none: return .none
        case .ready(let image): return .ready(RenderOutcome(image: image, source: .embeddedThumbnail))
        case .jpeg, .heif: return .render(thumbnail)
        }
    }

    /// Renders an embedded thumbnail on the render threads; nil when it turns out unusable (damaged, or of
    /// another shape).
    func renderDegraded(_ thumbnail: EmbeddedThumbnail, source: AssetSource, spec: RenderSpec) async throws(ImageError)
        -> RenderOutcome?
    {
        let control = RenderControl()
        let image = try await pool.perform(priority: .userInitiated, control: control) { () throws(ImageError) -> RenderedImage? in
            switch thumbnail {
            case .jpeg(let bytes, let orientation):
                try RenderPipeline.renderJPEGThumbnail(bytes, orientation: orientation, path: source.path, spec: spec, control: control)
            case .heif:
                try RenderPipeline.renderHEIFThumbnail(path: source.path, spec: spec, control: control)
            case .none, .ready:
                nil
            }
        }
        return image.map { RenderOutcome(image: $0, source: .embeddedThumbnail) }
    }
}

/// How far a degraded result could be had at once.
enum DegradedStep: Sendable {
    /// None, or none to look for.
    case none
    /// Here it is.
    case ready(RenderOutcome)
    /// An embedded thumbnail to render.
    case render(EmbeddedThumbnail)
    /// Delivered already: the final result is all that is left.
    case delivered
}
