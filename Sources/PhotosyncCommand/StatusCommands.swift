import ArgumentParser
import Foundation
import PhotoLibrary

struct HistoryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "history",
        abstract: "Show the retained change history, or expire part of it.",
        discussion: """
            Without options, prints the oldest valid token, the current token and the number of transactions \
            kept. --expire-before TOKEN makes TOKEN the oldest valid one; --keep-days N expires what is older \
            than N days. Clients holding an expired token get exit code 3 from `photosync changes`.

            Example: photosync history --keep-days 7
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .customLong("expire-before"), help: ArgumentHelp("Expire the history before this token.", valueName: "token"))
    var expireBefore: String?

    @Option(name: .customLong("keep-days"), help: ArgumentHelp("Expire the transactions older than this many days.", valueName: "days"))
    var keepDays: Double?

    func validate() throws {
        if expireBefore != nil && keepDays != nil { throw ValidationError("use --expire-before or --keep-days, not both") }
        if let keepDays, !(keepDays >= 0) { throw ValidationError("--keep-days must be a number of days ≥ 0") }
    }

    func run() async throws {
        try await reportingFailures(options) {
            let library = try options.openLibrary(create: false)
            if let expireBefore {
                try library.expireHistory(before: try ChangeToken(string: expireBefore))
            } else if let keepDays {
                try library.expireHistory(before: Date().addingTimeInterval(-keepDays * 86_400))
            }
            let status = try library.historyStatus()
            if options.json {
                printJSON(HistoryJSON.object(status))
            } else {
                print("oldest valid token: \(status.oldestValidToken.stringValue)")
                print("current token:      \(status.currentToken.stringValue)")
                print("transactions kept:  \(status.transactionCount) (\(status.recordCount) object changes)")
                print("retention:          \(Int(status.retention.maximumAge / 86_400)) days, \(status.retention.maximumTransactions) transactions")
            }
        }
    }
}

enum HistoryJSON {
    static func object(_ status: HistoryStatus) -> [String: Any] {
        [
            "oldestValidToken": status.oldestValidToken.stringValue, "currentToken": status.currentToken.stringValue,
            "transactions": status.transactionCount, "objectChanges": status.recordCount,
            "retentionDays": status.retention.maximumAge / 86_400, "retentionTransactions": status.retention.maximumTransactions,
        ]
    }
}

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the library holds and the range of its change history.",
        discussion: "Example: photosync status --json")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) {
            let library = try options.openLibrary(create: false)
            let all = FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)
            let counts: [String: Int] = [
                "assets": try library.fetchAssets(options: all).count,
                "albums": try library.fetchAssetCollections(with: .album).count,
                "moments": try library.fetchMoments().count,
                "folders": try library.fetchTopLevelUserCollections().count,
            ]
            let history = try library.historyStatus()
            if options.json {
                printJSON(["library": library.url.path, "identity": library.identity.uuidString, "counts": counts,
                           "history": HistoryJSON.object(history)] as [String: Any])
            } else {
                print("library \(library.identity.uuidString) at \(library.url.path)")
                for key in counts.keys.sorted() { print("  \(key): \(counts[key]!)") }
                print("history: \(history.transactionCount) transactions kept; oldest valid token \(history.oldestValidToken.stringValue)")
                print("current token: \(history.currentToken.stringValue)")
            }
        }
    }
}

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one asset by its identifier.",
        discussion: "Example: photosync show 8A5D595F-EBBF-43EF-9BC0-E0196F23FCA8/L0/001 --json")

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The asset's local identifier.", valueName: "id"))
    var identifier: String

    func run() async throws {
        try await reportingFailures(options) {
            let library = try options.openLibrary(create: false)
            guard let asset = try library.fetchAssets(withLocalIdentifiers: [identifier]).firstObject else {
                throw CommandFailure(code: 1, name: "notFound", message: "no asset with identifier \(identifier)")
            }
            let object = AssetJSON.object(asset)
            if options.json {
                printJSON(object)
            } else {
                for key in object.keys.sorted() { print("\(key): \(object[key]!)") }
            }
        }
    }
}

struct DuplicatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "duplicates",
        abstract: "List assets whose content is identical (the same XXH3-128), group by group.",
        discussion: "Example: photosync duplicates --json")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) {
            let library = try options.openLibrary(create: false)
            let assets = try library.fetchAssets(options: FetchOptions(
                predicate: "contentHash != nil", sortDescriptors: [FetchSort(key: "contentHash")],
                includeHiddenAssets: true, includeAllBurstAssets: true))
            var groups: [(hash: String, assets: [Asset])] = []
            for asset in assets {
                guard let hash = asset.contentHash else { continue }
                if groups.last?.hash == hash { groups[groups.count - 1].assets.append(asset) } else { groups.append((hash, [asset])) }
            }
            for group in groups where group.assets.count > 1 {
                if options.json {
                    printJSON(["contentHash": group.hash, "assets": group.assets.map(\.localIdentifier)])
                } else {
                    print(group.hash)
                    for asset in group.assets { print("  \(asset.localIdentifier)  \(asset.filePath ?? asset.originalFilename)") }
                }
            }
        }
    }
}
