import ArgumentParser
import Foundation
import PhotoLibrary
import SyncWorker
import PhotosyncWire

struct AssetsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assets",
        abstract: "List assets, filtered and sorted.",
        discussion: """
            Predicates and sort keys use the asset keys (the README lists them; they are also the fields of \
            --json), plus `path`, a mirrored asset's path relative to its folder. A sort key starting with '-' \
            sorts descending and is written with '=': --sort=-creationDate.

            Example: photosync assets --where 'mediaType == image AND path BEGINSWITH "2024/"' --sort=-creationDate --limit 10
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .customLong("where"), help: ArgumentHelp("A predicate, e.g. 'isFavorite AND NOT isHidden'.", valueName: "predicate"))
    var predicate: String?

    @Option(name: .long, help: ArgumentHelp("Sort keys, comma-separated; a leading - sorts descending (--sort=-creationDate).", valueName: "keys"))
    var sort: String?

    @Option(name: .long, help: ArgumentHelp("At most this many assets (at least 1).", valueName: "n"))
    var limit: Int?

    @Option(name: .long, help: ArgumentHelp(
        "Only the assets of this album: its identifier, or the mirrored directory it stands for.", valueName: "id|path"))
    var album: String?

    @Flag(name: .customLong("include-hidden"), help: "Include hidden assets.")
    var includeHidden = false

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1 (it was \(limit))") }
    }

    func run() async throws {
        try await reportingFailures(options) { run in
            let library = try run.openExistingLibrary()
            let fetchOptions = FetchOptions(
                predicate: predicate.map(FetchFilter.init(format:)), sortDescriptors: try FetchSort.parseList(sort ?? ""),
                fetchLimit: limit, includeHiddenAssets: includeHidden)
            let assets = try album.map { try library.fetchAssets(in: AlbumArgument.resolve($0, in: library), options: fetchOptions) }
                ?? library.fetchAssets(options: fetchOptions)
            let paths = try MirrorPaths(library: library, includeDirectories: false)
            for index in assets.indices {
                let asset = try assets.object(at: index)
                let wire = Wire.Asset(asset, path: paths.relativePath(of: asset), timeZone: library.momentTimeZone)
                if options.json { try Output.json(wire) } else { Output.line(AssetText.line(wire)) }
            }
        }
    }
}
