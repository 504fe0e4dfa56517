import Foundation
import Synchronization

/// How urgent a render is: requests before pre-rendering.
enum RenderPriority: Int, Sendable, Comparable {
    /// Pre-rendering and caching ahead (``CachingImageManager``, ``RenditionPrerenderer``).
    case background = 0
    /// A request someone waits for.
    case userInitiated = 1

    static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// A fixed set of threads that run blocking libvips work, most urgent first, FIFO within a priority.
///
/// libvips calls block (file reads, decoding): they run here, never on Swift's cooperative pool. The
/// number of threads bounds how many renders run at once.
final class RenderPool: Sendable {
    /// One queued piece of work; `run` is called at most once, or `abandon` instead.
    final class Job: Sendable {
        let priority: RenderPriority
        let run: @Sendable () -> Void
        let abandon: @Sendable () -> Void
        fileprivate let sequence: UInt64

        fileprivate init(priority: RenderPriority, sequence: UInt64, run: @escaping @Sendable () -> Void,
                         abandon: @escaping @Sendable () -> Void) {
            self.priority = priority
            self.sequence = sequence
            self.run = run
            self.abandon = abandon
        }
    }

    private struct State {
        var pending: [Job] = []
        var nextSequence: UInt64 = 0
        var stopping = false
    }

    private let state = Mutex(State())
    private let wakeUp: DispatchSemaphore
    let threadCount: Int

    /// Starts `threadCount` threads (at least 1).
    init(threadCount: Int) {
        self.threadCount = max(1, threadCount)
        wakeUp = DispatchSemaphore(value: 0)
        for index in 0..<self.threadCount {
            let thread = Thread { [self] in self.work() }
            thread.name = "photosync.render.\(index)"
            thread.stackSize = 8 << 20
            thread.start()
        }
    }

    /// Stops the threads once the queue is empty; queued jobs are abandoned.
    func shutdown() {
        let abandoned = state.withLock { state -> [Job] in
            state.stopping = true
            defer { state.pending.removeAll() }
            return state.pending
        }
        for job in abandoned { job.abandon() }
        for _ in 0..<threadCount { wakeUp.signal() }
    }

    /// Queues work. Returns the job, for ``remove(_:)``.
    @discardableResult
    func submit(priority: RenderPriority, run: @escaping @Sendable () -> Void, abandon: @escaping @Sendable () -> Void) -> Job {
        let job = state.withLock { state -> Job? in
            guard !state.stopping else { return nil }
            let job = Job(priority: priority, sequence: state.nextSequence, run: run, abandon: abandon)
            state.nextSequence += 1
            // Keep `pending` sorted: higher priority first, then FIFO.
            let index = state.pending.firstIndex { $0.priority < priority } ?? state.pending.endIndex
            state.pending.insert(job, at: index)
            return job
        }
        guard let job else {
            abandon()
            return Job(priority: priority, sequence: 0, run: {}, abandon: {})
        }
        wakeUp.signal()
        return job
    }

    /// Removes a job that has not started; returns whether it was still queued (then `abandon` ran).
    @discardableResult
    func remove(_ job: Job) -> Bool {
        let removed = state.withLock { state -> Bool in
            guard let index = state.pending.firstIndex(where: { $0 === job }) else { return false }
            state.pending.remove(at: index)
            return true
        }
        if removed { job.abandon() }
        return removed
    }

    private func work() {
        while true {
            wakeUp.wait()
            let next = state.withLock { state -> (job: Job?, stop: Bool) in
                if state.pending.isEmpty { return (nil, state.stopping) }
                return (state.pending.removeFirst(), false)
            }
            if next.stop { return }
            next.job?.run()
        }
    }
}
