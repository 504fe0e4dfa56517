// Benchmarks of the library engine and its change history. Every figure is read as a ratio against a
// baseline measured in the same run (see the README, "Benchmarks").
import Benchmark
import Foundation
import GRDB
import LibraryFixtures
@_spi(Benchmarks) import PhotoLibrary

let benchmarks: @Sendable () -> Void = {
    let fetchConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident, .mallocCountTotal], warmupIterations: 1,
        maxDuration: .seconds(10), maxIterations: 20)

    // MARK: Issue 2 — fetching a 1,000,000-asset library sorted by creationDate

    Benchmark("Fetch 1M by creationDate: baseline raw SQL ids", configuration: fetchConfiguration) { benchmark in
        let library = try Fixtures.library(assets: 1_000_000)
        let queue = try DatabaseQueue(path: library.url.appending(path: PhotoLibrary.databaseFileName).path, configuration: {
            var configuration = Configuration()
            configuration.readonly = true
            return configuration
        }())
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let ids = try queue.read { db in
                // The library's own query for the default view, run raw.
                try Int64.fetchAll(db, sql: """
                    SELECT id FROM asset WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1)
                    ORDER BY creationDate, id
                    """)
            }
            blackHole(ids.count)
        }
    }

    Benchmark("Fetch 1M by creationDate: count", configuration: fetchConfiguration) { benchmark in
        let library = try Fixtures.library(assets: 1_000_000)
        let options = FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try library.fetchAssets(options: options).count)
        }
    }

    Benchmark("Fetch 1M by creationDate: count + first 100 objects + middle object", configuration: fetchConfiguration) { benchmark in
        let library = try Fixtures.library(assets: 1_000_000)
        let options = FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let result = try library.fetchAssets(options: options)
            for index in 0..<100 { blackHole(try result.object(at: index)) }
            blackHole(try result.object(at: result.count / 2))
        }
    }

    Benchmark("Fetch 1M: baseline materialising every asset row", configuration: .init(
        metrics: [.wallClock, .peakMemoryResident], warmupIterations: 0, maxDuration: .seconds(10), maxIterations: 3)
    ) { benchmark in
        let library = try Fixtures.library(assets: 1_000_000)
        let queue = try DatabaseQueue(path: library.url.appending(path: PhotoLibrary.databaseFileName).path)
        benchmark.startMeasurement()
        let rows = try queue.read { db in try Row.fetchAll(db, sql: "SELECT * FROM asset ORDER BY creationDate, id") }
        blackHole(rows.count)
    }

    // MARK: Issue 4 — change details of a tracked 1,000,000-asset fetch result

    // An application's steady state: one library handle kept open and one fetch result followed from delivery
    // to delivery. Each sample commits a transaction updating 10 assets (5 new creation dates: moves; 5
    // favourites: changes in place), not measured; what is measured is the delivery's work for it: reading
    // the round (as the observation queue does, with the details of the tracked result) and asking the
    // change for the result's details. The result after replaces the result before. The baseline is the same
    // with the incremental path switched off: fetch again and diff, what every delivery did before.
    let observeConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident], warmupIterations: 3, maxDuration: .seconds(60), maxIterations: 60)
    for incremental in [true, false] {
        let name = incremental ? "incremental" : "baseline: fetch again + full diff"
        let observed = ObservedFetch()
        Benchmark(
            "Change details, 1M tracked by creationDate, 10 assets updated: \(name)", configuration: observeConfiguration,
            closure: { benchmark in
                let (library, result) = (observed.library!, observed.result!)
                let start = try library.currentChangeToken
                var generator = SystemRandomNumberGenerator()
                try Workloads.updateTenAssets(library, of: result, using: &generator)
                benchmark.startMeasurement()
                let changes = try library.readChanges(after: start)
                let details = changes.last?.changeDetails(for: result)
                benchmark.stopMeasurement()
                precondition(details?.changedIndexes.count == 10 && details?.fetchResultAfterChanges.count == result.count)
                observed.result = details?.fetchResultAfterChanges
            },
            setup: {
                observed.library = try Fixtures.library(assets: 1_000_000, name: "observed-v1")
                observed.library!.maintainsFetchResultsIncrementally = incremental
                observed.result = try observed.library!.fetchAssets(options: FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")]))
            },
            teardown: {
                observed.result = nil
                observed.library = nil
            })
    }

    // The same two, interleaved, so that both see the same load (the pair above runs one benchmark after the
    // other, a minute apart on a machine shared with builds). On one library handle, cycles of three rounds,
    // each after its own 10-asset commit: one fetching again (incremental path off; measured), then, on a
    // result fetched anew (not measured: a result fetched again with the path off carries no sort values),
    // one incremental round not measured (the fetch's first round prepares its statements) and one measured:
    // the steady state, as above.
    let incrementalRound = BenchmarkMetric.custom("incremental round (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let refetchRound = BenchmarkMetric.custom("fetch again + full diff (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark(
        "Change details, 1M tracked by creationDate, 10 assets updated: incremental and fetch again + diff, interleaved",
        configuration: .init(metrics: [incrementalRound, refetchRound], warmupIterations: 0, maxDuration: .seconds(180), maxIterations: 1)
    ) { benchmark in
        let library = try Fixtures.library(assets: 1_000_000, name: "observed-v1")
        let options = FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")])
        var result = try library.fetchAssets(options: options)
        var generator = SystemRandomNumberGenerator()
        for round in 0..<(3 * 33) {
            let (cycle, step) = round.quotientAndRemainder(dividingBy: 3)
            library.maintainsFetchResultsIncrementally = step != 0
            let start = try library.currentChangeToken
            try Workloads.updateTenAssets(library, of: result, using: &generator)
            let began = ContinuousClock.now
            let details = try library.readChanges(after: start).last?.changeDetails(for: result)
            let elapsed = ContinuousClock.now - began
            precondition(details?.changedIndexes.count == 10 && details?.fetchResultAfterChanges.count == result.count)
            result = step == 0 ? try library.fetchAssets(options: options) : details!.fetchResultAfterChanges
            guard cycle >= 3, step != 1 else { continue }  // Warm-up: the first cycles; the fetch's first round.
            let microseconds = Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000)
            benchmark.measurement(step == 0 ? refetchRound : incrementalRound, microseconds)
        }
        library.maintainsFetchResultsIncrementally = true
    }

    // MARK: Issue 3 — the change history

    let commitConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput], warmupIterations: 2, maxDuration: .seconds(10), maxIterations: 200)
    for journaling in [true, false] {
        Benchmark("Commit 100 asset inserts, journal \(journaling ? "on" : "off (baseline)")", configuration: commitConfiguration) { benchmark in
            let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-commit-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: directory) }
            var options = PhotoLibrary.Options()
            options.journaling = journaling
            let library = try PhotoLibrary(url: directory, options: options)
            var counter = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                try Workloads.commit100Inserts(library, counter: &counter)
            }
        }
    }

    // The same two, interleaved: each iteration commits once into a library with the journal and once into one
    // without (in alternating order), so that both see the same load.
    let journalOn = BenchmarkMetric.custom("commit, journal on (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    let journalOff = BenchmarkMetric.custom("commit, journal off (µs)", polarity: .prefersSmaller, useScalingFactor: false)
    Benchmark("Commit 100 asset inserts, journal on and off interleaved", configuration: .init(
        metrics: [journalOn, journalOff], warmupIterations: 0, maxDuration: .seconds(120), maxIterations: 1)
    ) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-commit-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        var libraries: [(library: PhotoLibrary, metric: BenchmarkMetric, counter: Int)] = []
        for (journaling, metric) in [(true, journalOn), (false, journalOff)] {
            var options = PhotoLibrary.Options()
            options.journaling = journaling
            libraries.append((try PhotoLibrary(url: directory.appending(path: journaling ? "on" : "off"), options: options), metric, 0))
        }
        for pair in 0..<152 {
            for index in pair % 2 == 0 ? [0, 1] : [1, 0] {
                let began = ContinuousClock.now
                try Workloads.commit100Inserts(libraries[index].library, counter: &libraries[index].counter)
                let elapsed = ContinuousClock.now - began
                guard pair >= 2 else { continue }  // Warm-up.
                benchmark.measurement(
                    libraries[index].metric,
                    Int(elapsed.components.seconds * 1_000_000 + elapsed.components.attoseconds / 1_000_000_000_000))
            }
        }
    }

    let historyConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .peakMemoryResident], warmupIterations: 3, maxDuration: .seconds(5), maxIterations: 500)
    for transactions in [100, 100_000] {
        Benchmark("fetchPersistentChanges: last 100 of \(transactions * 10) journal entries", configuration: historyConfiguration) { benchmark in
            let library = try Fixtures.history(transactions: transactions)
            let current = try library.currentChangeToken
            // The token 100 transactions back.
            let all = try library.fetchPersistentChanges(since: try library.historyStatus().oldestValidToken, options: .init(limit: transactions - 100))
            let token = all.endToken
            precondition(token.sequence == current.sequence - 100)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                var count = 0
                for change in try library.fetchPersistentChanges(since: token) {
                    count += try change.changeDetails(for: .asset).insertedLocalIdentifiers.count
                }
                precondition(count == 1_000)
            }
        }
    }

    Benchmark("waitForChanges: commit-to-wake-up through the notification file", configuration: .init(
        metrics: [.custom("wake-up latency (µs)", polarity: .prefersSmaller, useScalingFactor: false)],
        warmupIterations: 2, maxDuration: .seconds(15), maxIterations: 200)
    ) { benchmark in
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-wake-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Two handles: the writer's notification reaches the waiter through the file system (inotify), the
        // same path a commit in another process takes.
        let waiter = try PhotoLibrary(url: directory)
        let writer = try PhotoLibrary(url: directory)
        for _ in benchmark.scaledIterations {
            let token = try waiter.currentChangeToken
            let wake = Task { () -> ContinuousClock.Instant in
                _ = try await waiter.waitForChanges(after: token, timeout: .seconds(10))
                return ContinuousClock.now
            }
            try await Task.sleep(for: .milliseconds(20))
            try writer.performChangesAndWait { _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x") }
            let committed = ContinuousClock.now
            let woke = try await wake.value
            let latency = woke - committed
            benchmark.measurement(
                .custom("wake-up latency (µs)", polarity: .prefersSmaller, useScalingFactor: false),
                Int(max(0, latency.components.seconds * 1_000_000 + latency.components.attoseconds / 1_000_000_000_000)))
        }
    }
}

/// The library and the fetch result a change-details benchmark follows from sample to sample (set up once).
final class ObservedFetch {
    var library: PhotoLibrary?
    var result: FetchResult<Asset>?
}
