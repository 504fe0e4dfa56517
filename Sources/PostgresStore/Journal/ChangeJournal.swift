public import Foundation
import Logging
public import PostgresNIO

/// The change journal of a PostgreSQL store: appends inside the writer's transaction, ranges read after a
/// token, the head, the floor and expiry.
///
/// ## Tokens never skip
///
/// PostgreSQL draws a sequence value when a row is inserted, not when its transaction commits: if
/// transaction A draws 10 and B draws 11 and commits first, a reader could hand out 11, store it as its
/// token, and never see 10. Appends are therefore serialised: ``append(author:date:records:on:)`` takes a
/// transaction-scoped advisory lock (``appendLockKey``) *before* drawing its number and holds it until its
/// transaction ends. A writer draws 11 only after the holder of 10 has committed (and is visible: PostgreSQL
/// releases locks after a commit becomes visible) or aborted (10 is then a gap nobody waits for). So every
/// snapshot sees a prefix of the sequence numbers, and `WHERE seq > token` misses nothing.
///
/// The price: journaled commits are serialised from their append to their commit. Appending last, just
/// before `COMMIT`, keeps that window to the commit itself. (The alternative, handing out only changes below
/// the oldest running transaction's id, lets any long transaction — even one that never journals — hold
/// back every reader, and is only correct if each writer's transaction id is assigned before its sequence
/// number: see `Schema/postgres/README.md`.)
///
/// Committed appends also `NOTIFY` ``notificationChannel``, a hint for ``waitForChanges(after:timeout:)``.
public struct ChangeJournal: Sendable {
    /// The advisory lock that serialises appends (`'journal!'` as a 64-bit integer).
    public static let appendLockKey: Int64 = 0x6a6f_7572_6e61_6c21
    /// The channel a committed append notifies, with its sequence number as the payload.
    public static let notificationChannel = "photosync_journal"

    let store: PostgresStore

    /// The journal of a store.
    public init(store: PostgresStore) {
        self.store = store
    }

    /// Appends a transaction to the journal, on a connection inside the writer's open transaction: it
    /// becomes visible when, and only if, that transaction commits.
    ///
    /// Call it last before `COMMIT`: from here to the end of the transaction, other appends wait.
    ///
    /// - Returns: The sequence number and the stamp of the new entry.
    /// - Throws: a server error (the writer's transaction should then roll back).
    @discardableResult
    public static func append(
        author: String, date: Double, records: [JournalRecord], on connection: PostgresConnection,
        logger: Logger = Logger(label: "photosync.postgres")
    ) async throws -> (sequence: Int64, stamp: Int64) {
        let stamp = Int64((date * 1_000_000).rounded())
        try await connection.query("SELECT pg_advisory_xact_lock(\(appendLockKey))", logger: logger)
        let rows = try await connection.query(
            "INSERT INTO change_transaction (author, date, stamp) VALUES (\(author), \(date), \(stamp)) RETURNING seq",
            logger: logger
        ).collect()
        guard let sequence = try rows.first?.decode(Int64.self) else {
            throw PostgresStoreError.server(sqlState: "P0002", message: "INSERT … RETURNING seq returned no row")
        }
        if !records.isEmpty { try await insert(records, sequence: sequence, on: connection, logger: logger) }
        try await connection.query("SELECT pg_notify(\(notificationChannel), \(String(sequence)))", logger: logger)
        return (sequence, stamp)
    }

    private static func insert(
        _ records: [JournalRecord], sequence: Int64, on connection: PostgresConnection, logger: Logger
    ) async throws {
        let previous = records.map { $0.previousValues.map { $0.map { String(format: "%02x", $0) }.joined() } ?? "" }
        try await connection.query(
            """
            INSERT INTO change_record (seq, objectType, objectId, localIdentifier, kind, changedProperties,
                                       contentChanged, previousValues)
            SELECT \(sequence), t, o, l, k, p, c, CASE WHEN h THEN decode(v, 'hex') END
            FROM unnest(\(records.map(\.objectType)), \(records.map(\.objectId)), \(records.map(\.localIdentifier)),
                        \(records.map(\.kind)), \(records.map(\.changedProperties)),
                        \(records.map { Int16($0.contentChanged ? 1 : 0) }), \(records.map { $0.previousValues != nil }),
                        \(previous)) AS r(t, o, l, k, p, c, h, v)
            """, logger: logger)
    }

    /// The entries after `sequence`, oldest first, read from one snapshot together with the floor.
    ///
    /// - Parameters:
    ///   - sequence: The token: the last sequence number the reader has seen (0 before the first).
    ///   - limit: The most entries to return.
    /// - Throws: ``PostgresStoreError/changeTokenExpired(floor:)`` when `sequence` is below the floor,
    ///   ``PostgresStoreError/changeTokenAhead(sequence:head:)`` when it is past the head, or a connection
    ///   or server error.
    /// - Complexity: two indexed range reads: O(log n + k) for k entries and their records.
    public func entries(after sequence: Int64, limit: Int = 256) async throws -> JournalRange {
        try await store.withTransaction(isolation: "REPEATABLE READ READ ONLY") { connection in
            let (floor, head) = try await Self.bounds(connection, logger: store.logger)
            if sequence < floor { throw PostgresStoreError.changeTokenExpired(floor: floor) }
            if sequence > head { throw PostgresStoreError.changeTokenAhead(sequence: sequence, head: head) }
            let entries = try await Self.read(after: sequence, limit: limit, connection, logger: store.logger)
            return JournalRange(entries: entries, head: head, next: entries.last?.sequence ?? sequence)
        }
    }

    /// The newest sequence number handed out (the floor when every entry has expired; 0 for a new journal).
    public func head() async throws -> Int64 {
        try await store.withConnection { connection in try await Self.bounds(connection, logger: store.logger).head }
    }

    /// The floor: the oldest token still valid, and its stamp.
    public func floor() async throws -> (sequence: Int64, stamp: Int64) {
        try await store.withConnection { connection in
            let rows = try await connection.query("SELECT floor, floorStamp FROM change_journal WHERE id = 1", logger: store.logger)
                .collect()
            return try rows.first?.decode((Int64, Int64).self) ?? (0, 0)
        }
    }

    /// Deletes the entries up to and including `sequence` and raises the floor to the last of them. A
    /// reader in the middle of a range keeps its snapshot; its next read after an expired token throws
    /// ``PostgresStoreError/changeTokenExpired(floor:)``.
    ///
    /// - Returns: The new floor (unchanged when nothing at or below `sequence` remained).
    @discardableResult
    public func expire(through sequence: Int64) async throws -> Int64 {
        try await store.withTransaction { connection in
            let rows = try await connection.query(
                "SELECT seq, stamp FROM change_transaction WHERE seq <= \(sequence) ORDER BY seq DESC LIMIT 1",
                logger: store.logger
            ).collect()
            guard let (boundary, stamp) = try rows.first?.decode((Int64, Int64).self) else {
                return try await Self.bounds(connection, logger: store.logger).floor
            }
            try await connection.query("DELETE FROM change_transaction WHERE seq <= \(boundary)", logger: store.logger)
            try await connection.query(
                """
                UPDATE change_journal SET floor = \(boundary), floorStamp = \(stamp) WHERE id = 1 AND floor < \(boundary)
                """, logger: store.logger)
            return try await Self.bounds(connection, logger: store.logger).floor
        }
    }

    /// Expires what the retention policy no longer keeps: entries older than `maximumAge` seconds before
    /// `now`, and the oldest beyond the newest `maximumCount`.
    ///
    /// - Returns: The new floor.
    @discardableResult
    public func applyRetention(maximumAge: Double, maximumCount: Int64, now: Double = Date().timeIntervalSince1970)
        async throws -> Int64
    {
        let through = try await store.withConnection { connection in
            let rows = try await connection.query(
                """
                SELECT GREATEST(
                    (SELECT max(seq) FROM change_transaction WHERE date < \(now - maximumAge)),
                    (SELECT seq FROM change_transaction ORDER BY seq DESC OFFSET \(maximumCount) LIMIT 1))
                """, logger: store.logger
            ).collect()
            return try rows.first?.decode(Int64?.self)
        }
        guard let through else { return try await floor().sequence }
        return try await expire(through: through)
    }

    // MARK: Reading

    static func bounds(_ connection: PostgresConnection, logger: Logger) async throws -> (floor: Int64, head: Int64) {
        let rows = try await connection.query(
            """
            SELECT j.floor, GREATEST(j.floor, coalesce((SELECT max(seq) FROM change_transaction), 0))
            FROM change_journal j WHERE j.id = 1
            """, logger: logger
        ).collect()
        return try rows.first?.decode((Int64, Int64).self) ?? (0, 0)
    }

    static func read(after sequence: Int64, limit: Int, _ connection: PostgresConnection, logger: Logger) async throws
        -> [JournalEntry]
    {
        let transactions = try await connection.query(
            "SELECT seq, author, date, stamp FROM change_transaction WHERE seq > \(sequence) ORDER BY seq LIMIT \(limit)",
            logger: logger
        ).collect().map { try $0.decode((Int64, String, Double, Int64).self) }
        guard let first = transactions.first?.0, let last = transactions.last?.0 else { return [] }
        var records: [Int64: [JournalRecord]] = [:]
        let rows = try await connection.query(
            """
            SELECT seq, objectType, objectId, localIdentifier, kind, changedProperties, contentChanged, previousValues
            FROM change_record WHERE seq BETWEEN \(first) AND \(last) ORDER BY seq, objectType, objectId
            """, logger: logger)
        for try await row in rows {
            let (seq, type, id, identifier, kind, properties, content, previous) = try row.decode(
                (Int64, Int16, Int64, String, Int16, Int64, Int16, ByteBuffer?).self)
            records[seq, default: []].append(
                JournalRecord(
                    objectType: type, objectId: id, localIdentifier: identifier, kind: kind, changedProperties: properties,
                    contentChanged: content == 1, previousValues: previous.map { Array($0.readableBytesView) }))
        }
        return transactions.map { seq, author, date, stamp in
            JournalEntry(sequence: seq, author: author, date: date, stamp: stamp, records: records[seq] ?? [])
        }
    }
}
