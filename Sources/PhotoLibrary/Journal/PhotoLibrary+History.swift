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
            try read { db in try currentToken(db) }
        }
    }

    func currentToken(_ db: any SQLConnection) throws -> ChangeToken {
        var last: JournalTransaction?
        try db.forEachRow(
            sql: "SELECT \(JournalTransaction.columns) FROM change_transaction ORDER BY seq DESC LIMIT 1", arguments: [],
            cached: true
        ) { columns in
            last = JournalTransaction(columns: columns)
            return false
        }
        if let last { return last.token(library: identity) }
        return try floorToken(db)
    }

    func floorToken(_ db: any SQLConnection) throws -> ChangeToken {
        var token = ChangeToken(libraryIdentity: identity, sequence: 0, stamp: 0)
        try db.forEachRow(sql: "SELECT floor, floorStamp FROM change_journal WHERE id = 1", arguments: [], cached: true) { columns in
            token = ChangeToken(libraryIdentity: identity, sequence: columns.int64(0), stamp: columns.int64(1))
            return false
        }
        return token
    }

    /// Checks that a token can be used with this library's history, inside the read that will use it.
    func validate(_ token: ChangeToken, _ db: any SQLConnection) throws {
        guard token.libraryIdentity == identity else {
            throw PhotoLibraryError.changeTokenFromAnotherLibrary(tokenLibrary: token.libraryIdentity, library: identity)
        }
        let current = try currentToken(db)
        guard token.sequence <= current.sequence else {
            throw PhotoLibraryError.changeTokenAheadOfLibrary(tokenSequence: token.sequence, currentSequence: current.sequence)
        }
        let floor = try floorToken(db)
        guard token.sequence >= floor.sequence else {
            throw PhotoLibraryError.persistentChangeTokenExpired(oldestValidToken: floor)
        }
        // The token must name the transaction this library has at that position: a library restored from a
        // backup and changed since has a different transaction there.
        if token.sequence > 0 {
            let stamp: Int64?
            if token.sequence == floor.sequence {
                stamp = floor.stamp
            } else {
                stamp = try db.fetchValue(
                    Int64.self, sql: "SELECT stamp FROM change_transaction WHERE seq = ?", arguments: [token.sequence], cached: true)
            }
            if let stamp, stamp != token.stamp {
                throw PhotoLibraryError.changeTokenAheadOfLibrary(tokenSequence: token.sequence, currentSequence: current.sequence)
            }
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
                try validate(token, db)
                let plan = try PersistentChangeFetchResult.plan(
                    since: token, current: try currentToken(db), options: options, library: self, db)
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
                try validate(token, db)
                let current = try currentToken(db)
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
                changeToken: try currentToken(db),
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
                try validate(token, db)
                if excludedAuthors.isEmpty {
                    return try db.fetchValue(
                        Bool.self, sql: "SELECT EXISTS (SELECT 1 FROM change_transaction WHERE seq > ?)", arguments: [token.sequence]
                    ) ?? false
                }
                let authors = Array(excludedAuthors)
                let placeholders = Array(repeating: "?", count: authors.count).joined(separator: ",")
                return try db.fetchValue(
                    Bool.self, sql: "SELECT EXISTS (SELECT 1 FROM change_transaction WHERE seq > ? AND author NOT IN (\(placeholders)))",
                    arguments: StatementArguments([token.sequence]) + StatementArguments(authors)) ?? false
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
        try Self.retention(db, override: retentionOverride)
    }

    /// Stores the retention policy in the library, for every process that opens it, and applies it now.
    public func setRetentionPolicy(_ policy: RetentionPolicy) throws(PhotoLibraryError) {
        do {
            try storage.write { db in
                try db.execute(
                    sql: "UPDATE change_journal SET retentionDays = ?, retentionCount = ? WHERE id = 1",
                    arguments: [policy.maximumAge / 86_400, policy.maximumTransactions])
                try Self.applyRetention(db, policy: policy, now: Date().timeIntervalSince1970)
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
                try validate(token, db)
                try Self.expire(throughSequence: token.sequence, db)
            }
        } catch {
            throw Self.map(error, path: databasePath)
        }
    }

    /// Expires the transactions committed before `date`.
    public func expireHistory(before date: Date) throws(PhotoLibraryError) {
        do {
            try storage.write { db in
                let sequence = try db.fetchValue(
                    Int64.self, sql: "SELECT max(seq) FROM change_transaction WHERE date < ?", arguments: [date.timeIntervalSince1970])
                if let sequence { try Self.expire(throughSequence: sequence, db) }
            }
        } catch {
            throw Self.map(error, path: databasePath)
        }
    }

    /// The retained range of the history and the policy in force.
    public func historyStatus() throws(PhotoLibraryError) -> HistoryStatus {
        try read { db in
            HistoryStatus(
                oldestValidToken: try floorToken(db), currentToken: try currentToken(db),
                transactionCount: try db.fetchValue(Int.self, sql: "SELECT count(*) FROM change_transaction") ?? 0,
                recordCount: try db.fetchValue(Int.self, sql: "SELECT count(*) FROM change_record") ?? 0,
                retention: try storedRetention(db))
        }
    }

    /// Deletes the transactions up to and including `sequence` and raises the floor. Inside a write.
    static func expire(throughSequence sequence: Int64, _ db: any SQLConnection) throws {
        let floor = try db.fetchValue(Int64.self, sql: "SELECT floor FROM change_journal WHERE id = 1") ?? 0
        guard sequence > floor else { return }
        guard let stamp = try db.fetchValue(
            Int64.self, sql: "SELECT stamp FROM change_transaction WHERE seq = ?", arguments: [sequence])
        else { return }
        try db.execute(sql: "DELETE FROM change_record WHERE seq <= ?", arguments: [sequence])
        try db.execute(sql: "DELETE FROM change_transaction WHERE seq <= ?", arguments: [sequence])
        try db.execute(
            sql: "UPDATE change_journal SET floor = ?, floorStamp = ? WHERE id = 1",
            arguments: [sequence, stamp])
    }

    /// Applies the retention policy. Inside a write.
    static func applyRetention(_ db: any SQLConnection, policy: RetentionPolicy, now: Double) throws {
        guard let last = try db.fetchValue(Int64.self, sql: "SELECT max(seq) FROM change_transaction") else { return }
        var through: Int64 = 0
        if policy.maximumTransactions >= 0 {
            through = max(through, last - Int64(policy.maximumTransactions))
        }
        if let old = try db.fetchValue(
            Int64.self, sql: "SELECT max(seq) FROM change_transaction WHERE date < ?", arguments: [now - policy.maximumAge])
        {
            through = max(through, old)
        }
        // The newest transaction is always kept: the current token stays a transaction of the history.
        through = min(through, last - 1)
        if through > 0 {
            // Expire one existing transaction boundary (sequence numbers can have gaps after expiry).
            if let boundary = try db.fetchValue(
                Int64.self, sql: "SELECT max(seq) FROM change_transaction WHERE seq <= ?", arguments: [through])
            {
                try Self.expire(throughSequence: boundary, db)
            }
        }
    }

    /// Applies the retention policy every so often, inside the commit's transaction.
    func applyRetentionIfDue(_ db: any SQLConnection, sequence: Int64) throws {
        // Cheap enough to run often; bounded work because it runs often.
        guard sequence % 64 == 0 else { return }
        try Self.applyRetention(db, policy: try storedRetention(db), now: Date().timeIntervalSince1970)
    }

    /// The policy stored in the library (or given when opening), for use before `self` exists.
    static func retention(_ db: any SQLConnection, override: RetentionPolicy?) throws -> RetentionPolicy {
        if let override { return override }
        let row = try db.fetchRow(sql: "SELECT retentionDays, retentionCount FROM change_journal WHERE id = 1")
        return RetentionPolicy(
            maximumAge: (row?["retentionDays"] as Double? ?? 30) * 86_400,
            maximumTransactions: row?["retentionCount"] ?? 1_000_000)
    }
}
