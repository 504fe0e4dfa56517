import Dispatch

/// Runs tasks on a dispatch queue of their own instead of the shared cooperative pool, which other tests can
/// keep busy for seconds (the fuzzers, synchronous waits): a task that a change block waits for runs at once,
/// a waiter's wake-up is timed without the pool's queueing, and a callback that blocks on purpose (a test's
/// gate) holds this queue's thread, not one of the pool's.
public final class QueueExecutor: TaskExecutor {
    let queue: DispatchQueue

    public init(label: String = "tests.queue-executor") {
        queue = DispatchQueue(label: label)
    }

    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
