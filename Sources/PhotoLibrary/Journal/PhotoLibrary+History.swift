public import Foundation
import GRDB
import LibraryStorage

/// How long the change history is kept. Applied automatically after commits; see also
/// ``PhotoLibrary/expireHistory(before:)-(ChangeToken)``.
public struct RetentionPolicy: Sendable, Hashable {
    /// Transactions older than this are expired. Default 30 days.
    public var maximumAge: TimeInterval
    /// At most this many transactions are kept. Default 1,000,000.
    public var maximumTransactions: Int

    /// Makes a policy: `maximumAge` in seconds, `maximumTransactions` a count.
    public init(maximumAge: TimeInterval = 30 * 86_400, maximumTransactions: Int = 1_000_000) {
        self.maximumAge = maximumAge
        self.maximumTransactions = maximumTransactions
    }

    /// 30 days and at most 1,000,000 transactions.
    public static let `default` = RetentionPolicy()
}

/// Options of ``PhotoLibrary/fetchPersistentChanges(since:options:)``.
public struct PersistentChangeFetchOptions: Sendable, Hashable {
    /// At most this many changes (transactions) are returned; nil for all.
    public var limit: Int?
    /// Transactions by these authors are skipped (a writer leaving out its own changes). They still move
    /// the result's ``PersistentChangeFetchResult/endToken`` forward.
    public var excludedAuthors: Set<String>
    /// Return one net change for everything since the token, for clients far behind.
    public var coalesced: Bool

    /// Makes options; the defaults return every change since the token, one per transaction, from every author.
    public init(limit: Int? = nil, excludedAuthors: Set<String> = [], coalesced: Bool = false) {
        self.limit = limit
        self.excludedAuthors = excludedAuthors
        self.coalesced = coalesced
    }
}

/// The state of the library at one instant: every identifier and the token of that instant. What a client
/// whose token can no longer be used restarts from (``PhotoLibrary/fetchCurrentState()``).
public struct LibraryState: Sendable {
    /// The token of the instant the identifiers were read: fetch changes since it to keep up from there.
    public let changeToken: ChangeToken
    /// Every asset's identifier, hidden assets included.
    public let assetIdentifiers: Set<String>
    /// Every album's, smart album's and moment's identifier.
    public let assetCollectionIdentifiers: Set<String>
    /// Every folder's and moment year list's identifier.
    public let collectionListIdentifiers: Set<String>

    /// The identifiers of one object type.
    public func identifiers(of type: ObjectType) -> Set<String> {
        switch type {
        case .asset: assetIdentifiers
        case .assetCollection: assetCollectionIdentifiers
        case .collectionList: collectionListIdentifiers
        }
    }
}

/// The retained range of the history.
public struct HistoryStatus: Sendable, Hashable {
    /// The oldest token still accepted.
    public let oldestValidToken: ChangeToken
    /// The current token.
    public let currentToken: ChangeToken
    /// The number of transactions retained.
    public let transactionCount: Int
    /// The number of object changes retained.
    public let recordCount: Int
    /// The policy applied automatically.
    public let retention: RetentionPolicy
}

extension PhotoLibrary {
    // MARK: Tokens

    /// The token of the library's current state: every change committed so far is before it.
    ///
    /// A token is visible only once its transaction is durable.
    public var currentChangeToken: ChangeToken {
        get throws(PhotoLibraryError) {
            try read { db in try journal.currentToken(db) }
        }
    }

    // MARK: Fetching changes

    /// The changes committed after `token`, oldest first: one ``PersistentChange`` per transaction, each with
    /// its own token so a consumer can stop anywhere and resume.
    ///
    /// The result reads lazily, in batches, from one consistent snapshot of the history taken by this call:
    /// memory stays bounded however long the history, and expiry running meanwhile can't cut the result
    /// short. Release the result when done: the snapshot holds a database connection.
    ///
    /// - Throws: ``PhotoLibraryError/persistentChangeTokenExpired(oldestValidToken:)`` (3105) when the token is
    ///   older than the retained history, ``PhotoLibraryError/changeTokenFromAnotherLibrary(tokenLibrary:library:)``,
    ///   ``PhotoLibraryError/changeTokenAheadOfLibrary(tokenSequence:currentSequence:)``. The recovery for all of
    ///   them is ``fetchCurrentState()``.
    /// - Complexity: O(*k*) in the changes read, independent of the history retained.
    public func fetchPersistentChanges(
        since token: ChangeToken, options: PersistentChangeFetchOptions = PersistentChangeFetchOptions()
    ) throws(PhotoLibraryError) -> PersistentChangeFetchResult {
        do {
            // Most reads are short: validate, plan and read them whole in one pooled read transaction.
            let quick = try storage.read { db -> (PersistentChangeFetchResult.Plan, [PersistentChange])? in
                try journal.validate(token, db)
                let plan = try PersistentChangeFetchResult.plan(
                    since: token, current: try journal.currentToken(db), options: options, library: self, db)
                if options.coalesced { return (plan, []) }
                guard plan.end.sequence - token.sequence <= Int64(PersistentChangeFetchResult.batchSize) else { return nil }
                let changes = try PersistentChangeFetchResult.readBatch(
                    after: token.sequence, end: plan.end.sequence, library: self, excludedAuthors: options.excludedAuthors, db)
                return (plan, changes)
            }
            if let (plan, changes) = quick {
                return PersistentChangeFetchResult(library: self, source: .preloaded(changes), plan: plan, options: options)
            }
            // Longer ones read batch by batch from one snapshot, so that expiry can't cut them short.
            let snapshot = try storage.makeSnapshot()
            let plan = try snapshot.read { db -> PersistentChangeFetchResult.Plan in
                try journal.validate(token, db)
                let current = try journal.currentToken(db)
                return try PersistentChangeFetchResult.plan(since: token, current: current, options: options, library: self, db)
            }
            return PersistentChangeFetchResult(library: self, source: .snapshot(snapshot), plan: plan, options: options)
        } catch {
            throw Self.map(error, path: databasePath)
        }
    }

    /// The whole current state and its token, read at one instant: the one call that recovers from every
    /// token error. Continue with ``fetchPersistentChanges(since:options:)`` from `changeToken`.
    ///
    /// - Complexity: O(*n*) in the number of objects.
    public func fetchCurrentState() throws(PhotoLibraryError) -> LibraryState {
        try read { db in
            LibraryState(
                changeToken: try journal.currentToken(db),
                assetIdentifiers: Set(try db.fetchValues(String.self, sql: "SELECT localIdentifier FROM asset")),
                assetCollectionIdentifiers: Set(try db.fetchValues(String.self, sql: "SELECT localIdentifier FROM asset_collection")),
                collectionListIdentifiers: Set(try db.fetchValues(String.self, sql: "SELECT localIdentifier FROM collection_list")))
        }
    }

    // MARK: Waiting

    /// Waits until a change is committed after `token` — by this process or any other — or until `timeout`.
    ///
    /// Returns at once when such a change exists already. There is no busy loop: the wait sleeps until a
    /// commit notification (see the README on how they travel between processes).
    ///
    /// - Parameters:
    ///   - excludedAuthors: changes by these authors don't end the wait.
    /// - Returns: true when changes after `token` exist, false on timeout.
    /// - Throws: the token errors of ``fetchPersistentChanges(since:options:)``; `CancellationError` is not
    ///   thrown: a cancelled wait returns false.
    public func waitForChanges(
        after token: ChangeToken, timeout: Duration, excludedAuthors: Set<String> = []
    ) async throws(PhotoLibraryError) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while true {
            let generation = notifier.generation
            let found = try read { db -> Bool in
                try journal.validate(token, db)
                return try ChangeJournal.hasTransactions(after: token.sequence, excludingAuthors: excludedAuthors, db)
            }
            if found { return true }
            if ContinuousClock.now >= deadline || Task.isCancelled { return false }
            await notifier.wait(afterGeneration: generation, until: deadline)
        }
    }

    // MARK: Expiry

    /// The retention policy in force: the one given when opening, else the one stored in the library.
    public var retentionPolicy: RetentionPolicy {
        get throws(PhotoLibraryError) {
            try read { db in try storedRetention(db) }
        }
    }

    func storedRetention(_ db: any SQLConnection) throws -> RetentionPolicy {
        try ChangeJournal.retention(db, override: retentionOverride)
    }

    /// Stores the retention policy in the library, for every process that opens it, and applies it now.
    public func setRetentionPolicy(_ policy: RetentionPolicy) throws(PhotoLibraryError) {
        do {
            try storage.write { db in
                try ChangeJournal.storeRetention(policy, db)
                try ChangeJournal.applyRetention(db, policy: policy, now: Date().timeIntervalSince1970)
            }
        } catch {
            throw Self.map(error, path: databasePath)
        }
    }

    /// Expires the history before `token`: afterwards `token` is the oldest valid token.
    ///
    /// - Throws: the token errors of ``fetchPersistentChanges(since:options:)``.
    public func expireHistory(before token: ChangeToken) throws(PhotoLibraryError) {
        do {
            try storage.write { db in
                try journal.validate(token, db)
                try ChangeJournal.expire(throughSequence: token.sequence, db)
            }
        } catch {
            throw Self.map(error, path: databasePath)
        }
    }

    /// Expires the transactions committed before `date`.
    public func expireHistory(before date: Date) throws(PhotoLibraryError) {
        do {
            try storage.write { db in
                if let sequence = try ChangeJournal.lastSequence(before: date.timeIntervalSince1970, db) {
                    try ChangeJournal.expire(throughSequence: sequence, db)
                }
            }
        } catch {
            throw Self.map(error, path: databasePath)
        }
    }

    /// The retained range of the history and the policy in force.
    public func historyStatus() throws(PhotoLibraryError) -> HistoryStatus {
        try read { db in
            let counts = try ChangeJournal.counts(db)
            return HistoryStatus(
                oldestValidToken: try journal.floorToken(db), currentToken: try journal.currentToken(db),
                transactionCount: counts.transactions, recordCount: counts.records, retention: try storedRetention(db))
        }
    }

    /// Applies the retention policy every so often, inside the commit's transaction.
    func applyRetentionIfDue(_ db: any SQLConnection, sequence: Int64) throws {
        // Cheap enough to run often; bounded work because it runs often.
        guard sequence % 64 == 0 else { return }
        try ChangeJournal.applyRetention(db, policy: try storedRetention(db), now: Date().timeIntervalSince1970)
    }
}
