import Foundation
public import SeededRandom
public import PhotoLibrary

/// Random change blocks over a library: inserts, edits and deletes of assets, album and folder edits.
/// Shared by the in-process model test and the writer subprocess of the crash and cross-process tests.
public struct RandomChanges {
    public var generator: RandomSource

    public init(seed: UInt64) { generator = RandomSource(seed: seed) }

    /// Performs one random change block.
    public mutating func performBlock(on library: PhotoLibrary, author: String = "random") throws {
        let assets = Array(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)))
        let albums = Array(try library.fetchAssetCollections(with: .album))
        let folders = try library.fetchTopLevelUserCollections().compactMap { collection -> CollectionList? in
            if case .collectionList(let list) = collection { return list }
            return nil
        }
        var plan: [Int] = []
        for _ in 0..<generator.int(in: 1...4) { plan.append(generator.int(in: 0...9)) }
        var g = generator
        try library.performChangesAndWait(author: author) {
            for step in plan {
                switch step {
                case 0, 1:
                    for _ in 0..<g.int(in: 1...5) {
                        let hash = String(format: "%016llx%016llx", g.next(), g.next())
                        let request = AssetChangeRequest.creationRequestForAsset(
                            fromFileAt: URL(fileURLWithPath: "/virtual/\(hash).jpg"),
                            options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1))
                        request.creationDate = Date(timeIntervalSince1970: Double(g.int(in: 1_600_000_000...1_700_000_000)))
                        if g.int(in: 0...3) == 0 { request.isFavorite = true }
                    }
                case 2, 3:
                    if let asset = g.anyElement(assets) {
                        let request = AssetChangeRequest(for: asset)
                        switch g.int(in: 0...3) {
                        case 0: request.isFavorite.toggle()
                        case 1: request.isHidden.toggle()
                        case 2: request.creationDate = Date(timeIntervalSince1970: Double(g.int(in: 1_600_000_000...1_700_000_000)))
                        default: request.location = Location(latitude: Double(g.int(in: -80...80)), longitude: Double(g.int(in: -170...170)))
                        }
                    }
                case 4:
                    if let asset = g.anyElement(assets), g.int(in: 0...1) == 0 {
                        AssetChangeRequest.deleteAssets([asset])
                    }
                case 5:
                    let request = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Album \(g.int(in: 0...999))")
                    if let asset = g.anyElement(assets) { request.addAssets([asset]) }
                case 6:
                    if let album = g.anyElement(albums), let asset = g.anyElement(assets) {
                        // May fail (already a member): the whole block then fails, which is also a case to test.
                        AssetCollectionChangeRequest(for: album).addAssets([asset])
                    }
                case 7:
                    if let album = g.anyElement(albums), g.int(in: 0...2) == 0 {
                        AssetCollectionChangeRequest.deleteAssetCollections([album])
                    }
                case 8:
                    let folder = CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Folder")
                    if let album = g.anyElement(albums) { folder.addChildCollections([album]) }
                default:
                    if let folder = g.anyElement(folders), g.int(in: 0...1) == 0 {
                        CollectionListChangeRequest.deleteCollectionLists([folder])
                    } else if let folder = g.anyElement(folders) {
                        CollectionListChangeRequest(for: folder).title = "Renamed \(g.int(in: 0...99))"
                    }
                }
            }
        }
        generator = g
    }
}

/// The shared seeded generator.
public typealias RandomSource = SplitMix64
