import SeededRandom
import Testing

@testable import IndexDiff

@Suite("Longest increasing subsequence")
struct LongestIncreasingSubsequenceTests {
    /// Feeds `values` (distinct, non-negative) to the engine's ``IncreasingSubsequence`` and returns the
    /// length it reports and the positions of the members it marks.
    static func mark(_ values: [Int]) -> (length: Int, positions: [Int]) {
        var subsequence = IncreasingSubsequence(valueCount: (values.max() ?? 0) + 1, maximumCount: values.count)
        for value in values { subsequence.append(Int32(value)) }
        let length = subsequence.finish()
        return (length, values.indices.filter { subsequence.isMember(values[$0]) })
    }

    @Test("Matches the brute-force tie-broken subsequence on every permutation up to 6")
    func exhaustiveSmallPermutations() {
        func permutations(_ elements: [Int]) -> [[Int]] {
            guard let first = elements.first else { return [[]] }
            return permutations(Array(elements.dropFirst())).flatMap { rest in
                (0...rest.count).map { position in
                    var permutation = rest
                    permutation.insert(first, at: position)
                    return permutation
                }
            }
        }
        for count in 0...6 {
            for permutation in permutations(Array(0..<count)) {
                let (length, positions) = Self.mark(permutation)
                let expected = Oracle.tieBrokenLongestIncreasingPositions(permutation)
                #expect(length == expected.count, "\(permutation)")
                #expect(positions == expected, "\(permutation)")
            }
        }
    }

    @Test("Matches the brute-force tie-broken subsequence on random sparse values")
    func randomSparseValues() {
        for seed in UInt64(0)..<600 {
            var rng = SplitMix64(seed: seed)
            let count = Int.random(in: 0...9, using: &rng)
            let values = Array((0..<1_000).shuffled(using: &rng).prefix(count))
            let (length, positions) = Self.mark(values)
            let expected = Oracle.tieBrokenLongestIncreasingPositions(values)
            #expect(length == expected.count, "seed \(seed): \(values)")
            #expect(positions == expected, "seed \(seed): \(values)")
        }
    }

    @Test("Has the length of the quadratic oracle on larger random inputs")
    func randomLargerValues() {
        for seed in UInt64(0)..<200 {
            var rng = SplitMix64(seed: seed)
            let count = Int.random(in: 0...300, using: &rng)
            var values = Array(0..<count)
            // Mostly sorted or fully shuffled.
            if rng.chance(0.5) {
                values.shuffle(using: &rng)
            } else {
                for _ in 0..<Int.random(in: 0...10, using: &rng) where count > 1 {
                    values.swapAt(Int.random(in: 0..<count, using: &rng), Int.random(in: 0..<count, using: &rng))
                }
            }
            let (length, positions) = Self.mark(values)
            #expect(length == Oracle.longestIncreasingLengthQuadratic(values), "seed \(seed)")
            #expect(positions.count == length, "seed \(seed)")
            #expect(zip(positions, positions.dropFirst()).allSatisfy { values[$0] < values[$1] }, "seed \(seed)")
        }
    }
}
