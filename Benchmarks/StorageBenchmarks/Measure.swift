// What the storage benchmarks share: engines side by side, timings, the machine's load.
import Benchmark
import Foundation
import LibraryFixtures
import PhotoLibrary
import PostgresFixtures

/// The two engines of one comparison: the same workload on a SQLite library and a PostgreSQL one.
enum Engine: String, CaseIterable {
    case sqlite = "SQLite"
    case postgres = "PostgreSQL"

    /// The order of a round's engines, alternating from round to round, so that neither always runs first.
    static func order(round: Int) -> [Engine] { round % 2 == 0 ? [.sqlite, .postgres] : [.postgres, .sqlite] }
}

/// A figure measured on both engines, and their ratio round by round: three custom metrics.
struct SideBySide {
    let sqlite: BenchmarkMetric
    let postgres: BenchmarkMetric
    /// PostgreSQL's time over SQLite's in the same round, × 100.
    let ratio: BenchmarkMetric

    init(_ what: String, unit: String = "µs") {
        sqlite = .custom("\(what), SQLite (\(unit))", polarity: .prefersSmaller, useScalingFactor: false)
        postgres = .custom("\(what), PostgreSQL (\(unit))", polarity: .prefersSmaller, useScalingFactor: false)
        ratio = .custom("\(what), PostgreSQL/SQLite (×100)", polarity: .prefersSmaller, useScalingFactor: false)
    }

    var metrics: [BenchmarkMetric] { [sqlite, postgres, ratio] }

    func metric(_ engine: Engine) -> BenchmarkMetric { engine == .sqlite ? sqlite : postgres }

    /// Records one round: each engine's time, and their ratio.
    func record(_ times: [Engine: Duration], in benchmark: Benchmark) {
        for (engine, time) in times { benchmark.measurement(metric(engine), time.microseconds) }
        if let sqlite = times[.sqlite], let postgres = times[.postgres] {
            benchmark.measurement(ratio, Int((postgres / sqlite * 100).rounded()))
        }
    }
}

/// Medians of a benchmark's rounds, printed with the load average (the package's table has the percentiles).
struct RoundLog {
    let title: String
    private(set) var times: [Engine: [Duration]] = [:]

    init(_ title: String) { self.title = title }

    mutating func add(_ round: [Engine: Duration]) {
        for (engine, time) in round { times[engine, default: []].append(time) }
    }

    func print() {
        let medians = Engine.allCases.compactMap { engine in times[engine].map { (engine, $0.sorted()[$0.count / 2]) } }
        let text = medians.map { "\($0.0.rawValue) \($0.1.microseconds) µs" }.joined(separator: ", ")
        var ratio = ""
        if medians.count == 2 { ratio = String(format: "; PostgreSQL/SQLite %.2f", medians[1].1 / medians[0].1) }
        FileHandle.standardError.write(Data("\(title): medians of \(times.first?.value.count ?? 0) rounds: \(text)\(ratio); load average \(loadAverage)\n".utf8))
    }
}

/// Times `body`.
func timed<T>(_ body: () throws -> T) rethrows -> (T, Duration) {
    let began = ContinuousClock.now
    let result = try body()
    return (result, ContinuousClock.now - began)
}

var loadAverage: String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").prefix(3).joined(separator: " ")
}

extension Duration {
    var microseconds: Int { Int(components.seconds * 1_000_000 + components.attoseconds / 1_000_000_000_000) }
}
