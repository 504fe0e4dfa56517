// A driver for profiling the library's hot paths under `valgrind --tool=callgrind`, where instruction
// counts are repeatable on a busy machine (wall-clock figures come from LibraryBenchmarks). The measured
// work of each scenario runs inside a function whose name starts with `profiled`, so that callgrind counts
// it alone:
//
//     swift build -c release --product LibraryProfile
//     valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*profiled*' \
//         .build/release/LibraryProfile details 20
//
// Scenarios:
//   details N          N rounds of: commit 10 asset updates (not counted), then the delivery round and
//                      `changeDetails(for:)` of a tracked 1,000,000-asset fetch sorted by creationDate
//                      (counted); each round continues from the previous round's result after.
//   details-refetch N  the same with the incremental path off: fetch again and diff (the baseline).
//   commit-on N        N commits of 100 asset inserts into a fresh library, journal on (counted).
//   commit-off N       the same with the journal off (the baseline).
import Foundation
import LibraryFixtures
@_spi(Benchmarks) import PhotoLibrary

@inline(never)
func profiledDetails(_ library: PhotoLibrary, after token: ChangeToken, _ result: FetchResult<Asset>) throws -> FetchResultChangeDetails<Asset>? {
    try library.readChanges(after: token).last?.changeDetails(for: result)
}

@inline(never)
func profiledCommit(_ library: PhotoLibrary, counter: inout Int) throws {
    try Workloads.commit100Inserts(library, counter: &counter)
}

func details(rounds: Int, incremental: Bool) throws {
    let library = try Fixtures.library(assets: 1_000_000, name: "observed-v1")
    library.maintainsFetchResultsIncrementally = incremental
    var result = try library.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")]))
    // The same rounds every run: a seeded generator, and the fixture put back as it was at the end.
    var generator = SeededGenerator(seed: 12)
    var original: [String: (creationDate: Date?, isFavorite: Bool)] = [:]
    for _ in 0..<rounds {
        let start = try library.currentChangeToken
        let touched = try Workloads.updateTenAssets(library, of: result, using: &generator)
        for asset in touched where original[asset.localIdentifier] == nil {
            original[asset.localIdentifier] = (asset.creationDate, asset.isFavorite)
        }
        guard let details = try profiledDetails(library, after: start, result), details.changedIndexes.count == 10,
            details.fetchResultAfterChanges.count == result.count
        else { fatalError("unexpected details") }
        result = details.fetchResultAfterChanges
    }
    let assets = try library.fetchAssets(withLocalIdentifiers: Array(original.keys))
    try library.performChangesAndWait(author: "profile") {
        for asset in assets {
            let request = AssetChangeRequest(for: asset)
            request.creationDate = original[asset.localIdentifier]!.creationDate
            request.isFavorite = original[asset.localIdentifier]!.isFavorite
        }
    }
}

func commits(_ count: Int, journaling: Bool) throws {
    let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-profile-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    var options = PhotoLibrary.Options()
    options.journaling = journaling
    let library = try PhotoLibrary(url: directory, options: options)
    var counter = 0
    for _ in 0..<count { try profiledCommit(library, counter: &counter) }
}

let arguments = CommandLine.arguments.dropFirst()
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 10
switch arguments.first {
case "details": try details(rounds: count, incremental: true)
case "details-refetch": try details(rounds: count, incremental: false)
case "commit-on": try commits(count, journaling: true)
case "commit-off": try commits(count, journaling: false)
default:
    FileHandle.standardError.write(Data("usage: LibraryProfile details|details-refetch|commit-on|commit-off [N]\n".utf8))
    exit(2)
}
