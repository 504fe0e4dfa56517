import Synchronization

extension RenderPool {
    /// Runs blocking work on the pool and waits for it. Cancelling the calling task cancels `control` and
    /// removes the work if it has not started.
    ///
    /// - Throws: the work's error, or ``ImageError/cancelled``.
    func perform<T: Sendable>(
        priority: RenderPriority, control: RenderControl,
        _ work: @escaping @Sendable () throws(ImageError) -> T
    ) async throws(ImageError) -> T {
        let submitted = Mutex<Job?>(nil)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, ImageError>, Never>) in
                let resumed = Atomic<Bool>(false)
                let resume: @Sendable (Result<T, ImageError>) -> Void = { result in
                    if !resumed.exchange(true, ordering: .acquiringAndReleasing) { continuation.resume(returning: result) }
                }
                let job = submit(
                    priority: priority,
                    run: {
                        do throws(ImageError) { resume(.success(try work())) } catch { resume(.failure(error)) }
                    },
                    abandon: { resume(.failure(.cancelled)) })
                submitted.withLock { $0 = job }
                if Task.isCancelled { control.cancel() }
            }
        } onCancel: {
            control.cancel()
            if let job = submitted.withLock({ $0 }) { remove(job) }
        }
        return try result.get()
    }
}
