import Foundation
import Testing

/// Usage errors exit 2 and say what to write.
@Suite struct UsageTests {
    @Test(arguments: [
        ["assets", "--limit", "0"], ["assets", "--limit=-3"], ["changes", "--since", "x", "--limit", "0"],
        ["changes", "--since", "x", "--limit=-1"], ["history", "--limit", "0"],
    ])
    func aLimitBelowOneIsAUsageError(arguments: [String]) throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        try cli.run("import", Photosync.samples.path)
        let result = try cli.run(arguments)
        #expect(result.status == 2, "\(arguments): \(result.stdout)")
        #expect(result.stdout.isEmpty)
        #expect(result.stderr.contains("--limit must be at least 1"), "\(result.stderr)")
    }

    @Test func aValueStartingWithADashSaysHowToWriteIt() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        try cli.run("init")
        let sort = try cli.run("assets", "--sort", "-creationDate")
        #expect(sort.status == 2)
        #expect(sort.stderr.contains("--sort=-creationDate"), "\(sort.stderr)")
        let wait = try cli.run("changes", "--since", try cli.token(), "--wait", "-5")
        #expect(wait.status == 2)
        #expect(wait.stderr.contains("--wait=-5") && wait.stderr.contains("from 0 to 86400"), "\(wait.stderr)")
        // What the message says to write works.
        #expect(try cli.run("assets", "--sort=-creationDate").status == 0)
    }

    @Test func mistypedNamesGetADidYouMean() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        try cli.run("init")
        let command = try cli.run("stauts")
        #expect(command.status == 2)
        #expect(command.stderr.contains("did you mean 'status'?"), "\(command.stderr)")
        let json = try cli.run("--json", "histroy")
        #expect(json.status == 2)
        #expect(try json.errorReport()["error"] as? String == "usage")
        #expect((try json.errorReport()["message"] as? String)?.contains("did you mean 'history'?") == true)
        let option = try cli.run("status", "--jsn")
        #expect(option.status == 2)
        #expect(option.stderr.contains("Did you mean '--json'?"), "\(option.stderr)")
        let key = try cli.run("assets", "--where", "creationDat > \"2024-01-01\"")
        #expect(key.status == 1)
        #expect(key.stderr.contains("did you mean 'creationDate'?"), "\(key.stderr)")
        let sortKey = try cli.run("assets", "--sort=-pixelWidht")
        #expect(sortKey.stderr.contains("did you mean 'pixelWidth'?"), "\(sortKey.stderr)")
    }

    @Test(arguments: LibraryEngine.allCases)
    func aGarbageTokenIsNotAPhotosyncChangeToken(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        try cli.run("init")
        for token in ["garbage", "", String(repeating: "A", count: 55), "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAEABmEB8ZOwV-9tQQQ"] {
            let result = try cli.run("changes", "--since", token)
            #expect(result.status == 4, "\(token)")
            #expect(result.stderr.contains("isn't a photosync change token"), "\(token): \(result.stderr)")
        }
        let history = try cli.run("history", "--expire-before", "garbage")
        #expect(history.status == 4)
        #expect(history.stderr.contains("--expire-before 'garbage' isn't a photosync change token"), "\(history.stderr)")
    }
}
