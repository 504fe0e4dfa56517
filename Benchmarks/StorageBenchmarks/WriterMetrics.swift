// 10 writers at once on one library: commits per second, PostgreSQL beside one writer and beside SQLite.
import Benchmark
import Foundation
import PhotoLibrary
import PostgresFixtures

/// Phases of 10 handles committing at once and of 1 handle alone (the baseline), on a PostgreSQL library and
/// on a SQLite one, in rotating order; every phase's journal is checked (``ConcurrentWriters``).
struct WriterMetrics: Sendable {
    struct Phase: Hashable {
        let engine: Engine
        let writers: Int
    }

    let phases = [Phase(engine: .postgres, writers: 10), Phase(engine: .postgres, writers: 1), Phase(engine: .sqlite, writers: 10), Phase(engine: .sqlite, writers: 1)]
    let commitsPerPhase = 300
    let cycles = 5

    func metric(_ phase: Phase) -> BenchmarkMetric {
        .custom("\(phase.engine.rawValue), \(phase.writers) writer\(phase.writers == 1 ? "" : "s") (commits/s)", polarity: .prefersLarger, useScalingFactor: false)
    }

    let tenOverOne = BenchmarkMetric.custom("PostgreSQL, 10 writers / 1 writer (×100)", polarity: .prefersLarger, useScalingFactor: false)
    let postgresOverSQLite = BenchmarkMetric.custom("10 writers, PostgreSQL/SQLite (×100)", polarity: .prefersLarger, useScalingFactor: false)

    var all: [BenchmarkMetric] { phases.map(metric) + [tenOverOne, postgresOverSQLite] }

    func run(_ benchmark: Benchmark) async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-writers-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let postgres = try PostgresLibraries.makeEmpty(prefix: "writers")
        defer { postgres.drop() }
        let handles: [Engine: [PhotoLibrary]] = [
            .sqlite: try (0..<10).map { _ in try PhotoLibrary(url: directory) },
            .postgres: try (0..<10).map { _ in try postgres.open() },
        ]
        var rates: [Phase: [Double]] = [:]
        for cycle in 0..<(cycles + 1) {
            var cycleRates: [Phase: Double] = [:]
            for offset in 0..<phases.count {
                let phase = phases[(offset + cycle) % phases.count]
                let writers = ConcurrentWriters(
                    handles: Array(handles[phase.engine]!.prefix(phase.writers)), commits: commitsPerPhase / phase.writers,
                    run: cycle * phases.count + offset)
                let elapsed = try await writers.measure()
                cycleRates[phase] = Double(commitsPerPhase) / (Double(elapsed.microseconds) / 1_000_000)
            }
            guard cycle >= 1 else { continue }  // Warm-up.
            for (phase, rate) in cycleRates {
                benchmark.measurement(metric(phase), Int(rate.rounded()))
                rates[phase, default: []].append(rate)
            }
            let postgresTen = cycleRates[Phase(engine: .postgres, writers: 10)]!
            benchmark.measurement(tenOverOne, Int((postgresTen / cycleRates[Phase(engine: .postgres, writers: 1)]! * 100).rounded()))
            benchmark.measurement(postgresOverSQLite, Int((postgresTen / cycleRates[Phase(engine: .sqlite, writers: 10)]! * 100).rounded()))
        }
        let summary = phases.map { phase in
            let sorted = rates[phase]!.sorted()
            return "\(phase.engine.rawValue) \(phase.writers)w: median \(Int(sorted[sorted.count / 2])) commits/s (\(Int(sorted.first!))–\(Int(sorted.last!)))"
        }
        FileHandle.standardError.write(Data("concurrent writers, \(commitsPerPhase) commits a phase: \(summary.joined(separator: "; ")); load average \(loadAverage)\n".utf8))
    }
}
