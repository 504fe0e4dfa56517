import Dispatch
import PostgresNIO
import Synchronization

/// How the synchronous engine waits for postgres-nio, which answers with futures and async functions.
///
/// The library's API is synchronous, so the engine blocks the calling thread until the server answers.
/// It waits on NIO futures (``wait(_:)``), which complete on an event-loop thread: the wait needs no other
/// thread of the caller's, so blocking a thread of Swift's cooperative pool cannot starve the answer.
/// Blocking an event-loop thread would (that loop may be the one that must deliver the answer), so a call
/// from one stops the process with a message saying so, rather than hanging.
///
/// The few async steps (opening: connecting and migrating through ``PostgresStore/open(url:logger:)``) run
/// in a task whose jobs run on a dispatch queue of their own (``BridgeExecutor``), not on the cooperative
/// pool, for the same reason: every cooperative thread may be blocked in a synchronous call.
enum Blocking {
    /// Waits for a future on the calling thread.
    ///
    /// - Throws: what the future fails with.
    static func wait<Value: Sendable>(_ future: EventLoopFuture<Value>) throws -> Value {
        checkNotOnEventLoop()
        return try future.wait()
    }

    /// Stops the process when called on an event-loop thread (a synchronous engine call from a NIO handler
    /// or a future's callback would block the loop that must answer it).
    static func checkNotOnEventLoop() {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            preconditionFailure(
                "a synchronous PostgreSQL engine call ran on an event-loop thread, where it would block the loop "
                    + "that must answer it: call it from another thread (or use PostgresEngine.open's async form)")
        }
    }

    /// Runs an async operation to its end and returns its result, blocking the calling thread.
    ///
    /// - Throws: what the operation throws.
    static func run<Value: Sendable>(_ operation: @escaping @Sendable () async throws -> Value) throws -> Value {
        checkNotOnEventLoop()
        let outcome = Mutex<Result<Value, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Task(executorPreference: BridgeExecutor.shared) {
            let result: Result<Value, any Error>
            do { result = .success(try await operation()) } catch { result = .failure(error) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        return try outcome.withLock { $0! }.get()
    }
}

/// A task executor that runs jobs on a serial dispatch queue of its own: tasks that a blocked thread waits
/// for run here, never needing a thread of the cooperative pool.
final class BridgeExecutor: TaskExecutor {
    static let shared = BridgeExecutor()

    private let queue = DispatchQueue(label: "photosync.postgres.bridge")

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}

extension PostgresConnection {
    /// Closes the connection without waiting, keeping it alive until it is closed (postgres-nio requires a
    /// connection to be closed before it goes): for deinits and broken connections.
    func closeInBackground() {
        let closing: EventLoopFuture<Void> = close()
        closing.whenComplete { _ in withExtendedLifetime(self) {} }
    }
}
