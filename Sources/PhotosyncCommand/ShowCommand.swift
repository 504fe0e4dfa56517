import ArgumentParser
import PhotoLibrary
import SyncWorker
import PhotosyncWire

struct ShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show one asset: by identifier, a unique part of its identifier (such as its last digits), or its mirrored path.",
        discussion: """
            The asset is named by its local identifier, a part of one (its start, or its last digits: \
            identifiers are time-ordered, so those of assets created together share their start; enough of \
            it to be unique), or its path: relative to the mirrored folder, or the file's own path. The text \
            lists the fields of the JSON shape and the albums holding the asset.

            Example: photosync show Holidays/Beach/IMG_0101.jpg --json
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The asset's identifier, a unique part of it (such as its last digits), or its mirrored path.", valueName: "id|path"))
    var identifier: String

    func run() async throws {
        try await reportingFailures(options) { run in
            let library = try run.openExistingLibrary()
            let paths = try MirrorPaths(library: library, includeDirectories: false)
            let asset = try AssetArgument.resolve(identifier, in: library, paths: paths)
            let wire = Wire.Asset(asset, path: paths.relativePath(of: asset), timeZone: library.momentTimeZone)
            if options.json {
                try Output.json(wire)
                return
            }
            var fields = AssetText.fields(wire)
            let albums = try library.fetchAssetCollections(containing: asset).map { collection in
                "\(collection.localizedTitle ?? "untitled") (\(collection.assetCollectionType))"
            }
            fields.append(("albums", albums.isEmpty ? "-" : albums.joined(separator: ", ")))
            for line in Output.table(fields.map { [$0.0, $0.1] }) { Output.line(line) }
        }
    }
}
