import SeededRandom
import FetchPredicate
import Foundation
import Testing
@testable import PhotoLibrary

@Suite struct FetchTests {
    @Test(arguments: StoragePaths.allCases) func textAndTypedPredicatesFilterAndSort(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(6) { index, request in
            request.creationDate = .utc(2024, 1, 1 + index)
            request.mediaType = index.isMultiple(of: 2) ? .image : .video
            request.isFavorite = index >= 3
            request.pixelWidth = 100 * (index + 1)
        }
        let text = try test.library.fetchAssets(options: FetchOptions(
            predicate: "mediaType == image AND creationDate >= \"2024-01-02T00:00:00Z\"",
            sortDescriptors: [FetchSort(key: "pixelWidth", ascending: false)]))
        #expect(text.map(\.localIdentifier) == [assets[4], assets[2]].map(\.localIdentifier))
        let typed = try test.library.fetchAssets(options: FetchOptions(
            predicate: FetchFilter(Asset.isFavorite && Asset.pixelWidth.between(400, 500)),
            sortDescriptors: [FetchSort(Asset.creationDate, ascending: false)]))
        #expect(typed.map(\.localIdentifier) == [assets[4], assets[3]].map(\.localIdentifier))
        let limited = try test.library.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSort(key: "creationDate", ascending: false)], fetchLimit: 2))
        #expect(limited.map(\.localIdentifier) == [assets[5], assets[4]].map(\.localIdentifier))
        #expect(try test.library.fetchAssets(with: .video).count == 3)
    }

    @Test(arguments: StoragePaths.allCases) func badPredicatesNamePositionAndValidKeys(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        #expect {
            try test.library.fetchAssets(options: FetchOptions(predicate: "isFavorite AND colour == 3"))
        } throws: { error in
            guard case PhotoLibraryError.invalidPredicate(let message, let position) = error else { return false }
            return position == 15 && message.contains("creationDate") && message.contains("colour")
        }
        #expect {
            try FetchSort.parseList("creationDate,-nope")
        } throws: { error in
            guard case PhotoLibraryError.invalidPredicate(_, let position) = error else { return false }
            return position == 14
        }
    }

    @Test(arguments: StoragePaths.allCases) func identifiersKeepTheirOrderAndIncludeHiddenAssets(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(3) { index, request in request.isHidden = index == 1 }
        let ids = [assets[2], assets[1], assets[0]].map(\.localIdentifier)
        #expect(try test.library.fetchAssets(withLocalIdentifiers: ids + ["unknown", ids[0]]).map(\.localIdentifier) == ids)
        #expect(try test.library.fetchAssets().count == 2)
        #expect(try test.library.fetchAssets(options: FetchOptions(includeHiddenAssets: true)).count == 3)
    }

    @Test(arguments: StoragePaths.allCases) func fetchResultsAreSnapshots(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(300) { index, request in request.creationDate = .utc(2020, 1, 1, 0, index % 60) }
        let result = try test.library.fetchAssets()
        #expect(result.count == 300)
        // Change and delete objects after the fetch, before their batch is loaded.
        let target = result.keys[250]
        let targetAsset = assets.first { $0.rowID == target }!
        try test.library.performChangesAndWait {
            AssetChangeRequest(for: targetAsset).isFavorite = true
            AssetChangeRequest.deleteAssets([assets.first { $0.rowID == result.keys[260] }!])
        }
        #expect(result[250].isFavorite == false)
        #expect(result[260].localIdentifier == assets.first { $0.rowID == result.keys[260] }!.localIdentifier)
        #expect(result.count == 300)
        // A new fetch sees the new state.
        let after = try test.library.fetchAssets()
        #expect(after.count == 299)
        #expect(after[after.index(of: targetAsset)!].isFavorite)
        #expect(result.index(of: targetAsset) == 250)
        #expect(result.contains(targetAsset))
        #expect(result.firstObject != nil && result.lastObject != nil)
        #expect(throws: PhotoLibraryError.indexOutOfRange(index: 300, count: 300)) { try result.object(at: 300) }
    }

    @Test(arguments: StoragePaths.allCases) func collectionPredicates(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        try test.library.performChangesAndWait {
            _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Summer 2024")
            _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Winter")
        }
        let summer = try test.library.fetchAssetCollections(with: .album, options: FetchOptions(predicate: "localizedTitle BEGINSWITH[c] \"summer\""))
        #expect(summer.map(\.localizedTitle) == ["Summer 2024"])
        let sorted = try test.library.fetchAssetCollections(with: .album, options: FetchOptions(sortDescriptors: [FetchSort(key: "localizedTitle", ascending: false)]))
        #expect(sorted.map(\.localizedTitle) == ["Winter", "Summer 2024"])
    }

    /// The oracle: random predicates and sort orders give the same ordered results through SQL as through
    /// the in-memory evaluator, over random libraries.
    @Test(arguments: [11, 12, 13] as [UInt64], StoragePaths.allCases)
    func sqlAndInMemoryEvaluationAgree(seed: UInt64, paths: StoragePaths) throws {
        var generator = SplitMix64(seed: seed)
        let test = try TestLibrary(paths: paths)
        let names = ["IMG_1.JPG", "img_2.jpg", "Été.heic", "ÉTÉ.png", "straße.mov", "😀.gif", "a", ""]
        try test.makeAssets(120) { _, request in
            if Int.random(in: 0...4, using: &generator) > 0 {
                request.creationDate = Date(timeIntervalSince1970: Double(Int.random(in: 1_600_000_000...1_600_500_000, using: &generator) / 1000 * 1000))
            }
            request.mediaType = AssetMediaType(rawValue: Int.random(in: 0...3, using: &generator))!
            request.mediaSubtypes = AssetMediaSubtypes(rawValue: [0, 1, 4, 5, 1 << 16][Int.random(in: 0...4, using: &generator)])
            request.isFavorite = Bool.random(using: &generator)
            request.isHidden = Int.random(in: 0...5, using: &generator) == 0
            request.pixelWidth = [0, 100, 640, 4032][Int.random(in: 0...3, using: &generator)]
            request.duration = [0, 1.5, 30][Int.random(in: 0...2, using: &generator)]
            request.originalFilename = names[Int.random(in: 0..<names.count, using: &generator)]
            if Bool.random(using: &generator) { request.burstIdentifier = "B\(Int.random(in: 0...3, using: &generator))" }
        }
        let everything = Array(try test.library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)))
        let atoms = [
            "isFavorite", "NOT isHidden", "mediaType == image", "mediaType IN {video, audio}", "pixelWidth > 100",
            "pixelWidth BETWEEN {100, 640}", "creationDate < \"2020-09-15T00:00:00Z\"", "creationDate == nil",
            "creationDate != nil", "duration >= 1.5", "originalFilename CONTAINS[c] \"img\"",
            "originalFilename BEGINSWITH[cd] \"ete\"", "originalFilename ENDSWITH \".jpg\"", "burstIdentifier == \"B1\"",
            "burstIdentifier != nil", "mediaSubtypes CONTAINS photoPanorama", "originalFilename LIKE[c] \"img_?.*\"",
        ]
        let sortKeys = ["creationDate", "pixelWidth", "originalFilename", "duration", "isFavorite", "mediaType"]
        for _ in 0..<60 {
            var parts: [String] = []
            for _ in 0..<Int.random(in: 1...3, using: &generator) { parts.append(atoms[Int.random(in: 0..<atoms.count, using: &generator)]) }
            var text = parts[0]
            for part in parts.dropFirst() { text = Bool.random(using: &generator) ? "(\(text)) AND \(part)" : "(\(text)) OR NOT (\(part))" }
            let sorts = (0..<Int.random(in: 0...2, using: &generator)).map { _ in
                FetchSort(key: sortKeys[Int.random(in: 0..<sortKeys.count, using: &generator)], ascending: Bool.random(using: &generator))
            }
            let includeHidden = Bool.random(using: &generator)
            let options = FetchOptions(predicate: FetchFilter(format: text), sortDescriptors: sorts, includeHiddenAssets: includeHidden)
            let viaSQL = try test.library.fetchAssets(options: options).map(\.localIdentifier)

            let predicate = try FetchFilter(format: text).predicate(for: Asset.predicateSchema)
            let order = try CompiledSortOrder(sorts, schema: Asset.predicateSchema)
            let inMemory = everything
                .filter { (includeHidden || !$0.isHidden) && ($0.burstIdentifier == nil || $0.representsBurst) && predicate.evaluate($0) }
                .sorted { lhs, rhs in
                    if sorts.isEmpty {
                        return (lhs.creationDate?.timeIntervalSince1970 ?? -.infinity, lhs.rowID) < (rhs.creationDate?.timeIntervalSince1970 ?? -.infinity, rhs.rowID)
                    }
                    switch order.compare(lhs, rhs) {
                    case .orderedAscending: return true
                    case .orderedDescending: return false
                    case .orderedSame: return lhs.rowID < rhs.rowID
                    }
                }
                .map(\.localIdentifier)
            #expect(viaSQL == inMemory, "seed \(seed): \(text) sorted by \(sorts)")
        }
    }
}
