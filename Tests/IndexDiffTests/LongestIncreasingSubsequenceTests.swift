import Testing

@testable import IndexDiff

@Suite("Longest increasing subsequence")
struct LongestIncreasingSubsequenceTests {
    /// Runs the engine's LIS on `values` and returns (length, marked positions).
    static func mark(_ values: [Int]) -> (length: Int, positions: [Int]) {
        var buffer = values.map { Int32($0) }
        let length = buffer.withUnsafeMutableBufferPointer { DiffEngine.markLongestIncreasingSubsequence(in: $0) }
        let positions = buffer.indices.filter { buffer[$0] < 0 }
        // Members are marked with ~value: the value must be recoverable.
        #expect(positions.allSatisfy { ~buffer[$0] == Int32(values[$0]) })
        #expect(buffer.indices.filter { buffer[$0] >= 0 }.allSatisfy { buffer[$0] == Int32(values[$0]) })
        return (length, positions)
    }

    @Test("Matches the brute-force tie-broken subsequence on every permutation up to 7")
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
        for count in 0...7 {
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
        for seed in UInt64(0)..<1_000 {
            var rng = SplitMix64(seed: seed)
            let count = Int.random(in: 0...10, using: &rng)
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
