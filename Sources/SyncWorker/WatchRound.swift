/// What a watch round knows of the watcher's pending work: which event it has seen up to, and what is still
/// pending after it took its own paths. The engine uses it to leave the still pending paths to their own rounds
/// and to decide how long to hold the files it finds gone (``HeldFiles``).
struct WatchRound: Sendable {
    /// The sequence number of the last event the round's snapshot of the pending work took into account.
    var horizon: UInt64
    /// The oldest sequence number among the paths still pending after the round took its own (the event that
    /// made each of them pending); nil when nothing else is pending.
    var pendingFloor: UInt64?
    /// The paths still pending (with whatever is below them): the round neither reads nor judges them, their own
    /// round will.
    var stillPending: Set<String>
    /// A barrier (a sync cookie): the round took every pending path, and resolves every held file.
    var isBarrier: Bool
    var now: ContinuousClock.Instant

    /// A round of nothing: pending work unchanged, for releasing held files when no path settled.
    init(
        horizon: UInt64, pendingFloor: UInt64?, stillPending: Set<String>, isBarrier: Bool,
        now: ContinuousClock.Instant = .now
    ) {
        self.horizon = horizon
        self.pendingFloor = pendingFloor
        self.stillPending = stillPending
        self.isBarrier = isBarrier
        self.now = now
    }

    /// Whether `path` is still pending, itself or through a directory above it.
    ///
    /// - Complexity: O(depth) set lookups.
    func isPending(_ path: String) -> Bool {
        guard !stillPending.isEmpty else { return false }
        var current = path
        while true {
            if stillPending.contains(current) { return true }
            if current.isEmpty { return false }
            current = FileSystem.parent(of: current)
        }
    }
}
