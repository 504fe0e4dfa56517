import SeededRandom
import Testing

@testable import IndexDiff

/// An identifier with a deliberately bad hash (four buckets), to exercise the `Dictionary` path with
/// collisions.
struct CollidingID: Hashable {
    var value: Int64

    func hash(into hasher: inout Hasher) {
        hasher.combine(value & 3)
    }
}

@Suite("Random lists keep the contract")
struct IndexDiffPropertyTests {
    /// The seed of iteration `iteration` at size `size`; printed in every failure message.
    static func seed(size: Int, iteration: Int, salt: UInt64 = 0) -> UInt64 {
        (UInt64(size) << 32 | UInt64(iteration)) ^ salt
    }

    @Test("Random Int64 lists of 0 to 300 identifiers keep every rule", arguments: Array(0...300))
    func smallRandomLists(size: Int) throws {
        let iterations = size <= 12 ? 60 : 5
        for iteration in 0..<iterations {
            let scenario = Scenario.random(seed: Self.seed(size: size, iteration: iteration), size: size)
            let diff = try IndexDiff.compute(from: scenario.before, to: scenario.after, changed: scenario.changed)
            expectContract(diff, before: scenario.before, after: scenario.after, changed: scenario.changed, scenario.description)
        }
    }

    @Test("Larger random Int64 lists keep every rule", arguments: [1_000, 4_000, 20_000])
    func largerRandomLists(size: Int) throws {
        for iteration in 0..<3 {
            let scenario = Scenario.random(seed: Self.seed(size: size, iteration: iteration), size: size)
            let diff = try IndexDiff.compute(from: scenario.before, to: scenario.after, changed: scenario.changed)
            expectContract(diff, before: scenario.before, after: scenario.after, changed: scenario.changed, scenario.description)
        }
    }

    @Test("Every identifier type and storage gives the same diff", arguments: [0, 1, 2, 5, 9, 40, 150, 600])
    func identifierTypesAgree(size: Int) throws {
        for iteration in 0..<20 {
            let scenario = Scenario.random(seed: Self.seed(size: size, iteration: iteration, salt: 0xA5A5), size: size)
            let context = scenario.description
            let expected = try IndexDiff.compute(from: scenario.before, to: scenario.after, changed: scenario.changed)
            expectContract(expected, before: scenario.before, after: scenario.after, changed: scenario.changed, context)

            // Int: the Int64 table through rebound memory.
            let ints = try IndexDiff.compute(
                from: scenario.before.map(Int.init),
                to: scenario.after.map(Int.init),
                changed: Set(scenario.changed.map(Int.init))
            )
            #expect(ints == expected, "Int; \(context)")

            // String: the Dictionary table.
            let strings = try IndexDiff.compute(
                from: scenario.before.map { "id\($0)" },
                to: scenario.after.map { "id\($0)" },
                changed: Set(scenario.changed.map { "id\($0)" })
            )
            #expect(strings == expected, "String; \(context)")

            // A terrible hash: the Dictionary table with collisions.
            let colliding = try IndexDiff.compute(
                from: scenario.before.map(CollidingID.init),
                to: scenario.after.map(CollidingID.init),
                changed: Set(scenario.changed.map(CollidingID.init))
            )
            #expect(colliding == expected, "colliding hash; \(context)")

            // Collections without contiguous storage are copied first.
            let lazy = try IndexDiff.compute(
                from: scenario.before.lazy.map { $0 },
                to: scenario.after.lazy.map { $0 },
                changed: scenario.changed
            )
            #expect(lazy == expected, "non-contiguous; \(context)")

            // Slices, with a non-zero start index: indexes are still offsets from the start.
            let paddedBefore = [Int64.min] + scenario.before
            let paddedAfter = [Int64.min] + scenario.after
            let slices = try IndexDiff.compute(
                from: paddedBefore[1...],
                to: paddedAfter[1...],
                changed: scenario.changed
            )
            #expect(slices == expected, "ArraySlice; \(context)")
        }
    }

    @Test("The same input always gives the same diff", arguments: [3, 30, 300])
    func deterministic(size: Int) throws {
        for iteration in 0..<20 {
            let scenario = Scenario.random(seed: Self.seed(size: size, iteration: iteration, salt: 0x5EED), size: size)
            let first = try IndexDiff.compute(from: scenario.before, to: scenario.after, changed: scenario.changed)
            let second = try IndexDiff.compute(from: scenario.before, to: scenario.after, changed: scenario.changed)
            #expect(first == second, "\(scenario)")
            // The Dictionary path iterates in a hash order that changes from process to process: the
            // result must not depend on it.
            let strings = try IndexDiff.compute(
                from: scenario.before.map { "x\($0)" },
                to: scenario.after.map { "x\($0)" },
                changed: Set(scenario.changed.map { "x\($0)" })
            )
            #expect(strings == first, "\(scenario)")
        }
    }

    @Test("Pure insertions and removals cause no moves", arguments: [0, 1, 7, 64, 500, 3_000])
    func insertionsAndRemovalsDoNotMove(size: Int) throws {
        for iteration in 0..<10 {
            let seed = Self.seed(size: size, iteration: iteration, salt: 0x1D)
            var rng = SplitMix64(seed: seed)
            let before = (0..<Int64(size)).shuffled(using: &rng)
            let removalRate = Double.random(in: 0...1, using: &rng)
            var after = before.filter { _ in !rng.chance(removalRate) }
            var next = Int64(size)
            for _ in 0..<Int.random(in: 0...(size + 1), using: &rng) {
                after.insert(next, at: Int.random(in: 0...after.count, using: &rng))
                next += 1
            }
            let diff = try IndexDiff.compute(from: before, to: after)
            let context = "seed \(seed), size \(size)"
            #expect(diff.moves.isEmpty, "\(context)")
            #expect(!diff.hasMoves, "\(context)")
            expectContract(diff, before: before, after: after, context)
        }
    }
}
