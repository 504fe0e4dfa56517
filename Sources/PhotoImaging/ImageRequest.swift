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
        let gate = DeliveryGate()
        let manager = manager, spec = spec, options = options
        let outcome: Result<Void, ImageError> = await withTaskGroup(of: Result<Void, ImageError>.self) { group in
            group.addTask {
                if let degraded = try? await manager.degradedResult(source: source, spec: spec, options: options) {
                    gate.deliverDegraded(manager.result(degraded, source: source, degraded: true), deliver)
                }
                return .success(())
            }
            group.addTask {
                do throws(ImageError) {
                    let final = try await manager.finalResult(
                        source: source, spec: spec, options: options, priority: .userInitiated, progress: progress)
                    gate.deliverFinal(manager.result(final, source: source, degraded: false), deliver)
                    return .success(())
                } catch {
                    return .failure(error)
                }
            }
            var outcome: Result<Void, ImageError> = .success(())
            for await result in group {
                if case .failure = result {
                    outcome = result
                    group.cancelAll()
                } else if gate.isFinalDelivered {
                    group.cancelAll()  // The degraded render, if it still runs, is of no use now.
                }
            }
            return outcome
        }
        try outcome.get()
    }
}

/// Serialises the degraded and final deliveries of an opportunistic request: a degraded result is never
/// delivered after the final one.
private final class DeliveryGate: Sendable {
    private let finalDelivered = Mutex(false)

    var isFinalDelivered: Bool { finalDelivered.withLock { $0 } }

    func deliverDegraded(_ result: ImageResult, _ deliver: @Sendable (ImageRequestEvent) -> Void) {
        finalDelivered.withLock { done in
            if !done { deliver(.result(result)) }
        }
    }

    func deliverFinal(_ result: ImageResult, _ deliver: @Sendable (ImageRequestEvent) -> Void) {
        finalDelivered.withLock { done in
            done = true
            deliver(.result(result))
        }
    }
}
