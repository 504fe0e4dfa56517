import Synchronization

/// How far each state of a followed fetch is known to stay as it is, so that a result no transaction changes
/// moves on with the rounds.
///
/// A fetch result's journal position is fixed, and a round that finds it unchanged gives no details: the
/// application keeps it (as with PhotoKit). Every later round would follow it from its own position again,
/// reading ever more records, and leave the writer after ``WriterRound/lagLimit`` transactions, or fetch it
/// again once those records touch more assets than the incremental path follows: an application keeping a
/// small fetch (its favourites) open while a scan commits thousands of transactions would pay for that fetch
/// at each of them. Instead, a round that follows the state at position *s* through its end *e* and finds it
/// unchanged (an empty diff: no member touched, none in or out) records *s* → *e*, and later rounds follow
/// that state from *e*: the records in between changed nothing in it.
///
/// Bounded: the states of the newest ``capacity`` positions (a chain's live results are few).
final class UnchangedStates: Sendable {
    /// The most states remembered.
    static var capacity: Int { 16 }

    private let through = Mutex<[Int64: Int64]>([:])

    /// The position the state at `sequence` is followed from: the furthest it is known unchanged through, else
    /// `sequence` itself. O(1).
    func start(of sequence: Int64) -> Int64 {
        through.withLock { $0[sequence] } ?? sequence
    }

    /// Records that the state at `sequence` is unchanged through `end` (a later end than known, else nothing).
    ///
    /// - Complexity: O(1); O(``capacity``) when the oldest state is dropped.
    func record(_ sequence: Int64, through end: Int64) {
        through.withLock { through in
            guard end > (through[sequence] ?? sequence) else { return }
            through[sequence] = end
            if through.count > Self.capacity, let oldest = through.keys.min() { through.removeValue(forKey: oldest) }
        }
    }
}

extension TrackedFetchResult {
    /// The journal position a round follows this result from: its own, or a later one through which it is
    /// known unchanged (see ``UnchangedStates``).
    var followedFrom: Int64 { chain.unchanged.start(of: sequence) }
}
