import ArgumentParser
import Foundation
import PhotoLibrary
import SyncWorker

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
        if let keepDays, !(keepDays >= 0 && keepDays <= 100_000) { throw ValidationError("--keep-days must be a number of days from 0 to 100000") }
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
        abstract: "Show what the library holds, its change history, its mirrored folders and the daemon.",
        discussion: """
            Counts, the retained history (oldest valid token, current token), every mirrored folder with its \
            last scan, and the daemon (`photosync watch`) holding the library, if one runs.

            Example: photosync status --json
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) {
            let library = try options.openLibrary(create: false)
            let all = FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)
            let counts: [String: Int] = [
                "assets": try library.fetchAssets(options: all).count,
                "albums": try library.fetchAssetCollections(with: .album).count,
                "moments": try library.fetchMoments().count,
                "topLevelCollections": try library.fetchTopLevelUserCollections().count,
            ]
            let history = try library.historyStatus()
            let mirrors = try library.fetchMirrorRoots().map(MirrorJSON.object)
            let holder = MirrorWriterLock.currentHolder(libraryURL: library.url)
            let formatter = ISO8601DateFormatter()
            let watcher: Any = holder.map {
                ["pid": $0.pid, "mode": $0.mode, "root": $0.root, "since": formatter.string(from: $0.since)] as [String: Any]
            } ?? NSNull()
            if options.json {
                printJSON(["library": library.url.path, "identity": library.identity.uuidString, "counts": counts,
                           "history": HistoryJSON.object(history), "mirrors": mirrors, "watcher": watcher] as [String: Any])
            } else {
                print("library \(library.identity.uuidString) at \(library.url.path)")
                for key in counts.keys.sorted() { print("  \(key): \(counts[key]!)") }
                print("history: \(history.transactionCount) transactions kept; oldest valid token \(history.oldestValidToken.stringValue)")
                print("current token: \(history.currentToken.stringValue)")
                for mirror in mirrors {
                    let last = mirror["lastScanEnd"] as? String ?? "never"
                    print("mirrors \(mirror["path"]!): last scan finished \(last)")
                }
                if let holder {
                    print("daemon: \(holder.summary)")
                } else {
                    print("daemon: not running")
                }
            }
        }
    }
}

enum MirrorJSON {
    static func object(_ root: MirrorRoot) -> [String: Any] {
        let formatter = ISO8601DateFormatter()
        let summary: Any = root.lastScanSummary
            .flatMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) } ?? NSNull()
        return [
            "path": root.path,
            "lastScanStart": root.lastScanStart.map(formatter.string(from:)) ?? NSNull(),
            "lastScanEnd": root.lastScanEnd.map(formatter.string(from:)) ?? NSNull(),
            "lastScanSummary": summary,
        ]
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
            let object = AssetJSON.object(asset, path: try MirrorPaths(library: library, includeDirectories: false).relativePath(of: asset))
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
