// The storage engines side by side (issue 15): the same workloads on a SQLite library and a PostgreSQL one,
// interleaved round by round in one run, so that both see the same load; the figures to read are the
// PostgreSQL/SQLite ratios. PostgreSQL is a server of the benchmark's own (PostgresFixtures.PostgresServer):
//
//     cd Benchmarks && swift package --disable-sandbox benchmark --target StorageBenchmarks
//
// The first run builds the fixtures (a 1,000,000-asset library and a 1,000,000-entry journal, on SQLite
// through the library, then copied into PostgreSQL): about ten minutes; later runs reuse them.
import Benchmark
import Foundation
import LibraryFixtures
@_spi(Benchmarks) import PhotoLibrary
import PostgresFixtures

/// The fixture pairs: a SQLite library and its PostgreSQL copy.
enum StorageFixtures {
    /// 1,000,000 assets (creation dates over ten years, in random order), in 100 transactions.
    static func assets() throws -> [Engine: PhotoLibrary] {
        let sqlite = try Fixtures.library(assets: 1_000_000, name: "storage-v1")
        return [.sqlite: sqlite, .postgres: try PostgresLibraries.copy(of: sqlite, name: "assets_1000000")]
    }

    /// A journal of 1,000,000 entries: 100,000 transactions of 10 asset inserts.
    static func history() throws -> [Engine: PhotoLibrary] {
        let sqlite = try Fixtures.history(transactions: 100_000)
        return [.sqlite: sqlite, .postgres: try PostgresLibraries.copy(of: sqlite, name: "history_100000")]
    }
}

let benchmarks: @Sendable () -> Void = {
    let once = { (metrics: [BenchmarkMetric]) in
        Benchmark.Configuration(metrics: metrics, warmupIterations: 0, maxDuration: .seconds(600), maxIterations: 1)
    }

    let commitOne = SideBySide("commit of 1 asset insert")
    let commitHundred = SideBySide("commit of 100 asset inserts")
    let commitCPU = CommitThroughput.cpuMetrics(sizes: [1, 100])
    Benchmark("Commit throughput, journal on: SQLite and PostgreSQL interleaved", configuration: once(commitOne.metrics + commitHundred.metrics + commitCPU)) {
        benchmark in try CommitThroughput(one: commitOne, hundred: commitHundred, cpu: commitCPU).run(benchmark)
    }

    let lastHundred = SideBySide("last 100 transactions (1,000 entries)")
    let wholeJournal = SideBySide("whole journal (100,000 transactions)", unit: "ms")
    Benchmark("fetchPersistentChanges over a 1,000,000-entry journal: SQLite and PostgreSQL interleaved", configuration: once(lastHundred.metrics + wholeJournal.metrics)) {
        benchmark in try JournalReads(lastHundred: lastHundred, whole: wholeJournal).run(benchmark)
    }

    let fetch = SideBySide("fetch + count", unit: "ms")
    let update = SideBySide("commit of the 10-asset update")
    let details = SideBySide("delivery round + changeDetails")
    Benchmark("Change details, 1M tracked by creationDate, 10 assets updated: SQLite and PostgreSQL interleaved", configuration: once(fetch.metrics + update.metrics + details.metrics)) {
        benchmark in try TrackedFetch(fetch: fetch, update: update, details: details).run(benchmark)
    }

    let writers = WriterMetrics()
    Benchmark("10 concurrent writers, 1-asset commits: PostgreSQL (1 writer, and SQLite, in the same run)", configuration: once(writers.all)) {
        benchmark in try await writers.run(benchmark)
    }
}
