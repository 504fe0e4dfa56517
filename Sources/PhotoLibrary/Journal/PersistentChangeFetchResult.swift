import Foundation
import GRDB
import LibraryStorage

/// The changes since a token (PhotoKit's `PHPersistentChangeFetchResult`): a lazy sequence of
/// ``PersistentChange``, oldest first.
///
/// It reads from one consistent snapshot of the history, in batches, so memory stays bounded over millions
/// of changes and expiry can't cut it short. It can be iterated more than once. The snapshot holds a
/// database connection (and keeps SQLite from recycling the write-ahead log past it) until the result is
/// released.
///
/// Reading a batch can fail (the database damaged or its disk gone under the running process). Iterating
/// with ``makeThrowingIterator()`` reports that as a typed error; `for … in` can't throw and traps — never
/// does it end early, which would make a client store ``endToken`` past changes it never saw.
public final class PersistentChangeFetchResult: Sequence, Sendable {
    public typealias Element = PersistentChange

    struct Plan: Sendable {
        let since: Int64
        /// The last transaction this result covers (within the limit), returned or skipped.
        let end: ChangeToken
        /// Whether transactions after ``end`` exist.
        let hasMore: Bool
        /// The coalesced change, when asked for.
        let coalesced: PersistentChange?
    }

    /// Transactions read per batch.
    static let batchSize = 256

    private let library: PhotoLibrary
    /// Where batches are read from: one snapshot of the history, or the whole result read up front (when it
    /// fits in one batch, it is read in the same read transaction as the token's validation).
    private let source: Source
    private let plan: Plan
    private let options: PersistentChangeFetchOptions

    enum Source: Sendable {
        case snapshot(any StorageSnapshot)
        case preloaded([PersistentChange])
    }

    init(library: PhotoLibrary, source: Source, plan: Plan, options: PersistentChangeFetchOptions) {
        self.library = library
        self.source = source
        self.plan = plan
        self.options = options
    }

    /// The token to store after consuming this result: just after the last change it covers, including
    /// changes skipped for their author. Equal to the token given when nothing changed.
    public var endToken: ChangeToken { plan.end }

    /// Whether more changes exist after ``endToken`` (the limit cut the result short).
    public var hasMore: Bool { plan.hasMore }

    /// Iterates the changes; traps when a batch can't be read (see ``makeThrowingIterator()``).
    public func makeIterator() -> Iterator {
        Iterator(result: self)
    }

    /// Iterates the changes, throwing when a batch can't be read:
    ///
    /// ```swift
    /// let result = try library.fetchPersistentChanges(since: token)
    /// var changes = result.makeThrowingIterator()
    /// while let change = try changes.next() { … }
    /// store(result.endToken)
    /// ```
    public func makeThrowingIterator() -> ThrowingIterator {
        ThrowingIterator(result: self)
    }

    /// Reads one batch of changes after `sequence`, up to the plan's end.
    fileprivate func batch(after sequence: Int64) throws(PhotoLibraryError) -> [PersistentChange] {
        if options.coalesced {
            return sequence == plan.since ? (plan.coalesced.map { [$0] } ?? []) : []
        }
        let end = plan.end.sequence
        guard sequence < end else { return [] }
        switch source {
        case .preloaded(let changes):
            return sequence == plan.since ? changes : []
        case .snapshot(let snapshot):
            do {
                return try snapshot.read { db in
                    try Self.readBatch(after: sequence, end: end, library: library, excludedAuthors: options.excludedAuthors, db)
                }
            } catch {
                throw PhotoLibrary.map(error, path: library.databasePath)
            }
        }
    }

    /// Reads up to ``batchSize`` transactions after `sequence`, up to `end`, with their net details.
    static func readBatch(
        after sequence: Int64, end: Int64, library: PhotoLibrary, excludedAuthors: Set<String>, _ db: any SQLConnection
    ) throws -> [PersistentChange] {
        let transactions = try ChangeJournal.transactions(after: sequence, through: end, limit: Self.batchSize, db)
        guard let first = transactions.first, let last = transactions.last else { return [] }
        var records: [Int64: NetChangeAccumulator] = [:]
        try ChangeJournal.forEachRecord(from: first.sequence, through: last.sequence, db) { sequence, type, identifier, kind, properties in
            records[sequence, default: NetChangeAccumulator()].add(type, identifier, kind, changedProperties: properties)
        }
        var changes: [PersistentChange] = []
        changes.reserveCapacity(transactions.count)
        for transaction in transactions {
            changes.append(PersistentChange(
                changeToken: transaction.token(library: library.identity), author: transaction.author,
                date: Date(timeIntervalSince1970: transaction.date),
                details: records[transaction.sequence]?.details() ?? [:], skipped: excludedAuthors.contains(transaction.author)))
        }
        return changes
    }

    /// Iterates the changes, reading the next batch when the current one is used up. Traps when a batch
    /// can't be read; ``ThrowingIterator`` throws instead.
    public struct Iterator: IteratorProtocol {
        private var reader: ThrowingIterator

        fileprivate init(result: PersistentChangeFetchResult) {
            reader = ThrowingIterator(result: result)
        }

        public mutating func next() -> PersistentChange? {
            do { return try reader.next() } catch {
                fatalError("photosync: cannot read the change history: \(error) (makeThrowingIterator() reports this as an error)")
            }
        }
    }

    /// Iterates the changes, reading the next batch when the current one is used up, and throwing when it
    /// can't be read. After an error, `next()` tries the same batch again.
    public struct ThrowingIterator {
        private let result: PersistentChangeFetchResult
        private var buffer: [PersistentChange] = []
        private var position = 0
        private var lastSequence: Int64
        private var done = false

        fileprivate init(result: PersistentChangeFetchResult) {
            self.result = result
            self.lastSequence = result.plan.since
        }

        /// The next change, or nil after the last.
        ///
        /// - Throws: a ``PhotoLibraryError`` when the history can't be read.
        public mutating func next() throws(PhotoLibraryError) -> PersistentChange? {
            while !done {
                if position < buffer.count {
                    let change = buffer[position]
                    position += 1
                    if change.skipped { continue }
                    return change
                }
                buffer = try result.batch(after: lastSequence)
                position = 0
                if let last = buffer.last {
                    lastSequence = result.options.coalesced ? result.plan.end.sequence : last.changeToken.sequence
                } else {
                    done = true
                }
            }
            return nil
        }
    }

    // MARK: Planning

    static func plan(
        since token: ChangeToken, current: ChangeToken, options: PersistentChangeFetchOptions,
        library: PhotoLibrary, _ db: any SQLConnection
    ) throws -> Plan {
        let limit = options.limit.map { Swift.max(0, $0) }
        var end = current
        var hasMore = false
        if let limit {
            // The limit counts returned changes; skipped ones move the end but don't count.
            let rows = try ChangeJournal.transactions(
                after: token.sequence, excludingAuthors: options.excludedAuthors, limit: limit + 1, db)
            if rows.count > limit {
                hasMore = true
                if limit == 0 {
                    end = token
                } else {
                    end = rows[limit - 1].token(library: library.identity)
                }
            }
        }
        var coalesced: PersistentChange?
        if options.coalesced && end.sequence > token.sequence {
            var accumulator = NetChangeAccumulator()
            var lastAuthor = ""
            var lastDate = 0.0
            try ChangeJournal.forEachRecordWithAuthor(after: token.sequence, through: end.sequence, db) {
                type, identifier, kind, properties, author, date in
                guard !options.excludedAuthors.contains(author) else { return }
                accumulator.add(type, identifier, kind, changedProperties: properties)
                lastAuthor = author
                lastDate = date
            }
            let details = accumulator.details()
            if !details.isEmpty {
                coalesced = PersistentChange(
                    changeToken: end, author: lastAuthor, date: Date(timeIntervalSince1970: lastDate),
                    details: details, skipped: false)
            }
        }
        return Plan(since: token.sequence, end: end, hasMore: hasMore, coalesced: coalesced)
    }
}
