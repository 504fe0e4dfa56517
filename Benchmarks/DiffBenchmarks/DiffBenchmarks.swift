// IndexDiff against the standard library's and swift-collections' diffs, on DifferenceKit's published
// benchmark shape. Run from Benchmarks/: `swift package benchmark --target DiffBenchmarks`.
//
// Workloads (identifiers are Int64 row ids unless a name says otherwise):
// (a) 100,000 identifiers; delete 20,000..<30,000; insert 10,000 new at 30,000; shuffle 0..<2,000.
// (b) the same scaled ×10: 1,000,000 identifiers.
// (c) 1,000,000 identifiers; one insertion at the head, one move front → back, one swap of two far-apart
//     elements: minimal = 1 insertion and 3 moves.
import Benchmark
import Collections
import IndexDiff

/// Before and after lists of one workload.
struct Workload<ID: Hashable & Sendable>: Sendable {
    var before: [ID]
    var after: [ID]

    func map<Other: Hashable & Sendable>(_ transform: (ID) -> Other) -> Workload<Other> {
        Workload<Other>(before: before.map(transform), after: after.map(transform))
    }
}

/// SplitMix64: a seeded generator, so that every run diffs the same lists.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

enum Workloads {
    /// DifferenceKit's shape (its benchmark uses UUIDs) with every number multiplied by `scale`.
    static func differenceKit(scale: Int) -> Workload<Int64> {
        let count = 100_000 * scale
        let before = Array(0..<Int64(count))
        var after = before
        after.removeSubrange((20_000 * scale)..<(30_000 * scale))
        after.insert(contentsOf: (0..<Int64(10_000 * scale)).map { Int64(count) + $0 }, at: 30_000 * scale)
        var rng = SplitMix64(state: 2_024)
        after[0..<(2_000 * scale)].shuffle(using: &rng)
        return Workload(before: before, after: after)
    }

    /// (c): one insertion at the head, one move front → back, one far swap, in a million.
    static func fewEditsInAMillion() -> Workload<Int64> {
        let before = Array(0..<Int64(1_000_000))
        var after = Array(before[1...]) + [before[0]]
        after.swapAt(250_000, 750_000)
        after.insert(-1, at: 0)
        return Workload(before: before, after: after)
    }

    /// Row ids scrambled over all of Int64 (a bijection, so still unique): no sequential locality.
    static func scrambled(_ workload: Workload<Int64>) -> Workload<Int64> {
        workload.map { id in
            var z = UInt64(bitPattern: id) &+ 0x9E37_79B9_7F4A_7C15
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return Int64(bitPattern: z ^ (z >> 31))
        }
    }

    /// Identifiers shaped like PhotoKit's local identifiers (a UUID and a suffix, 42 bytes: heap strings).
    static func localIdentifiers(_ workload: Workload<Int64>) -> Workload<String> {
        workload.map { id in
            let hex = String(UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15, radix: 16)
            let padded = String(repeating: "0", count: 16 - hex.count) + hex
            return "\(padded.prefix(8))-\(padded.dropFirst(8).prefix(4))-4C7A-9E1B-\(padded.suffix(4))00000000/L0/001"
        }
    }

    /// Checks the diff IndexDiff computes for `workload` against its contract, once, outside any
    /// measurement, and returns the workload.
    static func checked<ID>(_ workload: Workload<ID>, expectedMoves: Int? = nil) -> Workload<ID> {
        let diff = try! IndexDiff.compute(from: workload.before, to: workload.after)
        precondition(diff.applied(to: workload.before, after: workload.after) == workload.after)
        if let expectedMoves { precondition(diff.moves.count == expectedMoves, "\(diff.moves.count) moves") }
        return workload
    }
}

let benchmarks: @Sendable () -> Void = {
    let metrics: [BenchmarkMetric] = [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident]
    Benchmark.defaultConfiguration = .init(
        metrics: metrics,
        timeUnits: .microseconds,
        warmupIterations: 3,
        maxDuration: .seconds(3),
        maxIterations: 1_000
    )
    let memoryMetrics = metrics + [.peakMemoryResidentDelta, .mallocBytesCount]

    // MARK: (a) 100,000 identifiers

    Benchmark("(a) IndexDiff, Int64") { benchmark, workload in
        for _ in benchmark.scaledIterations {
            blackHole(try IndexDiff.compute(from: workload.before, to: workload.after))
        }
    } setup: {
        Workloads.checked(Workloads.differenceKit(scale: 1))
    }

    Benchmark("(a) IndexDiff, scrambled Int64") { benchmark, workload in
        for _ in benchmark.scaledIterations {
            blackHole(try IndexDiff.compute(from: workload.before, to: workload.after))
        }
    } setup: {
        Workloads.checked(Workloads.scrambled(Workloads.differenceKit(scale: 1)))
    }

    Benchmark("(a) IndexDiff, String local identifiers") { benchmark, workload in
        for _ in benchmark.scaledIterations {
            blackHole(try IndexDiff.compute(from: workload.before, to: workload.after))
        }
    } setup: {
        Workloads.checked(Workloads.localIdentifiers(Workloads.differenceKit(scale: 1)))
    }

    Benchmark(
        "(a) stdlib difference(from:).inferringMoves(), Int64",
        configuration: .init(metrics: metrics, timeUnits: .milliseconds, warmupIterations: 0, maxDuration: .seconds(60), maxIterations: 2)
    ) { benchmark, workload in
        for _ in benchmark.scaledIterations {
            blackHole(workload.after.difference(from: workload.before).inferringMoves())
        }
    } setup: {
        Workloads.differenceKit(scale: 1)
    }

    Benchmark("(a) OrderedSet(after).difference(from: OrderedSet(before)), Int64") { benchmark, workload in
        for _ in benchmark.scaledIterations {
            blackHole(OrderedSet(workload.after).difference(from: OrderedSet(workload.before)))
        }
    } setup: {
        Workloads.differenceKit(scale: 1)
    }

    Benchmark("(a) OrderedSet.difference(from:), sets prebuilt, Int64") {
        (benchmark, sets: (before: OrderedSet<Int64>, after: OrderedSet<Int64>)) in
        for _ in benchmark.scaledIterations {
            blackHole(sets.after.difference(from: sets.before))
        }
    } setup: {
        let workload = Workloads.differenceKit(scale: 1)
        return (before: OrderedSet(workload.before), after: OrderedSet(workload.after))
    }

    // MARK: (b) 1,000,000 identifiers

    Benchmark(
        "(b) IndexDiff, Int64, ×10",
        configuration: .init(metrics: memoryMetrics, maxDuration: .seconds(5), maxIterations: 200)
    ) { benchmark, workload in
        for _ in benchmark.scaledIterations {
            blackHole(try IndexDiff.compute(from: workload.before, to: workload.after))
        }
    } setup: {
        Workloads.checked(Workloads.differenceKit(scale: 10))
    }

    Benchmark(
        "(b) IndexDiff, scrambled Int64, ×10",
        configuration: .init(metrics: memoryMetrics, maxDuration: .seconds(5), maxIterations: 200)
    ) { benchmark, workload in
        for _ in benchmark.scaledIterations {
            blackHole(try IndexDiff.compute(from: workload.before, to: workload.after))
        }
    } setup: {
        Workloads.checked(Workloads.scrambled(Workloads.differenceKit(scale: 10)))
    }

    // MARK: (c) a few edits in a million

    Benchmark(
        "(c) IndexDiff, Int64, 1 insertion + front→back + far swap in 1M",
        configuration: .init(metrics: memoryMetrics, maxDuration: .seconds(5), maxIterations: 200)
    ) { benchmark, workload in
        for _ in benchmark.scaledIterations {
            blackHole(try IndexDiff.compute(from: workload.before, to: workload.after))
        }
    } setup: {
        Workloads.checked(Workloads.fewEditsInAMillion(), expectedMoves: 3)
    }
}
