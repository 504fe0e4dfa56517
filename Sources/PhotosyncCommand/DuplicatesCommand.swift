import ArgumentParser
import PhotoLibrary
import SyncWorker
import PhotosyncWire

struct DuplicatesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "duplicates",
        abstract: "List assets whose content is identical (the same XXH3-128), group by group.",
        discussion: "Example: photosync duplicates --json")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) { run in
            let library = try run.openExistingLibrary()
            let paths = try MirrorPaths(library: library, includeDirectories: false)
            let assets = try library.fetchAssets(options: FetchOptions(
                predicate: "contentHash != nil", sortDescriptors: [FetchSort(key: "contentHash")],
                includeHiddenAssets: true, includeAllBurstAssets: true))
            var group: [Asset] = []
            func flush() throws {
                defer { group.removeAll() }
                guard group.count > 1, let hash = group[0].contentHash else { return }
                var located: [String: String] = [:]
                for asset in group { located[asset.localIdentifier] = paths.relativePath(of: asset) }
                let wire = Wire.DuplicateGroup(contentHash: hash, assets: group.map(\.localIdentifier), paths: located)
                if options.json {
                    try Output.json(wire)
                } else {
                    Output.line(hash)
                    for asset in group { Output.line("  \(asset.localIdentifier)  \(located[asset.localIdentifier] ?? asset.originalFilename)") }
                }
            }
            for asset in assets {
                if let last = group.last, last.contentHash != asset.contentHash { try flush() }
                group.append(asset)
            }
            try flush()
        }
    }
}
