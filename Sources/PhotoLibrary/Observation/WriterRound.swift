/// Which delivery rounds run on the writer's connection, right after its commits.
///
/// SQLite drops a connection's whole page cache at its first read after another connection committed: a
/// round on a connection of its own reads every page it needs again, one system call each — most of the
/// cost of a round that touches a few assets of a large fetch. The writer's cache survives its own commits,
/// and holds the pages the commit just wrote: the journal's records and the touched rows. So a round whose
/// work is small and bounded reads there, holding the writer (this process's other writes wait) for about as
/// long as the work takes; any other round reads on its own connection, as a round always did.
///
/// A round is admitted when it is small (at most ``recordLimit`` journal records), every tracked result it
/// describes is followed incrementally (fetching again holds the writer for the whole fetch), and none lags
/// more than ``lagLimit`` transactions behind the round (its records would be read again from the journal).
/// A result whose incremental update turns out to be impossible (too many touched assets, history pruned)
/// declines the round after the fact: it is read again on the round reader.
///
/// SQLite only (``ObservationCenter`` asks the engine's dialect): a server engine's pages are cached by the
/// server for every connection alike, so a round gains nothing on the writer there and would only hold it.
enum WriterRound {
    /// The most journal records a round read on the writer may have.
    static let recordLimit = 256
    /// The most transactions a tracked result may lag behind the round's end.
    static let lagLimit: Int64 = 64

    /// Thrown inside a round on the writer that must be read on the round reader instead.
    struct Declined: Error {}

    /// Whether a round of `journal` describing `results` may be read on the writer. O(*r*) for *r* results.
    static func admits(_ journal: RoundJournal, results: [any TrackedFetchResult], maintainsIncrementally: Bool) -> Bool {
        guard journal.recorded.records.count <= recordLimit else { return false }
        for result in results where result.chain.requery != nil {
            let from = result.followedFrom
            guard from < journal.end else { continue }
            guard maintainsIncrementally, result.chain.incremental != nil, journal.end - from <= lagLimit else {
                return false
            }
        }
        return true
    }
}
