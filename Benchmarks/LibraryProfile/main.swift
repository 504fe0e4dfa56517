// A driver for profiling the library's hot paths under `valgrind --tool=callgrind`, where instruction
// counts are repeatable on a busy machine (wall-clock figures come from LibraryBenchmarks). The measured
// work of each scenario runs inside a function whose name starts with `profiled`, so that callgrind counts
// it alone:
//
//     swift build -c release --product LibraryProfile
//     objcopy --strip-debug .build/release/LibraryProfile /tmp/LibraryProfile
//     valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*profiled*' \
//         /tmp/LibraryProfile details 20
//
// (Debian 12's valgrind 3.19 gives up on the DWARF 5 debug information of a release build, "unhandled dwarf2
// abbrev form code 0x25": the copy without it keeps the symbols the toggle and callgrind_annotate go by.)
//
// Scenarios:
//   details N          N rounds of: commit 10 asset updates (not counted), then the delivery round and
//                      `changeDetails(for:)` of a tracked 1,000,000-asset fetch sorted by creationDate
//                      (counted); each round continues from the previous round's result after.
//   details-refetch N  the same with the incremental path off: fetch again and diff (the baseline).
//   details-timed N, details-refetch-timed N
//                      the same, printing the wall-clock time of the measured part (min, median, max).
//   details-floor N    rounds whose transaction touches no asset (an album created): the floor of a round.
//   details-commits-only N
//                      the commits alone (to tell a round's system calls from its commit's, with strace).
//   commit-on N        N commits of 100 asset inserts into a fresh library, journal on (counted).
//   commit-off N       the same with the journal off (the baseline).
//   commits-compared N N commits into each, alternating between a library with the journal and one without,
//                      timed: medians and the throughput ratio.
import Foundation
import LibraryFixtures
@_spi(Benchmarks) import PhotoLibrary

@inline(never)
func profiledDetails(_ library: PhotoLibrary, after token: ChangeToken, _ result: FetchResult<Asset>) throws -> FetchResultChangeDetails<Asset>? {
    try library.readChanges(after: token).last?.changeDetails(for: result)
}

@inline(never)
func profiledFloor(_ library: PhotoLibrary, after token: ChangeToken) throws -> [Change] {
    try library.readChanges(after: token)
}

@inline(never)
func profiledCommit(_ library: PhotoLibrary, counter: inout Int) throws {
    try Workloads.commit100Inserts(library, counter: &counter)
}

func details(rounds: Int, incremental: Bool, measured: Bool = true, timed: Bool = false) throws {
    let library = try Fixtures.library(assets: 1_000_000, name: "observed-v1")
    library.maintainsFetchResultsIncrementally = incremental
    var result = try library.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")]))
    // The same rounds every run: a seeded generator, and the fixture put back as it was at the end.
    var generator = SeededGenerator(seed: 12)
    var original: [String: (creationDate: Date?, isFavorite: Bool)] = [:]
    var durations: [Duration] = []
    for _ in 0..<rounds {
        let start = try library.currentChangeToken
        let touched = try Workloads.updateTenAssets(library, of: result, using: &generator)
        for asset in touched where original[asset.localIdentifier] == nil {
            original[asset.localIdentifier] = (asset.creationDate, asset.isFavorite)
        }
        guard measured else { continue }
        if roundTwice { _ = try library.readChanges(after: start).last?.changeDetails(for: result) }
        spinIfAsked()
        let began = ContinuousClock.now
        if markSystemCalls { _ = access("/profiled-begin", F_OK) }  // Markers for strace.
        // The first `warmUp` rounds run outside the counted function (PROFILE_WARMUP: a profile of the steady
        // state, without the first round's statement preparation and page loads).
        let round = durations.count
        let details = round < warmUp
            ? try library.readChanges(after: start).last?.changeDetails(for: result) : try profiledDetails(library, after: start, result)
        guard let details, details.changedIndexes.count == 10,
            details.fetchResultAfterChanges.count == result.count
        else { fatalError("unexpected details") }
        if markSystemCalls { _ = access("/profiled-end", F_OK) }
        durations.append(ContinuousClock.now - began)
        result = details.fetchResultAfterChanges
    }
    if timed, durations.count > warmUp {
        let sorted = durations.dropFirst(warmUp).sorted()
        print("rounds \(sorted.count): min \(sorted[0]), median \(sorted[sorted.count / 2]), max \(sorted[sorted.count - 1])")
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

/// The floor of a delivery round: each round's transaction creates an album, so the tracked result's update
/// finds no asset touched; what is timed is the rest of the round.
func floor(rounds: Int) throws {
    let library = try Fixtures.library(assets: 1_000_000, name: "observed-v1")
    let result = try library.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")]))
    var durations: [Duration] = []
    for _ in 0..<rounds {
        let start = try library.currentChangeToken
        try library.performChangesAndWait(author: "profile") {
            _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "floor")
        }
        spinIfAsked()
        let began = ContinuousClock.now
        let changes = durations.count < warmUp ? try library.readChanges(after: start) : try profiledFloor(library, after: start)
        durations.append(ContinuousClock.now - began)
        precondition(changes.last?.changeDetails(for: result) == nil)
    }
    let sorted = durations.dropFirst(warmUp).sorted()
    print("rounds \(sorted.count): min \(sorted[0]), median \(sorted[sorted.count / 2]), max \(sorted[sorted.count - 1])")
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

/// Commits of 100 inserts alternating between a library with the journal and one without, timed: the
/// medians and the throughput ratio, with the machine's noise spread over both alike.
func commitsCompared(_ count: Int) throws {
    let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-profile-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    var libraries: [PhotoLibrary] = []
    for journaling in [true, false] {
        var options = PhotoLibrary.Options()
        options.journaling = journaling
        libraries.append(try PhotoLibrary(url: directory.appending(path: journaling ? "on" : "off"), options: options))
    }
    var counters = [0, 0]
    var durations: [[Duration]] = [[], []]
    for round in 0..<(2 * count) {
        let which = round % 2
        let began = ContinuousClock.now
        try Workloads.commit100Inserts(libraries[which], counter: &counters[which])
        durations[which].append(ContinuousClock.now - began)
    }
    let medians = durations.map { $0.sorted()[$0.count / 2] }
    print("journal on: median \(medians[0]); off: median \(medians[1]); throughput on/off \(medians[1] / medians[0])")
}

/// With PROFILE_SPIN=µs, the thread spins that long before each measured round (diagnostic: a round on a
/// processor kept busy, against one that slept in the commit's `fsync`).
let spinMicroseconds = Int(ProcessInfo.processInfo.environment["PROFILE_SPIN"] ?? "") ?? 0

func spinIfAsked() {
    guard spinMicroseconds > 0 else { return }
    let until = ContinuousClock.now + .microseconds(spinMicroseconds)
    while ContinuousClock.now < until {}
}
/// With PROFILE_TWICE set, each measured round runs once before, not measured (diagnostic: a round on warm
/// caches).
let roundTwice = ProcessInfo.processInfo.environment["PROFILE_TWICE"] != nil
/// With PROFILE_MARKS set, the measured part of each round is bracketed by two failing `access` calls, so that
/// `strace -f` shows which system calls it makes.
let markSystemCalls = ProcessInfo.processInfo.environment["PROFILE_MARKS"] != nil
/// With PROFILE_WARMUP=K, the first K rounds of `details` and `details-floor` aren't counted by callgrind (nor timed).
let warmUp = ProcessInfo.processInfo.environment["PROFILE_WARMUP"].flatMap { Int($0) } ?? 0

let arguments = CommandLine.arguments.dropFirst()
let count = arguments.dropFirst().first.flatMap { Int($0) } ?? 10
switch arguments.first {
case "details": try details(rounds: count, incremental: true)
case "details-refetch": try details(rounds: count, incremental: false)
case "details-timed": try details(rounds: count, incremental: true, timed: true)
case "details-refetch-timed": try details(rounds: count, incremental: false, timed: true)
case "details-commits-only": try details(rounds: count, incremental: true, measured: false)
case "details-floor": try floor(rounds: count)
case "commit-on": try commits(count, journaling: true)
case "commit-off": try commits(count, journaling: false)
case "commits-compared": try commitsCompared(count)
default:
    FileHandle.standardError.write(Data("usage: LibraryProfile details[-refetch][-timed]|details-floor|details-commits-only|commit-on|commit-off|commits-compared [N]\n".utf8))
    exit(2)
}
