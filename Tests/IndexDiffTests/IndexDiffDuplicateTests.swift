import SeededRandom
import Testing

@testable import IndexDiff

@Suite("Duplicate identifiers are rejected")
struct IndexDiffDuplicateTests {
    /// The error of diffing `before` to `after`, through the Int64 table and the Dictionary table
    /// (which must agree); `nil` when the diff succeeds.
    static func error(_ before: [Int64], _ after: [Int64]) -> IndexDiffError? {
        let viaInt64 = Result { () throws(IndexDiffError) in try IndexDiff.compute(from: before, to: after) }
        let viaStrings = Result { () throws(IndexDiffError) in
            try IndexDiff.compute(from: before.map { "\($0)" }, to: after.map { "\($0)" })
        }
        #expect(viaInt64.failure == viaStrings.failure, "tables disagree on \(before) → \(after)")
        return viaInt64.failure
    }

    @Test("A duplicate in before is reported at its second occurrence")
    func duplicateInBefore() {
        #expect(Self.error([1, 2, 1], [1, 2]) == .duplicateIdentifier(side: .before, index: 2))
        #expect(Self.error([1, 1], []) == .duplicateIdentifier(side: .before, index: 1))
        #expect(Self.error([5, 6, 7, 8, 6, 5], [5]) == .duplicateIdentifier(side: .before, index: 4))
        // Identical lists with a duplicate: no shortcut skips the check.
        #expect(Self.error([1, 2, 3, 2], [1, 2, 3, 2]) == .duplicateIdentifier(side: .before, index: 3))
    }

    @Test("A duplicate in after is reported at its second occurrence, wherever it sits")
    func duplicateInAfter() {
        // Among inserted identifiers.
        #expect(Self.error([1, 2], [9, 1, 9, 2]) == .duplicateIdentifier(side: .after, index: 2))
        // Among matched identifiers, in the middle.
        #expect(Self.error([1, 2, 3], [0, 2, 2, 4]) == .duplicateIdentifier(side: .after, index: 2))
        // A twin of the common prefix.
        #expect(Self.error([1, 2, 3], [1, 2, 3, 1]) == .duplicateIdentifier(side: .after, index: 3))
        // A twin of the common suffix, met before it.
        #expect(Self.error([1, 2, 3], [3, 9, 1, 2, 3]) == .duplicateIdentifier(side: .after, index: 4))
        // Right after a match at the guessed position.
        #expect(Self.error([1, 2, 3, 4], [0, 1, 2, 1, 4]) == .duplicateIdentifier(side: .after, index: 3))
        // The smallest second occurrence wins when there are several duplicates.
        #expect(Self.error([1, 2, 3], [7, 8, 8, 7]) == .duplicateIdentifier(side: .after, index: 2))
        #expect(Self.error([], [4, 4]) == .duplicateIdentifier(side: .after, index: 1))
    }

    @Test("When both lists hold duplicates, before is reported")
    func duplicatesOnBothSides() {
        #expect(Self.error([1, 2, 2], [3, 3]) == .duplicateIdentifier(side: .before, index: 2))
    }

    @Test("Random duplicates are found at the first second occurrence, on either side")
    func randomDuplicates() {
        for seed in UInt64(0)..<300 {
            var rng = SplitMix64(seed: seed)
            let scenario = Scenario.random(seed: seed &* 7919, size: Int.random(in: 1...60, using: &rng))
            var before = scenario.before
            var after = scenario.after
            let side: IndexDiffError.Side = rng.chance(0.5) ? .before : .after
            if side == .before {
                before.insert(before.randomElement(using: &rng)!, at: Int.random(in: 0...before.count, using: &rng))
            } else {
                guard let identifier = (after.isEmpty ? before : after).randomElement(using: &rng) else { continue }
                for _ in 0..<(after.contains(identifier) ? 1 : 2) {
                    after.insert(identifier, at: Int.random(in: 0...after.count, using: &rng))
                }
            }
            let list = side == .before ? before : after
            var seen = Set<Int64>()
            let expectedIndex = list.indices.first { !seen.insert(list[$0]).inserted }!
            #expect(
                Self.error(before, after) == .duplicateIdentifier(side: side, index: expectedIndex),
                "seed \(seed), \(scenario)"
            )
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
