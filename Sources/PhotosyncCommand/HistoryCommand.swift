import ArgumentParser
import Foundation
import PhotoLibrary
import PhotosyncWire

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "List the retained change history, or expire part of it.",
        discussion: """
            Lists the retained transactions, oldest first (sequence number, date, author, and the objects \
            each one inserted, updated and deleted), then the oldest valid token, the current token and the \
            number of transactions kept. --expire-before TOKEN makes TOKEN the oldest valid one; --keep-days N \
            expires what is older than N days; both say how many transactions they removed. Automatic \
            retention always keeps the newest transaction; an explicit expiry may remove every one, and the \
            current token stays valid all the same. Clients holding an expired token get exit code 3 from \
            `photosync changes`.

            Example: photosync history --keep-days 7
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .customLong("expire-before"), help: ArgumentHelp("Expire the history before this token.", valueName: "token"))
    var expireBefore: String?

    @Option(name: .customLong("keep-days"), help: ArgumentHelp("Expire the transactions older than this many days.", valueName: "days"))
    var keepDays: Double?

    @Option(name: .long, help: ArgumentHelp("List at most this many transactions (at least 1; default 100).", valueName: "n"))
    var limit: Int = 100

    func validate() throws {
        if expireBefore != nil && keepDays != nil { throw ValidationError("use --expire-before or --keep-days, not both") }
        if let keepDays, !(keepDays >= 0 && keepDays <= 100_000) { throw ValidationError("--keep-days must be a number of days from 0 to 100000") }
        if limit < 1 { throw ValidationError("--limit must be at least 1 (it was \(limit))") }
    }

    func run() async throws {
        try await reportingFailures(options) { run in
            let token = try expireBefore.map { try TokenArgument.parse($0, option: "--expire-before") }
            let library = try run.openExistingLibrary()
            let expired = try expire(library, before: token)
            let status = try library.historyStatus()
            let result = try library.fetchPersistentChanges(since: status.oldestValidToken, options: .init(limit: limit))
            let history = Wire.History(
                summary: Wire.HistorySummary(status),
                transactions: try result.map { change throws(PhotoLibraryError) in try Wire.Transaction(change, timeZone: library.momentTimeZone) },
                hasMore: result.hasMore, expired: expired)
            if options.json { try Output.json(history) } else { HistoryText.print(history) }
        }
    }

    /// Expires what the options ask for; the number of transactions removed, or nil when not asked.
    private func expire(_ library: PhotoLibrary, before token: ChangeToken?) throws -> Int? {
        guard token != nil || keepDays != nil else { return nil }
        let before = try library.historyStatus().transactionCount
        if let token {
            try library.expireHistory(before: token)
        } else if let keepDays {
            try library.expireHistory(before: Date().addingTimeInterval(-keepDays * 86_400))
        }
        return max(0, before - (try library.historyStatus().transactionCount))
    }
}

/// `photosync history` for people.
enum HistoryText {
    static func print(_ history: Wire.History) {
        if let expired = history.expired { Output.line("expired \(Plural.count(expired, "transaction"))") }
        var rows = [["seq", "date", "author", "assets", "collections", "lists"]]
        for transaction in history.transactions {
            rows.append([
                "\(transaction.seq)", transaction.date.description, transaction.author, counts(transaction.asset),
                counts(transaction.assetCollection), counts(transaction.collectionList),
            ])
        }
        if rows.count > 1 { for line in Output.table(rows) { Output.line(line) } }
        if history.hasMore { Output.line("… more transactions follow (--limit)") }
        let summary = history.summary
        Output.line(summary.transactions == 0
            ? "transactions kept:  0 (every one expired; the current token stays valid)"
            : "transactions kept:  \(summary.transactions) (\(Plural.count(summary.objectChanges, "object change")))")
        Output.line("oldest valid token: \(summary.oldestValidToken)")
        Output.line("current token:      \(summary.currentToken)")
        Output.line("retention:          \(Plural.count(Int(summary.retentionDays), "day")), \(Plural.count(summary.retentionTransactions, "transaction")) (applied automatically; it always keeps the newest transaction)")
    }

    /// `+3 ~1 -0`: inserted, updated, deleted.
    static func counts(_ counts: Wire.Transaction.Counts) -> String {
        counts.total == 0 ? "-" : "+\(counts.inserted) ~\(counts.updated) -\(counts.deleted)"
    }
}
