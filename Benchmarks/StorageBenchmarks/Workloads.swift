// The storage benchmarks' workloads, each on both engines, interleaved.
import Benchmark
import Foundation
import LibraryFixtures
@_spi(Benchmarks) import PhotoLibrary
import PostgresFixtures

/// Small commits into new libraries (durable: SQLite `synchronous=FULL`, PostgreSQL `fsync` and
/// `synchronous_commit` on), the journal on: LibraryBenchmarks' workload (`Workloads.commitInserts`).
struct CommitThroughput {
    let one: SideBySide
    let hundred: SideBySide
    /// CPU time per commit: this process's, and on PostgreSQL the server's too.
    let cpu: [BenchmarkMetric]
    let warmUp = 5
    let rounds = 150

    func run(_ benchmark: Benchmark) throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-commits-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let postgres = try PostgresLibraries.makeEmpty(prefix: "commits")
        defer { postgres.drop() }
        let libraries: [Engine: PhotoLibrary] = [.sqlite: try PhotoLibrary(url: directory), .postgres: try postgres.open()]
        var counters: [Engine: Int] = [.sqlite: 0, .postgres: 0]
        var logs = [RoundLog("commit of 1 asset insert"), RoundLog("commit of 100 asset inserts")]
        var clientCPU: [Engine: [Duration]] = [.sqlite: [.zero, .zero], .postgres: [.zero, .zero]]
        var serverCPU = [Duration.zero, .zero]
        for round in 0..<(warmUp + rounds) {
            for (index, (size, metrics)) in [(1, one), (100, hundred)].enumerated() {
                var times: [Engine: Duration] = [:]
                for engine in Engine.order(round: round) {
                    // The server's reading (a scan of /proc) outside the window of this process's.
                    let serverBefore = try PostgresServer.shared().cpuTime()
                    let cpuBefore = CPUTime.process()
                    times[engine] = try timed { try Workloads.commitInserts(size, into: libraries[engine]!, counter: &counters[engine]!) }.1
                    let cpuAfter = CPUTime.process()
                    guard round >= warmUp else { continue }
                    clientCPU[engine]![index] += cpuAfter - cpuBefore
                    if engine == .postgres { serverCPU[index] += try PostgresServer.shared().cpuTime() - serverBefore }
                }
                guard round >= warmUp else { continue }
                metrics.record(times, in: benchmark)
                logs[index].add(times)
            }
        }
        logs.forEach { $0.print() }
        for index in 0..<2 {
            let figures = [
                clientCPU[.sqlite]![index], clientCPU[.postgres]![index], serverCPU[index], clientCPU[.postgres]![index] + serverCPU[index],
            ].map { ($0 / rounds).microseconds }
            zip(cpu[(4 * index)...], figures).forEach { benchmark.measurement($0, $1) }
            FileHandle.standardError.write(Data("\(logs[index].title), CPU per commit: SQLite \(figures[0]) µs; PostgreSQL client \(figures[1]) µs + server \(figures[2]) µs = \(figures[3]) µs (PostgreSQL/SQLite \(String(format: "%.1f", Double(figures[3]) / Double(figures[0]))))\n".utf8))
        }
    }

    /// The CPU metrics, for commits of `sizes` inserts.
    static func cpuMetrics(sizes: [Int]) -> [BenchmarkMetric] {
        sizes.flatMap { size in
            ["SQLite", "PostgreSQL client", "PostgreSQL server", "PostgreSQL client + server"].map { who in
                BenchmarkMetric.custom("commit of \(size) asset insert\(size == 1 ? "" : "s"), CPU, \(who) (µs)", polarity: .prefersSmaller, useScalingFactor: false)
            }
        }
    }
}

/// `fetchPersistentChanges(since:)` on a journal of 1,000,000 asset entries (100,000 transactions of 10 inserts;
/// 1,300,000 records with the 3 collections each transaction updates):
/// the last 100 transactions (a client catching up: LibraryBenchmarks' workload), and the whole journal
/// (a client starting from the oldest valid token).
struct JournalReads {
    let lastHundred: SideBySide
    let whole: SideBySide

    func run(_ benchmark: Benchmark) throws {
        let libraries = try StorageFixtures.history()
        var recent: [Engine: ChangeToken] = [:]
        var oldest: [Engine: ChangeToken] = [:]
        for (engine, library) in libraries {
            let status = try library.historyStatus()
            oldest[engine] = status.oldestValidToken
            recent[engine] = try library.fetchPersistentChanges(since: status.oldestValidToken, options: .init(limit: status.transactionCount - 100)).endToken
            // 1,300,000 records: each transaction's 10 asset inserts, and 3 collections it updates (Library,
            // Recently Added, the Undated moment).
            guard recent[engine]!.sequence == status.currentToken.sequence - 100, status.recordCount == 1_300_000 else {
                throw FixtureError("\(engine): token \(recent[engine]!.sequence) of \(status.currentToken.sequence), \(status.recordCount) records")
            }
        }
        var logs = [RoundLog("last 100 transactions"), RoundLog("whole journal")]
        for round in 0..<43 {
            let times = try Dictionary(uniqueKeysWithValues: Engine.order(round: round).map { engine in
                (engine, try timed { try read(libraries[engine]!, since: recent[engine]!, expecting: 1_000) }.1)
            })
            guard round >= 3 else { continue }
            lastHundred.record(times, in: benchmark)
            logs[0].add(times)
        }
        for round in 0..<5 {
            let times = try Dictionary(uniqueKeysWithValues: Engine.order(round: round).map { engine in
                (engine, try timed { try read(libraries[engine]!, since: oldest[engine]!, expecting: 1_000_000) }.1)
            })
            guard round >= 1 else { continue }
            for (engine, time) in times { benchmark.measurement(whole.metric(engine), time.microseconds / 1_000) }
            benchmark.measurement(whole.ratio, Int((times[.postgres]! / times[.sqlite]! * 100).rounded()))
            logs[1].add(times)
        }
        logs.forEach { $0.print() }
    }

    /// Reads every change since `token` with its asset details, as a client does.
    private func read(_ library: PhotoLibrary, since token: ChangeToken, expecting inserts: Int) throws {
        var count = 0
        for change in try library.fetchPersistentChanges(since: token) {
            count += try change.changeDetails(for: .asset).insertedLocalIdentifiers.count
        }
        precondition(count == inserts, "read \(count) inserts, expected \(inserts)")
    }
}

/// An application following a fetch result of every asset by creation date (1,000,000) across commits of
/// 10-asset updates (5 moves, 5 changes in place): LibraryBenchmarks' workload, through the same SPI. Each
/// round commits on each engine (timed apart), then times the delivery round (`readChanges`, what the
/// observation queue does) and `changeDetails(for:)`; the result after replaces the result before.
struct TrackedFetch {
    let fetch: SideBySide
    let update: SideBySide
    let details: SideBySide

    func run(_ benchmark: Benchmark) throws {
        let libraries = try StorageFixtures.assets()
        let options = FetchOptions(sortDescriptors: [FetchSort(key: "creationDate")])
        var results: [Engine: FetchResult<Asset>] = [:]
        var logs = [RoundLog("fetch + count of 1,000,000"), RoundLog("commit of the 10-asset update"), RoundLog("delivery round + changeDetails")]
        for round in 0..<6 {
            var times: [Engine: Duration] = [:]
            for engine in Engine.order(round: round) {
                let (result, time) = try timed { () throws -> FetchResult<Asset> in
                    let result = try libraries[engine]!.fetchAssets(options: options)
                    precondition(result.count == 1_000_000)
                    return result
                }
                (results[engine], times[engine]) = (result, time)
            }
            guard round >= 1 else { continue }
            for (engine, time) in times { benchmark.measurement(fetch.metric(engine), time.microseconds / 1_000) }
            benchmark.measurement(fetch.ratio, Int((times[.postgres]! / times[.sqlite]! * 100).rounded()))
            logs[0].add(times)
        }
        var generator = SystemRandomNumberGenerator()
        for round in 0..<43 {
            var commitTimes: [Engine: Duration] = [:]
            var roundTimes: [Engine: Duration] = [:]
            for engine in Engine.order(round: round) {
                let library = libraries[engine]!
                let start = try library.currentChangeToken
                commitTimes[engine] = try timed { try Workloads.updateTenAssets(library, of: results[engine]!, using: &generator) }.1
                let (changed, time) = try timed { try library.readChanges(after: start).last?.changeDetails(for: results[engine]!) }
                precondition(changed?.changedIndexes.count == 10 && changed?.fetchResultAfterChanges.count == 1_000_000)
                (results[engine], roundTimes[engine]) = (changed!.fetchResultAfterChanges, time)
            }
            guard round >= 3 else { continue }  // Warm-up: the first rounds prepare statements, load pages.
            update.record(commitTimes, in: benchmark)
            details.record(roundTimes, in: benchmark)
            logs[1].add(commitTimes)
            logs[2].add(roundTimes)
        }
        logs.forEach { $0.print() }
    }
}

struct FixtureError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
