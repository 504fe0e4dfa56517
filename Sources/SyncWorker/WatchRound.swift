/// What a watch round knows of the watcher's pending work — what is still pending after it took its own
/// paths, and how far the event stream has been received — and how to ask for more. The engine uses it to
/// leave the still pending paths to their own rounds and to decide how long to hold the files it finds gone
/// (``HeldFiles``).
struct WatchRound: Sendable {
    /// The oldest sequence number among the paths still pending after the round took its own (the event that
    /// made each of them pending); nil when nothing else is pending.
    var pendingFloor: UInt64?
    /// The paths still pending (with whatever is below them): the round neither reads nor judges them, their own
    /// round will.
    var stillPending: Set<String>
    /// The paths the round took, with the sequence number each had.
    var taken: [String: UInt64]
    /// The last marker received from the watcher, with the sequence number of the pending work then.
    var lastMarker: (id: UInt64, sequence: UInt64)?
    /// Asks the watcher for a marker: every event about a change made before the call comes before it.
    var requestMarker: @Sendable () -> UInt64
    /// A barrier (a sync cookie): the round took every pending path, and resolves every held file.
    var isBarrier: Bool
    var now: ContinuousClock.Instant

    /// The sequence number of the path the round took `path` with (itself, or a directory above it); nil when
    /// the round did not take it.
    ///
    /// - Complexity: O(depth) dictionary lookups.
    func sequence(takenWith path: String) -> UInt64? {
        var current = path
        while true {
            if let sequence = taken[current] { return sequence }
            if current.isEmpty { return nil }
            current = FileSystem.parent(of: current)
        }
    }

    /// The round as it is once `retried` — paths it took and could not reconcile (files still being written) —
    /// are pending again with the numbers they had (``WatchQueue/retry(_:of:at:)``): its floor counts them, so
    /// that the files held since they were pending stay held.
    func retrying(_ retried: [String]) -> WatchRound {
        var round = self
        for path in retried {
            guard let sequence = sequence(takenWith: path) else { continue }
            round.pendingFloor = min(round.pendingFloor ?? sequence, sequence)
        }
        return round
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
