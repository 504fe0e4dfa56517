import Foundation
import PhotoLibrary

/// The album membership a repair restores for the assets of the albums and folders it deletes
/// (``MirrorOrphans``): each is put in the album its directory's record names, and taken out of other
/// recorded directories' albums. (Two racing writers each kept their own album for a new directory, and the
/// record named the second one's, which lacks the files only the first writer added.)
///
/// Every other asset keeps the albums it is in: a photo the user took out of its directory's album, or put
/// in another's, stays so (the repaired files' own assets are placed by the commit of their records, like
/// moved ones). Assets of the user's own in a mirrored album stay, as do the mirror's assets in the user's
/// albums.
struct MirrorPlacement {
    /// Assets to add to each recorded album, and to remove from it, by album identifier.
    var additions: [String: [String]] = [:]
    var removals: [String: [String]] = [:]

    var isEmpty: Bool { additions.isEmpty && removals.isEmpty }

    /// Compares the recorded albums' members with the recorded files, for the assets `concerned`.
    ///
    /// - Parameters:
    ///   - files: the recorded files with their assets, by path (the model after the repair).
    ///   - directories: the recorded directories.
    ///   - concerned: the assets to place (the orphans' members); no other asset is added or removed.
    /// - Throws: ``PhotoLibraryError`` when the library can't be read.
    /// - Complexity: one fetch of each recorded album's members: O(*n*) in the root's files.
    static func plan(
        library: PhotoLibrary, files: some RecordedFiles, directories: [String: MirroredDirectory], albums: [String: AssetCollection],
        concerned: Set<String>
    ) throws -> MirrorPlacement {
        var placement = MirrorPlacement()
        guard !concerned.isEmpty else { return placement }
        var expected: [String: Set<String>] = [:]  // album → assets
        var albumOfAsset: [String: String] = [:]
        files.forEachFile { file in
            guard let asset = file.assetIdentifier, concerned.contains(asset),
                let album = directories[FileSystem.parent(of: file.relativePath)]?.albumIdentifier
            else { return }
            expected[album, default: []].insert(asset)
            albumOfAsset[asset] = album
        }
        let options = FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)
        for (id, album) in albums {
            let members = Set(try library.fetchAssets(in: album, options: options).map(\.localIdentifier))
            let wanted = expected[id] ?? []
            let missing = wanted.subtracting(members)
            // Members mirrored from another directory: in the wrong album (the user's own photos stay).
            let misplaced = members.filter { albumOfAsset[$0].map { $0 != id } ?? false }
            if !missing.isEmpty { placement.additions[id] = missing.sorted() }
            if !misplaced.isEmpty { placement.removals[id] = misplaced.sorted() }
        }
        return placement
    }

    /// Applies the placement inside a change block.
    func apply(albums: [String: AssetCollection]) {
        for (id, album) in albums where additions[id] != nil || removals[id] != nil {
            let request = AssetCollectionChangeRequest(for: album)
            if let removed = removals[id] { request.removeAssets(removed.map(ObjectReference.init)) }
            if let added = additions[id] { request.addAssets(added.map(ObjectReference.init)) }
        }
    }
}
