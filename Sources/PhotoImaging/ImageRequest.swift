import PhotoLibrary
import Synchronization

/// One image request: an async sequence of ``ImageRequestEvent``s (progress, then results, the final one
/// last), made by ``ImageManager/requestImage(for:targetSize:contentMode:options:)``.
///
/// Nothing runs until the sequence is iterated. Cancelling the iterating task ends the sequence: the
/// render is cancelled and nothing more is delivered. Each iteration makes a new request.
///
/// What can be had at once is delivered by the first `next()` on the calling task, with no task started
/// and no thread hop: a final result in the rendition cache (one lookup in the library, one read of a
/// file), or — for ``DeliveryMode/opportunistic`` and ``DeliveryMode/fastFormat`` — a degraded one that
/// needs no decoding (a smaller cached rendition, or an EXIF thumbnail that is the result as stored). The
/// rest is rendered on the manager's render threads, starting when the next event is asked for: nothing
/// competes with the caller for the processor until it has the degraded result, and a caller that stops
/// there (a cell scrolled away) costs no render.
public struct ImageRequest: AsyncSequence, Sendable {
    public typealias Element = ImageRequestEvent
    public typealias Failure = ImageError

    let manager: ImageManager
    let asset: Asset
    let spec: RenderSpec
    let options: ImageRequestOptions

    public func makeAsyncIterator() -> Iterator { Iterator(request: self) }

    /// Iterates one request.
    public struct Iterator: AsyncIteratorProtocol {
        let request: ImageRequest
        private var phase = Phase.notStarted

        private enum Phase {
            case notStarted
            /// A result was delivered at once; the rest starts at the next `next()`.
            case delivered(then: Driver)
            case streaming(AsyncStream<Result<ImageRequestEvent, ImageError>>.Iterator)
            case finished
        }

        init(request: ImageRequest) { self.request = request }

        /// The next event; nil at the end, or once the calling task is cancelled.
        ///
        /// - Throws: the request's ``ImageError``.
        public mutating func next() async throws(ImageError) -> ImageRequestEvent? {
            switch phase {
            case .finished:
                return nil
            case .notStarted:
                phase = .finished  // Until the request is under way: a throw or an immediate final result ends it.
                if Task.isCancelled { return nil }
                let (immediate, driver) = try request.begin()
                guard let immediate else {
                    if let driver { phase = .streaming(driver.start().makeAsyncIterator()) }
                    return try await next()
                }
                if let driver { phase = .delivered(then: driver) }
                return .result(immediate)
            case .delivered(let driver):
                phase = .finished
                if Task.isCancelled { return nil }
                phase = .streaming(driver.start().makeAsyncIterator())
                return try await next()
            case .streaming(var stream):
                // AsyncStream ends its iteration when the calling task is cancelled, and that cancels the driver.
                let element = await stream.next()
                phase = .streaming(stream)
                return try take(element)
            }
        }

        private mutating func take(_ element: Result<ImageRequestEvent, ImageError>?) throws(ImageError) -> ImageRequestEvent? {
            guard !Task.isCancelled, let element else {
                phase = .finished
                return nil
            }
            switch element {
            case .success(let event):
                if case .result(let result) = event, !result.isDegraded { phase = .finished }
                return event
            case .failure(let error):
                phase = .finished
                if error == .cancelled { return nil }
                throw error
            }
        }
    }

    /// The rest of a request, to be started: the render of its final result (and of a degraded one still to
    /// come).
    struct Driver: Sendable {
        let request: ImageRequest
        let source: AssetSource
        let degraded: DegradedStep

        func start() -> AsyncStream<Result<ImageRequestEvent, ImageError>> { request.start(source: source, degraded: degraded) }
    }

    /// Looks the request up: what can be delivered at once, and the driver of the rest (nil when nothing
    /// follows).
    func begin() throws(ImageError) -> (ImageResult?, Driver?) {
        let source = try manager.resolveSource(of: asset, version: options.version)
        if let cached = manager.cachedFinal(source: source, spec: spec, options: options) {
            return (manager.result(cached, source: source, degraded: false), nil)
        }
        guard options.deliveryMode != .highQualityFormat else { return (nil, Driver(request: self, source: source, degraded: .none)) }
        switch manager.immediateDegraded(source: source, spec: spec, options: options) {
        case .ready(let outcome):
            let result = manager.result(outcome, source: source, degraded: true)
            // A fast result ends a fast request; an opportunistic one goes on to the final result.
            return (result, options.deliveryMode == .fastFormat ? nil : Driver(request: self, source: source, degraded: .delivered))
        case let step:
            return (nil, Driver(request: self, source: source, degraded: step))
        }
    }

    /// Starts the driver task; the stream ends (and the driver is cancelled) when the iteration ends.
    fileprivate func start(source: AssetSource, degraded: DegradedStep) -> AsyncStream<Result<ImageRequestEvent, ImageError>> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Result<ImageRequestEvent, ImageError>.self, bufferingPolicy: .unbounded)
        let driver = Task { [self] in
            do throws(ImageError) {
                try await drive(source: source, degraded: degraded) { continuation.yield(.success($0)) }
            } catch {
                continuation.yield(.failure(error))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in driver.cancel() }
        return stream
    }

    private func drive(
        source: AssetSource, degraded: DegradedStep, _ deliver: @escaping @Sendable (ImageRequestEvent) -> Void
    ) async throws(ImageError) {
        let progress: @Sendable (Double) -> Void = { deliver(.progress($0)) }
        if options.deliveryMode == .fastFormat, case .render(let thumbnail) = degraded,
            let fast = try await manager.renderDegraded(thumbnail, source: source, spec: spec)
        {
            deliver(.result(manager.result(fast, source: source, degraded: true)))
            return
        }
        guard options.deliveryMode == .opportunistic, case .render(let thumbnail) = degraded else {
            let final = try await manager.finalResult(
                source: source, spec: spec, options: options, priority: .userInitiated, progress: progress)
            deliver(.result(manager.result(final, source: source, degraded: false)))
            return
        }
        try await driveOpportunistic(source: source, thumbnail: thumbnail, deliver: deliver, progress: progress)
    }

    /// The final render, with the embedded thumbnail rendered beside it and delivered only if it is ready
    /// first; then the final result.
    private func driveOpportunistic(
        source: AssetSource, thumbnail: EmbeddedThumbnail, deliver: @escaping @Sendable (ImageRequestEvent) -> Void,
        progress: @escaping @Sendable (Double) -> Void
    ) async throws(ImageError) {
        let finalReady = FinalFlag()
        let manager = manager, spec = spec, options = options
        // The final result is delivered after the degraded attempt has settled: never before it.
        async let final: Result<RenderOutcome, ImageError> = {
            do throws(ImageError) {
                let outcome = try await manager.finalResult(
                    source: source, spec: spec, options: options, priority: .userInitiated, progress: progress)
                finalReady.set()
                return .success(outcome)
            } catch {
                finalReady.set()
                return .failure(error)
            }
        }()
        if let degraded = try? await manager.renderDegraded(thumbnail, source: source, spec: spec),
            !finalReady.isSet, !Task.isCancelled
        {
            deliver(.result(manager.result(degraded, source: source, degraded: true)))
        }
        let outcome = await final
        deliver(.result(manager.result(try outcome.get(), source: source, degraded: false)))
    }
}

/// Set once the final result of an opportunistic request is ready: a degraded one is then of no use.
private final class FinalFlag: Sendable {
    private let value = Mutex(false)
    var isSet: Bool { value.withLock { $0 } }
    func set() { value.withLock { $0 = true } }
}
