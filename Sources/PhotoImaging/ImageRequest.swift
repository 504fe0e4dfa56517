import PhotoLibrary
import Synchronization

/// One image request: an async sequence of ``ImageRequestEvent``s (progress, then results, the final one
/// last), made by ``ImageManager/requestImage(for:targetSize:contentMode:options:)``.
///
/// Nothing runs until the sequence is iterated. Cancelling the iterating task ends the sequence: the
/// render is cancelled and nothing more is delivered. Each iteration makes a new request.
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
        private var stream: AsyncStream<Result<ImageRequestEvent, ImageError>>.Iterator?
        private var finished = false

        init(request: ImageRequest) { self.request = request }

        /// The next event; nil at the end, or once the calling task is cancelled.
        ///
        /// - Throws: the request's ``ImageError``.
        public mutating func next() async throws(ImageError) -> ImageRequestEvent? {
            guard !finished else { return nil }
            if stream == nil { stream = request.start().makeAsyncIterator() }
            // AsyncStream ends its iteration when the calling task is cancelled, and that cancels the driver.
            let element = await stream!.next()
            if Task.isCancelled || element == nil {
                finished = true
                return nil
            }
            switch element! {
            case .success(let event):
                if case .result(let result) = event, !result.isDegraded { finished = true }
                return event
            case .failure(let error):
                finished = true
                if error == .cancelled { return nil }
                throw error
            }
        }
    }

    /// Starts the driver task; the stream ends (and the driver is cancelled) when the iteration ends.
    func start() -> AsyncStream<Result<ImageRequestEvent, ImageError>> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: Result<ImageRequestEvent, ImageError>.self, bufferingPolicy: .unbounded)
        let driver = Task { [self] in
            do throws(ImageError) {
                try await drive { continuation.yield(.success($0)) }
            } catch {
                continuation.yield(.failure(error))
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in driver.cancel() }
        return stream
    }

    private func drive(_ deliver: @escaping @Sendable (ImageRequestEvent) -> Void) async throws(ImageError) {
        let source = try manager.resolveSource(of: asset, version: options.version)
        let progress: @Sendable (Double) -> Void = { deliver(.progress($0)) }
        switch options.deliveryMode {
        case .highQualityFormat:
            let final = try await manager.finalResult(
                source: source, spec: spec, options: options, priority: .userInitiated, progress: progress)
            deliver(.result(manager.result(final, source: source, degraded: false)))
        case .fastFormat:
            if let cached = manager.cachedFinal(source: source, spec: spec, options: options) {
                deliver(.result(manager.result(cached, source: source, degraded: false)))
            } else if let fast = try await manager.degradedResult(source: source, spec: spec, options: options) {
                deliver(.result(manager.result(fast, source: source, degraded: true)))
            } else {
                let final = try await manager.finalResult(
                    source: source, spec: spec, options: options, priority: .userInitiated, progress: progress)
                deliver(.result(manager.result(final, source: source, degraded: false)))
            }
        case .opportunistic:
            try await driveOpportunistic(source: source, deliver: deliver, progress: progress)
        }
    }

    /// A degraded result if it comes before the final one, then the final one.
    private func driveOpportunistic(
        source: AssetSource, deliver: @escaping @Sendable (ImageRequestEvent) -> Void,
        progress: @escaping @Sendable (Double) -> Void
    ) async throws(ImageError) {
        if let cached = manager.cachedFinal(source: source, spec: spec, options: options) {
            deliver(.result(manager.result(cached, source: source, degraded: false)))
            return
        }
        let finalReady = FinalFlag()
        let manager = manager, spec = spec, options = options
        // The final render starts now; the degraded one runs beside it and is delivered only if it is ready
        // first. The final result is delivered after the degraded attempt has settled: never before it.
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
        if let degraded = try? await manager.degradedResult(source: source, spec: spec, options: options),
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
