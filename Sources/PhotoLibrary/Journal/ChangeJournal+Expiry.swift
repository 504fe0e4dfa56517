import Foundation
import GRDB
import LibraryStorage

extension ChangeJournal {
    // MARK: Retention

    /// The retention policy stored in the library (`override` when given: the one the library was opened with).
    ///
    /// - Throws: the engine's error.
    static func retention(_ db: any SQLConnection, override: RetentionPolicy?) throws -> RetentionPolicy {
        if let override { return override }
        let row = try db.fetchRow(sql: "SELECT retentionDays, retentionCount FROM change_journal WHERE id = 1")
        return RetentionPolicy(
            maximumAge: (row?["retentionDays"] as Double? ?? 30) * 86_400,
            maximumTransactions: row?["retentionCount"] ?? 1_000_000)
    }

    /// Stores `policy` in the library, for every process that opens it. Inside a write; it doesn't apply it.
    ///
    /// - Throws: the engine's error.
    static func storeRetention(_ policy: RetentionPolicy, _ db: any SQLConnection) throws {
        try db.execute(
            sql: "UPDATE change_journal SET retentionDays = ?, retentionCount = ? WHERE id = 1",
            arguments: [policy.maximumAge / 86_400, policy.maximumTransactions])
    }

    /// Applies a retention policy: expires what is older than its age or beyond its count, always keeping the
    /// newest transaction (the current token stays a transaction of the history). Inside a write.
    ///
    /// - Throws: the engine's error.
    static func applyRetention(_ db: any SQLConnection, policy: RetentionPolicy, now: Double) throws {
        guard let last = try db.fetchValue(Int64.self, sql: "SELECT max(seq) FROM change_transaction") else { return }
        var through: Int64 = 0
        if policy.maximumTransactions >= 0 {
            through = max(through, last - Int64(policy.maximumTransactions))
        }
        if let old = try lastSequence(before: now - policy.maximumAge, db) {
            through = max(through, old)
        }
        through = min(through, last - 1)
        if through > 0 {
            // Expire one existing transaction boundary (sequence numbers can have gaps after expiry).
            if let boundary = try db.fetchValue(
                Int64.self, sql: "SELECT max(seq) FROM change_transaction WHERE seq <= ?", arguments: [through])
            {
                try expire(throughSequence: boundary, db)
            }
        }
    }

    // MARK: Expiry

    /// The last transaction committed before `date` (seconds since 1970), if any is retained.
    ///
    /// - Throws: the engine's error.
    static func lastSequence(before date: Double, _ db: any SQLConnection) throws -> Int64? {
        try db.fetchValue(Int64.self, sql: "SELECT max(seq) FROM change_transaction WHERE date < ?", arguments: [date])
    }

    /// Deletes the transactions up to and including `sequence`, with their records, and raises the floor to
    /// it: its token becomes the oldest valid one. Nothing happens when `sequence` is not above the floor or
    /// names no retained transaction. Inside a write.
    ///
    /// - Throws: the engine's error.
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
}
