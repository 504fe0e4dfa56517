import Synchronization

/// What one render produced, and where from.
struct RenderOutcome: Sendable {
    let image: RenderedImage
    let source: ImageResultSource
}

/// Concurrent requests for one rendition share one render: the first request starts it, later ones wait
/// for it. A waiter that is cancelled leaves; the render is cancelled when its last waiter leaves, and a
/// request arriving after that starts a new one.
final class InFlightRenders: Sendable {
    private typealias Waiter = CheckedContinuation<Result<RenderOutcome, ImageError>, Never>

    private struct Flight {
        let control: RenderControl
        var job: RenderPool.Job?
        var waiters: [Int: Waiter]
    }

    private let flights = Mutex<[String: Flight]>([:])
    private let nextWaiter = Atomic<Int>(0)
    private let pool: RenderPool

    init(pool: RenderPool) {
        self.pool = pool
    }

    /// Joins the render of `key`, starting it with `work` when none runs.
    ///
    /// - Throws: the render's error; ``ImageError/cancelled`` when the calling task is cancelled.
    func render(
        key: String, priority: RenderPriority, progress: (@Sendable (Double) -> Void)?,
        work: @escaping @Sendable (RenderControl) throws(ImageError) -> RenderOutcome
    ) async throws(ImageError) -> RenderOutcome {
        let waiter = nextWaiter.add(1, ordering: .relaxed).newValue
        let progressRegistration = Mutex<(RenderControl, Int)?>(nil)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: Waiter) in
                let (control, isNew) = join(key: key, waiter: waiter, continuation: continuation)
                if let progress {
                    progressRegistration.withLock { $0 = (control, control.addProgressHandler(progress)) }
                }
                if isNew { start(key: key, control: control, priority: priority, work: work) }
                if Task.isCancelled { leave(key: key, waiter: waiter) }
            }
        } onCancel: {
            leave(key: key, waiter: waiter)
        }
        if let (control, handler) = progressRegistration.withLock({ $0 }) { control.removeProgressHandler(handler) }
        return try result.get()
    }

    private func join(key: String, waiter: Int, continuation: Waiter) -> (RenderControl, Bool) {
        flights.withLock { flights in
            if var flight = flights[key] {
                flight.waiters[waiter] = continuation
                flights[key] = flight
                return (flight.control, false)
            }
            let control = RenderControl()
            flights[key] = Flight(control: control, job: nil, waiters: [waiter: continuation])
            return (control, true)
        }
    }

    private func start(
        key: String, control: RenderControl, priority: RenderPriority,
        work: @escaping @Sendable (RenderControl) throws(ImageError) -> RenderOutcome
    ) {
        let job = pool.submit(
            priority: priority,
            run: { [self] in
                let result: Result<RenderOutcome, ImageError>
                do throws(ImageError) { result = .success(try work(control)) } catch { result = .failure(error) }
                finish(key: key, control: control, result: result)
            },
            abandon: { [self] in finish(key: key, control: control, result: .failure(.cancelled)) })
        flights.withLock { flights in
            if flights[key]?.control === control { flights[key]?.job = job }
        }
    }

    private func finish(key: String, control: RenderControl, result: Result<RenderOutcome, ImageError>) {
        let waiters = flights.withLock { flights -> [Waiter] in
            guard let flight = flights[key], flight.control === control else { return [] }
            flights[key] = nil
            return Array(flight.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: result) }
    }

    private func leave(key: String, waiter: Int) {
        let left = flights.withLock { flights -> (Waiter, Flight?)? in
            guard var flight = flights[key], let continuation = flight.waiters.removeValue(forKey: waiter) else {
                return nil
            }
            if flight.waiters.isEmpty {
                flights[key] = nil
                return (continuation, flight)
            }
            flights[key] = flight
            return (continuation, nil)
        }
        guard let (continuation, abandoned) = left else { return }
        continuation.resume(returning: .failure(.cancelled))
        if let abandoned {
            abandoned.control.cancel()
            if let job = abandoned.job { pool.remove(job) }
        }
    }
}
