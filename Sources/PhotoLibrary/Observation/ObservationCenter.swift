import Foundation
import GRDB
import LibraryStorage
import Synchronization

/// Delivers committed transactions to observers and async streams, in commit order.
///
/// It wakes on every commit notification (see ``CommitNotifier``), reads the transactions committed since
/// its last delivery and, in the same read, the state of every live fetch result it tracks (held weakly:
/// every fetch result the library makes), so that ``Change/changeDetails(for:)-(FetchResult<Object>)`` can
/// describe it however long the observer takes. Nothing is read while no one observes.
///
/// Rounds run on one serial queue and hand their changes, in order, to every stream and to each observer's
/// inbox; one task per observer takes them from its inbox and awaits each call before the next, so an
/// observer (an actor, too) gets every transaction once, in commit order, one at a time.
final class ObservationCenter: Sendable {
    private struct WeakObserver {
        weak var observer: (any PhotoLibraryChangeObserver)?
        /// Which registration this is: a delivery task ends when its own is gone (unregistered, or replaced
        /// after the observer was released and another object took its identifier).
        let registration: UInt64
        let inbox: AsyncStream<Change>.Continuation
    }

    private struct WeakResult {
        weak var result: (any TrackedFetchResult)?
    }

    private struct State {
        var observers: [ObjectIdentifier: WeakObserver] = [:]
        var streams: [UInt64: AsyncStream<Change>.Continuation] = [:]
        /// Every tracked result, once each (a result is tracked when it is made), in the order tracked: a list,
        /// not a table by identity, so that a round's sweep hashes nothing.
        var results: [WeakResult] = []
        var nextStreamID: UInt64 = 0
        var delivered: Int64?
        var listener: UInt64?
        var trackedSinceSweep = 0

        /// Removes the entries of released results, in place (a round typically finds one: the result its last
        /// details replaced), and returns the live results.
        ///
        /// - Complexity: O(*r*) for *r* tracked results, without copying the list.
        @discardableResult
        mutating func sweepResults() -> [any TrackedFetchResult] {
            var live: [any TrackedFetchResult] = []
            live.reserveCapacity(results.count)
            results.removeAll { entry in
                guard let result = entry.result else { return true }
                live.append(result)
                return false
            }
            trackedSinceSweep = 0
            return live
        }
    }

    private let state = Mutex(State())
    private let queue = DispatchQueue(label: "photosync.observation")
    /// The largest share of a fetch result that may change with `hasIncrementalChanges` still true.
    let incrementalLimit: Double
    /// Whether fetch results that allow it are followed incrementally (``IncrementalFetch``); when false every
    /// result is fetched again and diffed. Tests and benchmarks compare the two.
    let maintainsIncrementally = Atomic<Bool>(true)
    /// The engine rounds read from.
    private let storage: any StorageEngine
    private let identity: UUID
    private let notifier: CommitNotifier
    /// The records of this handle's commits, handed to the rounds in memory (see ``JournalHandOff``).
    let handOff = JournalHandOff()

    init(storage: any StorageEngine, identity: UUID, notifier: CommitNotifier, incrementalLimit: Double) {
        self.storage = storage
        self.identity = identity
        self.notifier = notifier
        self.incrementalLimit = incrementalLimit
    }

    // MARK: Registration

    /// Tracks a fetch result (weakly) so that changes can describe it; once, when the result is made. Returns it.
    @discardableResult
    func track<Object>(_ result: FetchResult<Object>) -> FetchResult<Object> {
        state.withLock { state in
            state.results.append(WeakResult(result: result))
            state.trackedSinceSweep += 1
            if state.trackedSinceSweep > 256 { state.sweepResults() }
        }
        return result
    }

    /// How many results are tracked: those alive and those released since the last sweep (tests check that the
    /// released ones are dropped).
    var trackedCount: Int { state.withLock { $0.results.count } }

    /// Registers an observer (weakly) and starts its delivery task. Registering it again changes nothing.
    func register(_ observer: any PhotoLibraryChangeObserver) throws {
        try startIfNeeded()
        let key = ObjectIdentifier(observer)
        let (changes, inbox) = AsyncStream<Change>.makeStream(bufferingPolicy: .unbounded)
        let (registration, replaced) = state.withLock { state -> (UInt64?, WeakObserver?) in
            if state.observers[key]?.observer != nil { return (nil, nil) }
            state.nextStreamID += 1
            let replaced = state.observers.updateValue(
                WeakObserver(observer: observer, registration: state.nextStreamID, inbox: inbox), forKey: key)
            return (state.nextStreamID, replaced)
        }
        replaced?.inbox.finish()
        guard let registration else { return inbox.finish() }
        Task.detached { [weak self] in
            for await change in changes {
                guard let observer = self?.observer(key, registration: registration) else { return }
                await observer.photoLibraryDidChange(change)
            }
        }
    }

    /// The observer of a registration, while it is registered and alive.
    private func observer(_ key: ObjectIdentifier, registration: UInt64) -> (any PhotoLibraryChangeObserver)? {
        state.withLock { state in
            guard let entry = state.observers[key], entry.registration == registration else { return nil }
            return entry.observer
        }
    }

    func unregister(_ observer: any PhotoLibraryChangeObserver) {
        state.withLock { $0.observers.removeValue(forKey: ObjectIdentifier(observer)) }?.inbox.finish()
    }

    func stream() throws -> AsyncStream<Change> {
        try startIfNeeded()
        let (stream, continuation) = AsyncStream<Change>.makeStream(bufferingPolicy: .unbounded)
        let id = state.withLock { state -> UInt64 in
            state.nextStreamID += 1
            state.streams[state.nextStreamID] = continuation
            return state.nextStreamID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.streams.removeValue(forKey: id) }
        }
        return stream
    }

    /// Starts listening for commits, from the current position of the journal.
    private func startIfNeeded() throws {
        guard state.withLock({ $0.delivered == nil }) else { return }
        let current = try storage.read { db in try ChangeJournal.lastSequence(db) }
        let start = state.withLock { state -> Bool in
            guard state.delivered == nil else { return false }
            state.delivered = current
            return true
        }
        guard start else { return }
        let id = notifier.addListener { [weak self] in
            guard let self else { return }
            self.queue.async { self.deliver() }
        }
        state.withLock { $0.listener = id }
    }

    deinit {
        if let id = state.withLock({ $0.listener }) { notifier.removeListener(id) }
        state.withLock { state in
            for continuation in state.streams.values { continuation.finish() }
            for entry in state.observers.values { entry.inbox.finish() }
        }
    }

    // MARK: Delivery

    /// Where delivery rounds read when the writer's connection doesn't take them (see ``WriterRound``).
    private enum RoundReader {
        /// SQLite with its fast paths: a read-only connection of the rounds' own. SQLite drops a connection's
        /// page cache at its first read after another connection's commit — every round's first read — and
        /// the cost follows the pages cached: on the pool's readers, those of every object the application
        /// loaded since. This one only caches what rounds read.
        case sqlite(DatabaseQueue)
        /// Any other engine (or SQLite without its fast paths): the engine's reads.
        case engine
    }

    /// The round reader, chosen (and on SQLite opened) on first use.
    private let deliveryReader = Mutex<RoundReader?>(nil)

    private func roundReader() throws -> RoundReader {
        try deliveryReader.withLock { reader in
            if let reader { return reader }
            let chosen: RoundReader
            if let engine = storage as? SQLiteEngine, try storage.read({ $0.sqliteDatabase != nil }) {
                var configuration = engine.pool.configuration
                configuration.readonly = true
                configuration.label = "photosync.observation"
                chosen = .sqlite(try DatabaseQueue(path: engine.pool.path, configuration: configuration))
            } else {
                chosen = .engine
            }
            reader = chosen
            return chosen
        }
    }

    /// Runs `body` in a read transaction of `db`, a SQLite connection. On the fast path the transaction is begun
    /// and ended by statements prepared once (GRDB's `read` prepares both every time, a tenth of the cost of
    /// a round that touches little).
    private static func inReadTransaction<T>(_ db: any SQLConnection, _ body: (any SQLConnection) throws -> T) throws -> T {
        precondition(db.dialect == .sqlite, "a round begins its own transaction on SQLite only")
        let statement: (String) throws -> Void
        if let sqlite = db.sqliteDatabase {
            statement = { sql in try RawQuery(sqlite, sql).forEachRow { _ in } }
        } else {
            statement = { sql in try db.execute(sql: sql) }
        }
        try statement("BEGIN DEFERRED TRANSACTION")
        defer {
            // A read transaction: nothing to keep or lose. Should COMMIT fail, ROLLBACK ends it.
            if (try? statement("COMMIT TRANSACTION")) == nil { try? statement("ROLLBACK TRANSACTION") }
        }
        return try body(db)
    }

    /// Reads the round after `delivered`: from memory when it can (``readRoundInMemory(after:)``), on the
    /// writer's connection when ``WriterRound`` admits it, else on the round reader.
    private func readRound(after delivered: Int64) throws -> [Change] {
        // From memory first, without the writer: a round of this handle's own commits needs no connection.
        if let changes = try readRoundInMemory(after: delivered) { return changes }
        if let changes = try readRoundOnWriter(after: delivered) { return changes }
        switch try roundReader() {
        case .sqlite(let reader):
            return try reader.inDatabase { db in
                // A transaction left open (a failed COMMIT and ROLLBACK) would read an old snapshot: end it first.
                if db.isInsideTransaction { try RawQuery(db, "ROLLBACK TRANSACTION").forEachRow { _ in } }
                return try Self.inReadTransaction(db) { db in try readRound(after: delivered, results: liveResults(), onWriter: false, db) }
            }
        case .engine:
            return try storage.read { db in try readRound(after: delivered, results: liveResults(), onWriter: false, db) }
        }
    }

    /// The round after `delivered` read on the writer's connection, whose page cache its own commits keep
    /// (see ``WriterRound``); nil when the round isn't admitted there. This process's writes wait meanwhile.
    /// SQLite only: the writer of a server engine has no cache of its own.
    private func readRoundOnWriter(after delivered: Int64) throws -> [Change]? {
        guard storage.dialect == .sqlite, maintainsIncrementally.load(ordering: .relaxed) else { return nil }
        return try storage.writeWithoutTransaction { db -> [Change]? in
            // The writer is never left inside a transaction between writes; should it be, it isn't ours to end
            // (without the fast path, where that can't be asked, BEGIN fails inside a transaction).
            if let sqlite = db.sqliteDatabase, sqlite.isInsideTransaction { return nil }
            // From memory again: a commit of this handle's may have been under way when it was first tried.
            if let changes = try readRoundInMemory(after: delivered) { return changes }
            do {
                let changes = try Self.inReadTransaction(db) { db in
                    try readRound(after: delivered, results: liveResults(), onWriter: true, db)
                }
                roundsReadOnWriter.add(1, ordering: .relaxed)
                return changes
            } catch is WriterRound.Declined {
                return nil
            }
        }
    }

    /// How many rounds were read without the round reader: on the writer's connection or from memory (tests
    /// check which connection rounds take).
    let roundsReadOnWriter = Atomic<Int>(0)
    /// How many of those were read from memory alone (``readRoundInMemory(after:)``).
    let roundsReadInMemory = Atomic<Int>(0)

    /// The round after `delivered` from this handle's hand-off alone, without a read transaction: when the
    /// wal-index header (``JournalHandOff/currentWALHeader()``) is still the one the newest handed-off commit
    /// left (nothing committed since, by any connection), that commit is the journal's end and every
    /// transaction after `delivered` is held. The tracked results are followed with a connection that declines
    /// the round at its first read (only rounds whose touched rows were handed off need none). Nil when the
    /// round isn't read this way. SQLite only.
    ///
    /// It reads nothing from the database, so it runs on any thread, even while this handle commits: the
    /// header is read before the hand-off's newest commit, so a commit that lands in between leaves them
    /// different (nil), and one that lands after leaves a round that ends before it, as a snapshot would.
    ///
    /// Starting even an empty read transaction costs a round after a commit as much as the rest of it: the
    /// commit leaves SQLite's code and the wal-index cold, and the transaction's locks are system calls. So
    /// does going through the writer's queue.
    private func readRoundInMemory(after delivered: Int64) throws -> [Change]? {
        guard storage.dialect == .sqlite, maintainsIncrementally.load(ordering: .relaxed), let header = handOff.currentWALHeader(),
            let journal = RoundJournal(memoryAfter: delivered, handOff: handOff, current: header)
        else { return nil }
        if journal.transactions.isEmpty { return [] }
        do {
            let changes = try readRound(journal, results: liveResults(), onWriter: true, MemoryOnlyConnection())
            roundsReadOnWriter.add(1, ordering: .relaxed)
            roundsReadInMemory.add(1, ordering: .relaxed)
            return changes
        } catch is WriterRound.Declined {
            return nil
        }
    }

    /// The transactions committed after `sequence`, read as a delivery round reads them (with the details of
    /// every live tracked fetch result) but handed to no one. For tests and benchmarks; not from inside a
    /// change block (a round may read on the writer).
    func readChanges(after sequence: Int64) throws -> [Change] {
        try readRound(after: sequence)
    }

    /// The tracked results still alive; the entries of released ones are dropped on the way.
    private func liveResults() -> [any TrackedFetchResult] {
        state.withLock { $0.sweepResults() }
    }

    /// Reads what was committed since the last delivery and hands it out. Runs on `queue`.
    private func deliver() {
        let (delivered, hasAudience) = state.withLock { state in
            (state.delivered ?? 0, !state.observers.isEmpty || !state.streams.isEmpty)
        }
        guard hasAudience else { return }
        let changes: [Change]
        do {
            changes = try readRound(after: delivered)
        } catch {
            return  // The database can't be read now; the next notification (or re-check) retries.
        }
        guard let last = changes.last else { return }
        let (inboxes, released, streams) = state.withLock { state in
            state.delivered = last.changeToken.sequence
            let released = state.observers.filter { $0.value.observer == nil }
            state.observers = state.observers.filter { $0.value.observer != nil }
            return (state.observers.values.map(\.inbox), released.values.map(\.inbox), Array(state.streams.values))
        }
        for inbox in released { inbox.finish() }
        for change in changes {
            for inbox in inboxes { inbox.yield(change) }
            for stream in streams { stream.yield(change) }
        }
    }

    /// Reads what was committed after `delivered`, with the details of every result of `results` that the
    /// round changes; empty when nothing was. On the writer, throws ``WriterRound/Declined`` for a round it
    /// doesn't admit.
    private func readRound(after delivered: Int64, results: [any TrackedFetchResult], onWriter: Bool, _ db: any SQLConnection) throws -> [Change] {
        guard let journal = try RoundJournal(after: delivered, handOff: handOff, db) else { return [] }
        return try readRound(journal, results: results, onWriter: onWriter, db)
    }

    /// The round of `journal`: its changes, the last with the details of every result of `results` that the
    /// round changes. On the writer, throws ``WriterRound/Declined`` for a round it doesn't admit.
    private func readRound(_ journal: RoundJournal, results: [any TrackedFetchResult], onWriter: Bool, _ db: any SQLConnection) throws -> [Change] {
        guard let last = journal.transactions.last else { return [] }
        let maintains = maintainsIncrementally.load(ordering: .relaxed)
        if onWriter, !WriterRound.admits(journal, results: results, maintainsIncrementally: maintains) { throw WriterRound.Declined() }
        let context = try deliveryContext(journal, results: results, onWriter: onWriter, db)
        return journal.transactions.map { transaction in
            Change(
                changeToken: transaction.token(library: identity),
                author: transaction.author, date: Date(timeIntervalSince1970: transaction.date),
                context: transaction.sequence == last.sequence ? context : nil)
        }
    }

    /// What the round's last change needs to describe every tracked result and touched object as they are at
    /// `end`.
    /// On the writer, throws ``WriterRound/Declined`` when a result would have to be fetched again.
    private func deliveryContext(
        _ journal: RoundJournal, results: [any TrackedFetchResult], onWriter: Bool, _ db: any SQLConnection
    ) throws -> DeliveryContext {
        let end = journal.end
        let (incremental, followed, oldest) = try followResults(results, round: journal, db)
        if onWriter, !oldest.isEmpty { throw WriterRound.Declined() }
        var updates: [ObjectIdentifier: DeliveryContext.ChainUpdate] = [:]
        // A fetch that can be followed incrementally keeps its sort values when it has to be fetched again (a
        // round touching too many assets), so that the next round is followed in memory again.
        let maintains = maintainsIncrementally.load(ordering: .relaxed)
        for (id, entry) in oldest {
            updates[id] = DeliveryContext.ChainUpdate(
                // The requery takes GRDB's connection until the fetches move behind the storage boundary.
                after: try entry.chain.requery!(db, maintains && entry.chain.incremental != nil),
                updates: try updatedKeys(entry.chain.keyKind, after: entry.sequence, round: journal, db))
        }
        for (id, entry) in followed where updates[id] == nil {
            updates[id] = DeliveryContext.ChainUpdate(
                after: entry.after, updates: try updatedKeys(entry.chain.keyKind, after: entry.sequence, round: journal, db))
        }
        // The objects the round touched: what the journal says of them. Their state at the end of the round is
        // read when asked for (``Change/changeDetails(for:)-(Object)``), rebuilt from the journal like a fetch
        // result's objects, so that a delivery costs nothing for objects no one asks about.
        return DeliveryContext(
            sequence: end, chains: updates, incremental: incremental, objects: TouchedObjects(records: journal.recorded.records),
            incrementalLimit: incrementalLimit,
            storage: storage, center: self)
    }

    /// The tracked results' fetches at `end`: those followed incrementally (once per state: chain and sequence),
    /// with the end state of their chains, and the oldest state of every other chain, to fetch again.
    private func followResults(_ results: [any TrackedFetchResult], round: RoundJournal, _ db: any SQLConnection) throws -> (
        incremental: [DeliveryContext.ResultState: IncrementalUpdate],
        followed: [ObjectIdentifier: (chain: FetchChain, sequence: Int64, after: FetchResultKeyList)],
        oldest: [ObjectIdentifier: (chain: FetchChain, sequence: Int64)]
    ) {
        var incremental: [DeliveryContext.ResultState: IncrementalUpdate] = [:]
        var unmaintainable: Set<DeliveryContext.ResultState> = []
        let maintains = maintainsIncrementally.load(ordering: .relaxed)
        // The state of every other tracked fetch at the end of the round, once per chain of results.
        var oldest: [ObjectIdentifier: (chain: FetchChain, sequence: Int64)] = [:]
        // Chains followed incrementally: their end state, for a result of theirs made after this round was
        // read (a successor produced by an earlier round's details, once this round is already read).
        var followed: [ObjectIdentifier: (chain: FetchChain, sequence: Int64, after: FetchResultKeyList)] = [:]
        for result in results where result.chain.requery != nil {
            // A result known unchanged through the round has nothing to describe; one known unchanged through an
            // earlier position is followed from there (see ``UnchangedStates``).
            let from = result.followedFrom
            guard from < round.end else { continue }
            let id = ObjectIdentifier(result.chain)
            if maintains, let fetch = result.chain.incremental {
                let state = DeliveryContext.ResultState(chain: id, sequence: result.sequence)
                var update = incremental[state]
                if update == nil, !unmaintainable.contains(state) {
                    update = try fetch.update(result.keyList, from: from, round: round, db)
                    if let update { incremental[state] = update } else { unmaintainable.insert(state) }
                    if let update, update.diff.isEmpty { result.chain.unchanged.record(result.sequence, through: round.end) }
                }
                if let update {
                    followed[id] = (result.chain, min(followed[id]?.sequence ?? .max, from), update.after)
                    continue
                }
            }
            oldest[id] = (result.chain, min(oldest[id]?.sequence ?? .max, from))
        }
        return (incremental, followed, oldest)
    }

    /// The keys of objects whose public properties changed after `start`, up to the round's end, with the
    /// sequence of each change: from the records the round read when it read them all (`start` is not before
    /// the round's), else from the journal.
    private func updatedKeys(_ kind: FetchResultKeyKind, after start: Int64, round: RoundJournal, _ db: any SQLConnection) throws -> [(
        sequence: Int64, key: Int64
    )] {
        let end = round.end
        if start >= round.start {
            let records = round.records(after: start, through: end)
            var keys: [(sequence: Int64, key: Int64)] = []
            keys.reserveCapacity(records.count)
            for record in records where record.kind == .updated {
                switch (kind, record.objectType) {
                case (.asset, .asset), (.assetCollection, .assetCollection), (.collectionList, .collectionList):
                    keys.append((record.sequence, record.objectID))
                case (.mixed, .assetCollection): keys.append((record.sequence, record.objectID << 1))
                case (.mixed, .collectionList): keys.append((record.sequence, record.objectID << 1 | 1))
                default: break
                }
            }
            return keys
        }
        func updated(_ type: ObjectType, _ transform: (Int64) -> Int64) throws -> [(sequence: Int64, key: Int64)] {
            var keys: [(sequence: Int64, key: Int64)] = []
            try ChangeJournal.forEachUpdate(of: type, after: start, through: end, db) { sequence, objectID in
                keys.append((sequence: sequence, key: transform(objectID)))
            }
            return keys
        }
        switch kind {
        case .asset: return try updated(.asset) { $0 }
        case .assetCollection: return try updated(.assetCollection) { $0 }
        case .collectionList: return try updated(.collectionList) { $0 }
        case .mixed: return try updated(.assetCollection) { $0 << 1 } + updated(.collectionList) { $0 << 1 | 1 }
        }
    }
}
