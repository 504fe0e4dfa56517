import Foundation
import GRDB
import IndexDiff
import LibraryTestSupport
import SeededRandom
import Testing
@testable import PhotoLibrary

/// The incremental change details (``IncrementalFetch``) against the oracle: fetching again and diffing.
@Suite struct ObservationIncrementalTests {
    /// Dates from a small pool, and nil, so that sort keys tie often and the id breaks the ties.
    static let datePool: [Date?] = [nil] + (0..<6).map { Date(timeIntervalSince1970: 1_600_000_000 + Double($0) * 86_400 * 90) }

    static func configure(_ request: AssetChangeRequest, _ g: inout RandomSource) {
        request.creationDate = g.pick(datePool)
        request.pixelWidth = g.pick([1000, 2000, 3000])
        request.isFavorite = g.chance(0.3)
        request.isHidden = g.chance(0.1)
        request.mediaType = g.chance(0.2) ? .video : .image
        if g.chance(0.15) { request.burstIdentifier = g.pick(["B1", "B2"]) }
    }

    /// One random change block of asset inserts, edits and deletes.
    static func performBlock(on library: PhotoLibrary, _ g: inout RandomSource) throws {
        let assets = Array(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)))
        var plan: [Int] = []
        for _ in 0..<g.int(in: 1...4) { plan.append(g.int(in: 0...9)) }
        var local = g
        try library.performChangesAndWait(author: "random") {
            for step in plan {
                switch step {
                case 0, 1:
                    for _ in 0..<local.int(in: 1...3) {
                        let hash = String(format: "%016llx%016llx", local.next(), local.next())
                        let request = AssetChangeRequest.creationRequestForAsset(
                            fromFileAt: URL(fileURLWithPath: "/virtual/\(hash).jpg"),
                            options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1))
                        Self.configure(request, &local)
                    }
                case 2...6:
                    guard let asset = local.anyElement(assets) else { continue }
                    let request = AssetChangeRequest(for: asset)
                    switch local.int(in: 0...6) {
                    case 0: request.isFavorite.toggle()
                    case 1: request.isHidden.toggle()
                    case 2, 3: request.creationDate = local.pick(Self.datePool)
                    case 4: request.pixelWidth = local.pick([1000, 2000, 3000])
                    case 5: request.burstIdentifier = local.chance(0.5) ? nil : local.pick(["B1", "B2"])
                    default: request.location = Location(latitude: Double(local.int(in: -80...80)), longitude: 0)
                    }
                case 7:
                    if let asset = local.anyElement(assets) { AssetChangeRequest.deleteAssets([asset]) }
                case 8:
                    // Many date edits at once: moves across the whole result.
                    for _ in 0..<local.int(in: 5...12) {
                        guard let asset = local.anyElement(assets) else { break }
                        AssetChangeRequest(for: asset).creationDate = local.pick(Self.datePool)
                    }
                default:
                    if let asset = local.anyElement(assets) { AssetChangeRequest(for: asset).mediaType = asset.mediaType == .video ? .image : .video }
                }
            }
        }
        g = local
    }

    /// The fetches followed: most can be maintained incrementally, a few fall back.
    static func fetches(_ library: PhotoLibrary) throws -> [(name: String, fetch: () throws -> FetchResult<Asset>)] {
        let favourites = try #require(try library.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumFavorites).firstObject)
        let sorts: [[FetchSort]] = [
            [], [FetchSort(key: "creationDate", ascending: false)], [FetchSort(key: "pixelWidth"), FetchSort(key: "creationDate", ascending: false)],
            [FetchSort(key: "isFavorite", ascending: false), FetchSort(key: "creationDate")], [FetchSort(key: "latitude")],
        ]
        let predicates: [FetchFilter?] = [
            nil, "isFavorite", "NOT isFavorite OR pixelWidth > 2000", "creationDate >= \"2020-12-01T00:00:00Z\"",
            "creationDate == nil OR pixelWidth < 1500", "mediaType == image AND burstIdentifier == nil",
        ]
        var fetches: [(name: String, fetch: () throws -> FetchResult<Asset>)] = []
        for (p, predicate) in predicates.enumerated() {
            for (s, sort) in sorts.enumerated() where (p + s) % 2 == 0 {
                let options = FetchOptions(predicate: predicate, sortDescriptors: sort, includeHiddenAssets: (p + s) % 3 == 0, includeAllBurstAssets: s % 2 == 1)
                fetches.append(("assets \(p)/\(s)", { try library.fetchAssets(options: options) }))
            }
        }
        // Orders whose values aren't all numbers, or with more than two columns: the sort values are sampled
        // every 16th key and the searches finish in the database.
        for (name, sort) in [
            ("text order", [FetchSort(key: "burstIdentifier"), FetchSort(key: "creationDate", ascending: false)]),
            ("three columns", [FetchSort(key: "isFavorite"), FetchSort(key: "pixelWidth", ascending: false), FetchSort(key: "creationDate")]),
        ] {
            fetches.append((name, { try library.fetchAssets(options: FetchOptions(sortDescriptors: sort, includeAllBurstAssets: true)) }))
        }
        fetches.append(("videos", { try library.fetchAssets(with: .video) }))
        fetches.append(("burst B1", { try library.fetchAssets(withBurstIdentifier: "B1", options: FetchOptions(sortDescriptors: [FetchSort(key: "pixelWidth")])) }))
        fetches.append(("favourites", { try library.fetchAssets(in: favourites) }))
        fetches.append(("limit (fallback)", { try library.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")], fetchLimit: 7)) }))
        return fetches
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64], StoragePaths.allCases)
    func incrementalDetailsEqualFetchingAgainAndDiffing(seed: UInt64, paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let library = test.library
        var g = RandomSource(seed: seed)
        try library.performChangesAndWait {
            var local = RandomSource(seed: seed &+ 1000)
            for index in 0..<40 {
                let hash = String(format: "%032llx", UInt64(index) &+ seed << 32)
                let request = AssetChangeRequest.creationRequestForAsset(
                    fromFileAt: URL(fileURLWithPath: "/virtual/\(hash).jpg"),
                    options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1))
                Self.configure(request, &local)
            }
        }
        let fetches = try Self.fetches(library)
        var results = try fetches.map { try $0.fetch() }
        var maintained = 0
        var readInMemory = 0
        for round in 0..<16 {
            let start = try library.currentChangeToken.sequence
            do { try Self.performBlock(on: library, &g) } catch is PhotoLibraryError { continue }
            // Sometimes two transactions in one round.
            if g.chance(0.25) { try? Self.performBlock(on: library, &g) }
            library.observation.maintainsIncrementally.store(true, ordering: .relaxed)
            guard let incremental = try library.observation.readChanges(after: start).last else { continue }
            library.observation.maintainsIncrementally.store(false, ordering: .relaxed)
            let full = try #require(try library.observation.readChanges(after: start).last)
            for (index, before) in results.enumerated() {
                let context = try #require(incremental.context)
                let state = DeliveryContext.ResultState(chain: ObjectIdentifier(before.chain), sequence: before.sequence)
                if before.chain.incremental != nil {
                    let touched = try library.storage.read { db in
                        try db.fetchValue(Int.self, sql: """
                            SELECT count(DISTINCT objectId) FROM change_record WHERE objectType = 1 AND seq > ? AND seq <= ?
                            """, arguments: [before.sequence, incremental.changeToken.sequence]) ?? 0
                    }
                    let expected = touched <= IncrementalFetch.maximumTouched(count: before.count)
                    #expect((context.incremental[state] != nil) == expected, "seed \(seed) round \(round) \(fetches[index].name)")
                    if expected { maintained += 1 }
                    if context.incremental[state]?.readInMemory == true { readInMemory += 1 }
                }
                let fast = incremental.changeDetails(for: before)
                let oracle = full.changeDetails(for: before)
                #expect((fast == nil) == (oracle == nil), "seed \(seed) round \(round) \(fetches[index].name)")
                guard let fast, let oracle else { continue }
                #expect(fast.diff == oracle.diff, "seed \(seed) round \(round) \(fetches[index].name)")
                #expect(fast.hasIncrementalChanges == oracle.hasIncrementalChanges)
                #expect(fast.fetchResultAfterChanges.keys == oracle.fetchResultAfterChanges.keys)
                #expect(apply(fast) == fast.fetchResultAfterChanges.keys)
                #expect(fast.insertedIndexes.intersection(fast.changedIndexes).isEmpty)
                #expect(before.count - fast.removedIndexes.count + fast.insertedIndexes.count == fast.fetchResultAfterChanges.count)
                // Mostly follow the incremental result (its keys are a patch of a patch…); sometimes keep an
                // older state, so that a later round starts several transactions back.
                if g.chance(0.8) { results[index] = fast.fetchResultAfterChanges }
            }
            // Followed results are the fetch's current state, object by object.
            for (index, result) in results.enumerated() where result.sequence == incremental.changeToken.sequence {
                let fresh = try fetches[index].fetch()
                #expect(result.keys == fresh.keys, "seed \(seed) round \(round) \(fetches[index].name)")
                if let last = result.lastObject { #expect(last.localIdentifier == fresh.lastObject?.localIdentifier) }
            }
        }
        #expect(maintained > 0)
        // Rounds whose touched assets' state came from the rows their commits handed off were compared too.
        #expect(readInMemory > 0)
    }

    @Test(arguments: StoragePaths.allCases) func oneAssetMovedFromFrontToBackIsOneMove(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(300) { index, request in request.creationDate = .utc(2020, 1, 1).addingTimeInterval(Double(index) * 3600) }
        let result = try test.library.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")]))
        let start = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait {
            AssetChangeRequest(for: assets[0]).creationDate = .utc(2030, 1, 1)
            AssetChangeRequest(for: assets[150]).isFavorite = true
        }
        let change = try #require(try test.library.observation.readChanges(after: start).last)
        #expect(change.context?.incremental.isEmpty == false)
        let details = try #require(change.changeDetails(for: result))
        var moves: [[Int]] = []
        details.enumerateMoves { moves.append([$0, $1]) }
        #expect(moves == [[0, 299]])
        #expect(Array(details.changedIndexes) == [149, 299])
        #expect(details.removedIndexes.isEmpty && details.insertedIndexes.isEmpty)
        // The moved asset leaves and comes back; the favourite, updated in a property neither the sort nor the
        // condition reads, stays where it is.
        #expect(details.fetchResultAfterChanges.keyList.patchSize == 2)
        #expect(details.fetchResultAfterChanges.lastObject?.localIdentifier == assets[0].localIdentifier)
    }

    /// A consumer lagging behind deliveries: the next round is read while it still holds the first result,
    /// and only then does it make the successor. That successor must still get the next round's details.
    @Test(arguments: StoragePaths.allCases) func aSuccessorMadeAfterTheNextRoundWasReadStillGetsItsDetails(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(50) { index, request in request.creationDate = .utc(2020, 1, 1).addingTimeInterval(Double(index) * 3600) }
        let sort = FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")])
        let first = try test.library.fetchAssets(options: sort)
        let start = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait {
            AssetChangeRequest(for: assets[3]).isFavorite = true
            AssetChangeRequest(for: assets[10]).creationDate = .utc(2031, 1, 1)
        }
        let round1 = try #require(try test.library.observation.readChanges(after: start).last)
        let middle = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait {
            AssetChangeRequest.deleteAssets([assets[20]])
            AssetChangeRequest(for: assets[5]).creationDate = .utc(2019, 1, 1)
        }
        let round2 = try #require(try test.library.observation.readChanges(after: middle).last)
        #expect(round2.context?.incremental.isEmpty == false)

        let second = try #require(round1.changeDetails(for: first)).fetchResultAfterChanges
        let details = try #require(round2.changeDetails(for: second))
        let fresh = try test.library.fetchAssets(options: sort).map(\.localIdentifier)
        #expect(details.fetchResultAfterChanges.map(\.localIdentifier) == fresh)
        #expect(Array(details.removedIndexes) == [second.map(\.localIdentifier).firstIndex(of: assets[20].localIdentifier)!])
        var moves: [[Int]] = []
        details.enumerateMoves { moves.append([$0, $1]) }
        #expect(moves == [[5, 0]])
    }

    @Test(arguments: StoragePaths.allCases) func emptyToSomeAndBackToEmpty(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        var result = try test.library.fetchAssets(options: FetchOptions(predicate: "isFavorite"))
        #expect(result.isEmpty)
        var start = try test.library.currentChangeToken.sequence
        let assets = try test.makeAssets(5) { _, request in request.isFavorite = true }
        var details = try #require(try test.library.observation.readChanges(after: start).last?.changeDetails(for: result))
        #expect(Array(details.insertedIndexes) == Array(0..<5))
        result = details.fetchResultAfterChanges
        start = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait { AssetChangeRequest.deleteAssets(assets) }
        details = try #require(try test.library.observation.readChanges(after: start).last?.changeDetails(for: result))
        #expect(Array(details.removedIndexes) == Array(0..<5))
        #expect(details.fetchResultAfterChanges.isEmpty)
        // A change that touches nothing in the result gives no details.
        start = try test.library.currentChangeToken.sequence
        result = details.fetchResultAfterChanges
        _ = try test.makeAssets(1)
        #expect(try test.library.observation.readChanges(after: start).last?.changeDetails(for: result) == nil)
    }

    @Test(arguments: StoragePaths.allCases) func objectDetailsDescribeTheEndOfTheirRoundEvenAfterLaterChanges(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(2)
        let start = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait {
            AssetChangeRequest(for: assets[0]).isFavorite = true
            AssetChangeRequest.deleteAssets([assets[1]])
        }
        let change = try #require(try test.library.observation.readChanges(after: start).last)
        // Later commits don't leak into the round's details: the object is read as it was at the round's end.
        try test.library.performChangesAndWait {
            AssetChangeRequest(for: assets[0]).isFavorite = false
            AssetChangeRequest(for: assets[0]).pixelWidth = 99
        }
        let favourite = try #require(change.changeDetails(for: assets[0]))
        #expect(favourite.objectAfterChanges?.isFavorite == true)
        #expect(favourite.objectAfterChanges?.pixelWidth == assets[0].pixelWidth)
        #expect(change.changeDetails(for: assets[1])?.objectWasDeleted == true)
    }

    @Test(arguments: StoragePaths.allCases) func tooManyTouchedAssetsFallBackToFetchingAgain(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let assets = try test.makeAssets(40)
        let result = try test.library.fetchAssets()
        let start = try test.library.currentChangeToken.sequence
        let limit = IncrementalFetch.maximumTouched(count: result.count)
        try test.library.performChangesAndWait {
            for asset in assets { AssetChangeRequest(for: asset).isFavorite = true }
            for _ in 0..<limit {
                let hash = String(format: "%032llx", UInt64.random(in: 0...UInt64.max))
                _ = AssetChangeRequest.creationRequestForAsset(
                    fromFileAt: URL(fileURLWithPath: "/virtual/\(hash).jpg"), options: AssetCreationOptions(storage: .referenced, contentHash: hash, fileSize: 1))
            }
        }
        let change = try #require(try test.library.observation.readChanges(after: start).last)
        #expect(change.context?.incremental.isEmpty == true)
        let details = try #require(change.changeDetails(for: result))
        #expect(details.changedIndexes.count == 40)
        #expect(apply(details) == details.fetchResultAfterChanges.keys)

        // The result fetched again keeps its sort values: the next round is followed in memory again.
        let after = details.fetchResultAfterChanges
        #expect(after.keyList.denseBaseValues?.count == after.count)
        let next = try test.library.currentChangeToken.sequence
        try test.library.performChangesAndWait { AssetChangeRequest(for: assets[3]).creationDate = .utc(2031, 1, 1) }
        let nextChange = try #require(try test.library.observation.readChanges(after: next).last)
        #expect(nextChange.context?.incremental.isEmpty == false)
        let nextDetails = try #require(nextChange.changeDetails(for: after))
        #expect(nextDetails.fetchResultAfterChanges.keyList.denseBaseValues != nil)
        #expect(nextDetails.fetchResultAfterChanges.keys == (try test.library.fetchAssets()).keys)
    }

    @Test func sqliteValueOrder() {
        let values: [DatabaseValueConvertibleBox] = [
            .init(nil), .init(Int64.min), .init(-1.5), .init(Int64(-1)), .init(0.0), .init(Int64(0)), .init(0.5), .init(Int64(1)),
            .init(Int64.max), .init(9.3e18), .init(1e300), .init(""), .init("A"), .init("a"), .init("é"),
        ]
        for (i, a) in values.enumerated() {
            for (j, b) in values.enumerated() {
                let order = IncrementalFetch.compare(a.value, b.value)
                let tie = (a.value.storage, b.value.storage)
                if case (.double(let x), .int64(let y)) = tie, x == Double(y) { #expect(order == 0); continue }
                if case (.int64(let x), .double(let y)) = tie, Double(x) == y { #expect(order == 0); continue }
                #expect(order == (i < j ? -1 : (i == j ? 0 : 1)), "\(a.value) vs \(b.value)")
            }
        }
    }

    @Test(arguments: [(1, false), (2, false), (3, true), (4, true)] as [(UInt64, Bool)])
    func patchedKeyListsMatchTheArrayTheyStandFor(seed: UInt64, dense: Bool) {
        var g = RandomSource(seed: seed)
        var oracle = (0..<Int64(g.int(in: 2_000...3_000))).map { $0 * 2 }
        // With dense fences every key carries its sort values (two columns here), through patches and compaction.
        let width = 2
        func values(_ key: Int64) -> [Double] { [Double(key) / 2, key % 3 == 0 ? .nan : -Double(key)] }
        var list = dense
            ? FetchResultKeyList(oracle, fences: SortFences(width: width, values: .dense(oracle.flatMap(values))))
            : FetchResultKeyList(oracle)
        var next: Int64 = 1_000_000
        var compacted = false
        for _ in 0..<250 {
            var removed: [Int] = []
            for index in oracle.indices where g.chance(0.003) { removed.append(index) }
            for index in removed.reversed() { oracle.remove(at: index) }
            var inserted: [(index: Int, key: Int64)] = []
            for _ in 0..<g.int(in: 0...8) {
                let index = g.int(in: 0...oracle.count)
                oracle.insert(next, at: index)
                inserted = inserted.map { $0.index >= index ? ($0.index + 1, $0.key) : $0 }
                inserted.append((index, next))
                next += 1
            }
            inserted.sort { $0.index < $1.index }
            let wasPatched = !list.isFlat
            list = list.applying(removed: removed, inserted: inserted, insertedValues: dense ? inserted.flatMap { values($0.key) } : [])
            compacted = compacted || (wasPatched && list.isFlat)
            #expect(list.count == oracle.count)
            #expect(list.array == oracle)
            #expect(oracle.indices.allSatisfy { list[$0] == oracle[$0] })
            if oracle.count > 10 { #expect(list[3..<10] == Array(oracle[3..<10])) }
            if dense {
                let expected = oracle.flatMap(values)
                #expect(list.denseValues.map { zip($0, expected).allSatisfy { $0 == $1 || ($0.isNaN && $1.isNaN) } && $0.count == expected.count } == true)
            } else {
                #expect(list.denseValues == nil)
            }
        }
        #expect(compacted)
    }
}

/// A database value for the order test.
struct DatabaseValueConvertibleBox {
    let value: DatabaseValue
    init(_ int: Int64) { value = int.databaseValue }
    init(_ double: Double) { value = double.databaseValue }
    init(_ string: String) { value = string.databaseValue }
    init(_ none: Never?) { value = .null }
}
