import ArgumentParser
import Foundation
import PhotoLibrary

struct AssetsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "assets",
        abstract: "List assets, filtered and sorted.",
        discussion: """
            Example: photosync assets --where 'mediaType == image AND creationDate >= "2024-01-01"' --sort=-creationDate --limit 10
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .customLong("where"), help: ArgumentHelp("A predicate, e.g. 'isFavorite AND NOT isHidden'.", valueName: "predicate"))
    var predicate: String?

    @Option(name: .long, help: ArgumentHelp("Sort keys, comma-separated; a leading - sorts descending.", valueName: "keys"))
    var sort: String?

    @Option(name: .long, help: "At most this many assets.")
    var limit: Int?

    @Flag(name: .customLong("include-hidden"), help: "Include hidden assets.")
    var includeHidden = false

    func run() async throws {
        try await reportingFailures(options) {
            let library = try options.openLibrary(create: false)
            let fetchOptions = FetchOptions(
                predicate: predicate.map(FetchFilter.init(format:)), sortDescriptors: try FetchSort.parseList(sort ?? ""),
                fetchLimit: limit, includeHiddenAssets: includeHidden)
            let assets = try library.fetchAssets(options: fetchOptions)
            for index in assets.indices {
                let asset = try assets.object(at: index)
                if options.json {
                    printJSON(AssetJSON.object(asset))
                } else {
                    let date = asset.creationDate.map { ISO8601DateFormatter().string(from: $0) } ?? "undated"
                    print("\(asset.localIdentifier)  \(date)  \(asset.mediaType)  \(asset.pixelWidth)x\(asset.pixelHeight)  \(asset.originalFilename)")
                }
            }
        }
    }
}

struct AlbumsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "albums",
        abstract: "List albums, smart albums and moments.",
        discussion: "Example: photosync albums --json")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) {
            let library = try options.openLibrary(create: false)
            for type in [AssetCollectionType.album, .smartAlbum, .moment] {
                for collection in try library.fetchAssetCollections(with: type) {
                    let parent = try library.fetchCollectionLists(containing: collection).firstObject
                    if options.json {
                        printJSON([
                            "id": collection.localIdentifier, "title": collection.localizedTitle ?? NSNull(),
                            "type": collection.assetCollectionType.description,
                            "subtype": collection.assetCollectionSubtype.description, "path": NSNull(),
                            "count": collection.estimatedAssetCount, "parent": parent?.localIdentifier ?? NSNull(),
                        ] as [String: Any])
                    } else {
                        print("\(collection.localIdentifier)  \(type)  \(collection.estimatedAssetCount)  \(collection.localizedTitle ?? "")")
                    }
                }
            }
        }
    }
}

/// The JSON shape of an asset (the README's contract).
enum AssetJSON {
    static func object(_ asset: Asset) -> [String: Any] {
        let formatter = ISO8601DateFormatter()
        func date(_ value: Date?, offset: Int?) -> Any {
            guard let value else { return NSNull() }
            formatter.timeZone = offset.flatMap(TimeZone.init(secondsFromGMT:)) ?? TimeZone(identifier: "UTC")
            return formatter.string(from: value)
        }
        return [
            "id": asset.localIdentifier, "path": NSNull(), "filename": asset.originalFilename,
            "mediaType": asset.mediaType.description, "mediaSubtypes": asset.mediaSubtypes.names,
            "pixelWidth": asset.pixelWidth, "pixelHeight": asset.pixelHeight,
            "creationDate": date(asset.creationDate, offset: asset.creationTimeZoneOffset),
            "modificationDate": date(asset.modificationDate, offset: nil), "duration": asset.duration,
            "location": asset.location.map { ["latitude": $0.latitude, "longitude": $0.longitude] } ?? NSNull(),
            "isFavorite": asset.isFavorite, "isHidden": asset.isHidden,
            "burstIdentifier": asset.burstIdentifier ?? NSNull(), "contentHash": asset.contentHash ?? NSNull(),
            "fileSize": asset.fileSize,
        ]
    }
}
