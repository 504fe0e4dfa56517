import ArgumentParser
import PhotoLibrary
import SyncWorker
import PhotosyncWire

struct AlbumsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "albums",
        abstract: "List albums, smart albums and moments.",
        discussion: """
            A mirrored album's path is the directory it stands for, relative to the mirrored folder; \
            `photosync assets --album PATH` lists its assets.

            Example: photosync albums --json
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) { run in
            let library = try run.openExistingLibrary()
            let paths = try MirrorPaths(library: library, includeDirectories: true)
            var rows: [[String]] = []
            for type in [AssetCollectionType.album, .smartAlbum, .moment] {
                for collection in try library.fetchAssetCollections(with: type) {
                    let parent = try library.fetchCollectionLists(containing: collection).firstObject
                    let album = Wire.Album(
                        collection, path: paths.directoryPath(ofAlbum: collection.localIdentifier),
                        parent: parent?.localIdentifier, timeZone: library.momentTimeZone)
                    if options.json {
                        try Output.json(album)
                    } else {
                        rows.append([album.localIdentifier, album.assetCollectionType, Plural.count(album.estimatedAssetCount, "asset"),
                                     (album.localizedTitle ?? "untitled") + (album.path.map { "  (\($0.isEmpty ? "." : $0))" } ?? "")])
                    }
                }
            }
            for line in Output.table(rows) { Output.line(line) }
        }
    }
}
