import Foundation
import PhotoLibrary

/// The repair of a root whose mirror records disagree with the library's assets — what two mirror writers
/// racing left behind (each inserted an asset for the same new file, and the record of the path named only
/// the second), or an older photosync interrupted at the wrong time.
///
/// ## The rules
/// For every file path of the root, from its record (if any) and the assets referencing it (the assets of
/// the root, see ``MirrorConsistency``):
/// - Several assets reference the file: they are **merged into the oldest** (the first created), which the
///   record then names. The oldest keeps its identifier, albums and properties; it also joins every album a
///   merged asset was in, is a favourite when any of them was, and stays hidden only when all of them were
///   (hiding one of two copies hid a duplicate, not the photo). The others are deleted.
/// - One asset references the file and no record names it: it is **adopted** — the record names it.
/// - A record names an asset that is gone, or that references another file: the record is **dropped**; the
///   file is then new to the pass (an asset referencing it, if any, is adopted instead).
///
/// A record written by the repair keeps its stamp when the asset it names has the recorded content;
/// otherwise its stamp is unknown, so the pass that follows reads the file: the same content refreshes the
/// stamp, other content updates the asset, and a file that is gone deletes the asset — or moves it, when
/// its content reappears at a new path — by the pass's ordinary rules, mass-deletion safety included. So
/// the repair itself never deletes a photo: only duplicates of one.
///
/// The merges commit in one transaction by the mirror's author, journaled like any change (merged assets
/// deleted, the oldest updated when a property or album changed). The records then commit through the
/// engine's ordinary commit, as one batch: those naming their asset anew like a pass's moves
/// (``Batch/adoptions``), so that each asset is in its directory's album, made if needed, and in no other
/// directory's; the dropped ones forgotten (``Batch/forgets``), so that a directory left with no record loses
/// its album and folder.
struct MirrorRepair {
    /// Assets merged into the oldest of one file.
    struct Merge {
        let keep: String
        let merged: [String]
    }

    var merges: [Merge] = []
    /// Records to write (each names the asset it should), through the engine's commit.
    var records: [MirroredFile] = []
    /// Records that go (as recorded; their assets are left alone).
    var dropped: [MirroredFile] = []
    /// Paths whose assets or record change.
    var repairedPaths = 0

    var isEmpty: Bool { repairedPaths == 0 }

    /// A stamp no file has (size −1): a record carrying it is read again by the next pass.
    static let unknownStamp = FileStamp(device: 0, inode: 0, size: -1, mtimeNs: 0, ctimeNs: 0)
    static let unknownHash = String(repeating: "0", count: 32)

    /// Plans the repair from a root's records and the assets of the root.
    ///
    /// - Parameters:
    ///   - records: the root's file records, each with the asset it names (nil when that asset is gone).
    ///   - references: the assets of the root, by path and oldest first for each path
    ///     (``PhotoLibrary/fetchFileReferences(rootPath:)``).
    /// - Complexity: O(*n* log *n*) in the records and assets.
    static func plan(records: [MirroredFile], references: [FileReference]) -> MirrorRepair {
        var byPath: [String: [FileReference]] = [:]
        for reference in references { byPath[reference.relativePath, default: []].append(reference) }
        var recordAt: [String: MirroredFile] = [:]
        for record in records { recordAt[record.relativePath] = record }
        var repair = MirrorRepair()
        for path in Set(recordAt.keys).union(byPath.keys).sorted() {
            let record = recordAt[path]
            guard let assets = byPath[path], let keep = assets.first else {
                // No asset references this file: whatever the record names is gone or elsewhere.
                if let record { repair.dropped.append(record) }
                repair.repairedPaths += 1
                continue
            }
            var changed = false
            if assets.count > 1 {
                repair.merges.append(Merge(keep: keep.localIdentifier, merged: assets.dropFirst().map(\.localIdentifier)))
                changed = true
            }
            if record?.assetIdentifier != keep.localIdentifier {
                let hash = keep.contentHash ?? unknownHash
                let stampHolds = record.map { $0.contentHash == hash } ?? false
                repair.records.append(MirroredFile(
                    relativePath: path, stamp: stampHolds ? record!.stamp : unknownStamp, contentHash: hash,
                    assetIdentifier: keep.localIdentifier))
                changed = true
            }
            if changed { repair.repairedPaths += 1 }
        }
        return repair
    }

    /// Commits the merges in one transaction (the records are the engine's to commit).
    ///
    /// - Throws: ``PhotoLibraryError`` from the library.
    func apply(to library: PhotoLibrary, author: String) throws {
        guard !merges.isEmpty else { return }
        let all = FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)
        var assets: [String: Asset] = [:]
        let identifiers = merges.flatMap { [$0.keep] + $0.merged }
        if !identifiers.isEmpty {
            for asset in try library.fetchAssets(withLocalIdentifiers: identifiers, options: all) { assets[asset.localIdentifier] = asset }
        }
        // The albums each kept asset joins (one request per album: several merges may join one album).
        var joins: [String: (album: AssetCollection, assets: [String])] = [:]
        for merge in merges {
            guard let keep = assets[merge.keep] else { continue }
            var member = Set(try library.fetchAssetCollections(containing: keep).map(\.localIdentifier))
            for id in merge.merged {
                guard let asset = assets[id] else { continue }
                for album in try library.fetchAssetCollections(containing: asset)
                where album.assetCollectionType == .album && member.insert(album.localIdentifier).inserted {
                    joins[album.localIdentifier, default: (album, [])].assets.append(merge.keep)
                }
            }
        }
        let merges = self.merges
        try library.performChangesAndWait(author: author) {
            for merge in merges {
                guard let keep = assets[merge.keep] else { continue }
                let others = merge.merged.compactMap { assets[$0] }
                let favorite = keep.isFavorite || others.contains { $0.isFavorite }
                let hidden = keep.isHidden && others.allSatisfy(\.isHidden)
                if favorite != keep.isFavorite || hidden != keep.isHidden {
                    let request = AssetChangeRequest(for: keep)
                    request.isFavorite = favorite
                    request.isHidden = hidden
                }
            }
            for (album, members) in joins.values {
                AssetCollectionChangeRequest(for: album).addAssets(members.map(ObjectReference.init))
            }
            let merged = merges.flatMap(\.merged).filter { assets[$0] != nil }
            if !merged.isEmpty { AssetChangeRequest.deleteAssets(withLocalIdentifiers: merged) }
        }
    }
}
