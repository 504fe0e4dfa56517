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
            let paths = try MirrorPaths(library: library, includeDirectories: false)
            for index in assets.indices {
                let asset = try assets.object(at: index)
                if options.json {
                    printJSON(AssetJSON.object(asset, path: paths.relativePath(of: asset)))
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
            let paths = try MirrorPaths(library: library, includeDirectories: true)
            for type in [AssetCollectionType.album, .smartAlbum, .moment] {
                for collection in try library.fetchAssetCollections(with: type) {
                    let parent = try library.fetchCollectionLists(containing: collection).firstObject
                    if options.json {
                        printJSON([
                            "id": collection.localIdentifier, "title": collection.localizedTitle ?? NSNull(),
                            "type": collection.assetCollectionType.description,
                            "subtype": collection.assetCollectionSubtype.description,
                            "path": paths.directoryPath(ofAlbum: collection.localIdentifier) ?? NSNull(),
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
    /// - Parameter path: the asset's path relative to the folder it is mirrored from, if it is.
    static func object(_ asset: Asset, path: String?) -> [String: Any] {
        let formatter = ISO8601DateFormatter()
        func date(_ value: Date?, offset: Int?) -> Any {
            guard let value else { return NSNull() }
            formatter.timeZone = offset.flatMap(TimeZone.init(secondsFromGMT:)) ?? TimeZone(identifier: "UTC")
            return formatter.string(from: value)
        }
        return [
            "id": asset.localIdentifier, "path": path ?? NSNull(), "filename": asset.originalFilename,
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

/// Where mirrored objects are in their folders: an asset's path and an album's directory, relative to the
/// mirrored root (the JSON contract's `path`).
struct MirrorPaths {
    private let roots: [String]
    private var albumDirectories: [String: String] = [:]

    /// - Parameter includeDirectories: also read every root's directories (for album paths).
    init(library: PhotoLibrary, includeDirectories: Bool) throws {
        let roots = try library.fetchMirrorRoots()
        // Longest first, so that a root nested in another one wins.
        self.roots = roots.map(\.path).sorted { $0.count > $1.count }
        guard includeDirectories else { return }
        for root in roots {
            for directory in try library.fetchMirroredDirectories(root: root) {
                if let album = directory.albumIdentifier { albumDirectories[album] = directory.relativePath }
            }
        }
    }

    /// The asset's path relative to the root it is mirrored from; nil for an asset of no mirrored folder.
    func relativePath(of asset: Asset) -> String? {
        guard let file = asset.filePath else { return nil }
        for root in roots where file.hasPrefix(root + "/") { return String(file.dropFirst(root.count + 1)) }
        return nil
    }

    /// The directory (relative to its root) a mirrored album stands for.
    func directoryPath(ofAlbum identifier: String) -> String? { albumDirectories[identifier] }
}
