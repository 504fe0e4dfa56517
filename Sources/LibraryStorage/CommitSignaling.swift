/// A storage engine that carries commit hints between the processes sharing a library — across machines,
/// where a file in the library's directory can't be watched (PostgreSQL's `LISTEN`/`NOTIFY`).
///
/// A hint says only "a transaction committed; look again". Subscribers re-check the database, so a hint
/// that arrives twice, late, or for a commit they have already seen costs a read, never a wrong answer;
/// and where a hint may have been lost (the subscription's connection broke), the subscription signals
/// once when it is back, for the same re-check.
///
/// ```swift
/// let subscription = engine.subscribeToCommitSignals { wakeWaiters() }   // in place when it returns
/// try engine.write { db in
///     try insertThings(db)
///     try engine.publishCommitSignal(in: db)   // delivered when this transaction commits
/// }
/// subscription.cancel()
/// ```
public protocol CommitSignaling: Sendable {
    /// Publishes a commit hint from inside the write transaction `db` runs: subscribers of every process
    /// (this engine's own excepted — its process knows) receive it when the transaction commits, and never
    /// when it rolls back.
    ///
    /// - Throws: the engine's error (the transaction should then roll back, like after any failed statement).
    func publishCommitSignal(in db: any SQLConnection) throws

    /// Starts receiving the hints that other engines' commits publish (those of this engine excluded).
    ///
    /// When this returns, the subscription is in place, or its first attempt failed: a commit published
    /// after the return reaches `onSignal`, so a caller that subscribes, then checks the database, then
    /// waits for a signal misses no commit. A subscription that was not in place, or that broke (the
    /// server restarted, the connection was killed), reconnects with backoff in the background and calls
    /// `onSignal` once when it is in place again, since hints may have been missed meanwhile.
    ///
    /// `onSignal` runs on a thread of the engine's, one call at a time; it must return quickly and never
    /// block (no engine call in it).
    ///
    /// Blocks the calling thread until the first attempt ended (at most the engine's connection timeout).
    func subscribeToCommitSignals(_ onSignal: @escaping @Sendable () -> Void) -> any CommitSignalSubscription
}

/// A subscription to commit hints (``CommitSignaling/subscribeToCommitSignals(_:)``): it holds a connection
/// of its own until cancelled.
public protocol CommitSignalSubscription: Sendable {
    /// Stops the subscription and closes its connection, without waiting; `onSignal` is not called after
    /// the subscription's connection is closed. Cancelling twice does nothing more.
    func cancel()
}
