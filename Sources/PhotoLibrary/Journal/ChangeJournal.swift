import Foundation
import GRDB
import LibraryStorage

/// The library's change journal, and the one owner of its tables: every statement of the library that reads
/// or writes `change_transaction` (one row per committed block), `change_record` (one row per object a block
/// changed) or `change_journal` (the floor and the stored retention) is here.
///
/// - This file: the head (the last sequence number, the current token), the floor (the oldest valid token)
///   and the checks a token passes before it is used.
/// - `ChangeJournal+Append.swift`: what a commit appends, inside its write transaction.
/// - `ChangeJournal+Ranges.swift`: the transactions and records after a position, for the history's readers,
///   the delivery rounds and fetches that rebuild objects as they were.
/// - `ChangeJournal+Expiry.swift`: retention, expiry and the floor it raises.
///
/// Every function runs inside a transaction its caller opened (`db`): the journal opens none. Functions
/// that work in sequence numbers (positions) are static; those that make tokens need the library's
/// identity, which an instance carries (``PhotoLibrary/journal``).
///
/// Several functions are the hot paths of commits and delivery rounds: they keep their statements cached,
/// and on SQLite's fast path bind and read through the C API (``RawQuery``).
struct ChangeJournal: Sendable {
    /// The identity of the library whose journal this is: the one its tokens carry.
    let identity: UUID

    // MARK: The head

    /// The journal's last sequence number (0 before the first commit): the position of a read.
    ///
    /// - Throws: the engine's error.
    /// - Complexity: one cached statement (through SQLite's C API on its fast path: every delivery round
    ///   starts with it).
    static func lastSequence(_ db: any SQLConnection) throws -> Int64 {
        if let sqlite = db.sqliteDatabase {
            return try RawQuery(sqlite, "SELECT seq FROM sqlite_sequence WHERE name = 'change_transaction'").int64() ?? 0
        }
        switch db.dialect {
        case .sqlite:
            return try db.fetchValue(
                Int64.self, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'change_transaction'", cached: true) ?? 0
        case .postgres:
            // The identity's sequence runs ahead of commits; the last committed transaction, or the floor once
            // expiry deleted it, is the position.
            return try db.fetchValue(
                Int64.self,
                sql: """
                    SELECT greatest(coalesce((SELECT max(seq) FROM change_transaction), 0),
                                    (SELECT floor FROM change_journal WHERE id = 1))
                    """,
                cached: true) ?? 0
        }
    }

    /// The token of the last committed transaction; the floor's when expiry left none.
    ///
    /// - Throws: the engine's error.
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

    /// Whether transactions after `sequence` exist, leaving out those by `excludedAuthors`.
    ///
    /// - Throws: the engine's error.
    static func hasTransactions(
        after sequence: Int64, excludingAuthors excludedAuthors: Set<String>, _ db: any SQLConnection
    ) throws -> Bool {
        let filter = authorFilter(excluding: excludedAuthors)
        return try db.fetchValue(
            Bool.self, sql: "SELECT EXISTS (SELECT 1 FROM change_transaction WHERE seq > ?\(filter.sql))",
            arguments: StatementArguments([sequence]) + filter.arguments) ?? false
    }

    /// The condition that leaves out transactions by `authors` (` AND author NOT IN (?, …)`, or nothing when
    /// there are none), with its arguments, for a statement on `change_transaction`.
    static func authorFilter(excluding authors: Set<String>) -> (sql: String, arguments: StatementArguments) {
        guard !authors.isEmpty else { return ("", []) }
        let placeholders = Array(repeating: "?", count: authors.count).joined(separator: ",")
        return (" AND author NOT IN (\(placeholders))", StatementArguments(Array(authors)))
    }

    /// The number of transactions and of object changes retained.
    ///
    /// - Throws: the engine's error.
    /// - Complexity: O(*n*) in the journal's rows (two counts).
    static func counts(_ db: any SQLConnection) throws -> (transactions: Int, records: Int) {
        (try db.fetchValue(Int.self, sql: "SELECT count(*) FROM change_transaction") ?? 0,
         try db.fetchValue(Int.self, sql: "SELECT count(*) FROM change_record") ?? 0)
    }

    // MARK: The floor

    /// The oldest valid token: the last transaction expiry deleted (sequence 0 before any expiry).
    ///
    /// - Throws: the engine's error.
    func floorToken(_ db: any SQLConnection) throws -> ChangeToken {
        var token = ChangeToken(libraryIdentity: identity, sequence: 0, stamp: 0)
        try db.forEachRow(sql: "SELECT floor, floorStamp FROM change_journal WHERE id = 1", arguments: [], cached: true) { columns in
            token = ChangeToken(libraryIdentity: identity, sequence: columns.int64(0), stamp: columns.int64(1))
            return false
        }
        return token
    }

    // MARK: Tokens

    /// Checks that a token can be used with this journal, inside the read that will use it.
    ///
    /// - Throws: ``PhotoLibraryError/changeTokenFromAnotherLibrary(tokenLibrary:library:)``,
    ///   ``PhotoLibraryError/changeTokenAheadOfLibrary(tokenSequence:currentSequence:)`` (past the head, or
    ///   naming a transaction this journal doesn't have: a library restored from a backup and changed since),
    ///   ``PhotoLibraryError/persistentChangeTokenExpired(oldestValidToken:)`` (below the floor); the engine's
    ///   error.
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
}

extension PhotoLibrary {
    /// The library's change journal (a value: making it costs nothing).
    var journal: ChangeJournal { ChangeJournal(identity: identity) }
}
