import Foundation
import Testing

/// `photosync history`: the retained transactions, and what an expiry removed.
@Suite struct HistoryTests {
    @Test(arguments: LibraryEngine.allCases)
    func historyListsTheRetainedTransactions(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        try cli.run("import", Photosync.samples.appending(path: "Family").path)
        try cli.run("import", Photosync.samples.appending(path: "Holidays").path)
        let history = try cli.run("history", "--json")
        #expect(history.status == 0, "\(history.stderr)")
        let transactions = try #require(try history.json()["transactions"] as? [[String: Any]])
        #expect(transactions.count == 2)
        #expect(transactions.map { $0["seq"] as? Int } == [1, 2])
        #expect(transactions.allSatisfy { $0["author"] as? String == "photosync-import" })
        #expect((transactions[0]["asset"] as? [String: Int])?["inserted"] == 2)
        #expect((transactions[1]["asset"] as? [String: Int])?["inserted"] == 3)
        #expect((transactions[1]["date"] as? String)?.firstMatch(of: /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{3})?(Z|[+-]\d\d:\d\d)$/) != nil)
        let text = try cli.run("history").lines
        #expect(text.first?.hasPrefix("seq") == true, "\(text)")
        #expect(text.contains { $0.hasPrefix("2 ") && $0.contains("photosync-import") && $0.contains("+3 ~0 -0") }, "\(text)")
        #expect(try cli.run("history", "--limit", "1", "--json").json()["hasMore"] as? Bool == true)
    }

    @Test(arguments: LibraryEngine.allCases)
    func anExpirySaysHowManyTransactionsItRemovedAndTheFiguresAgree(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        try cli.run("import", Photosync.samples.appending(path: "Family").path)
        let first = try cli.token()
        try cli.run("import", Photosync.samples.appending(path: "Holidays").path)
        let expired = try cli.run("history", "--expire-before", first, "--json").json()
        #expect(expired["expired"] as? Int == 1)
        let summary = try #require(expired["summary"] as? [String: Any])
        #expect(summary["transactions"] as? Int == 1)
        #expect((expired["transactions"] as? [Any])?.count == 1)
        #expect(summary["oldestValidToken"] as? String == first)
        // Expiring everything: none is kept, the list says so, and the current token still works.
        let current = try cli.token()
        let all = try cli.run("history", "--keep-days", "0")
        #expect(all.status == 0)
        #expect(all.lines.first == "expired 1 transaction", "\(all.stdout)")
        #expect(all.lines.contains("transactions kept:  0 (every one expired; the current token stays valid)"), "\(all.stdout)")
        #expect(!all.lines.contains { $0.hasPrefix("seq") })
        #expect(try cli.run("changes", "--since", current).status == 0)
        #expect(try cli.run("history", "--keep-days", "0", "--json").json()["expired"] as? Int == 0)
    }
}
