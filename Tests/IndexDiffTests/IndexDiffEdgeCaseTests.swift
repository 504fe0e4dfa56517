import SeededRandom
import Testing

@testable import IndexDiff

@Suite("Edge cases")
struct IndexDiffEdgeCaseTests {
    typealias Move = IndexDiff.Move

    @Test("Empty to empty is an empty diff")
    func emptyToEmpty() throws {
        let diff = try IndexDiff.compute(from: [Int64](), to: [Int64]())
        #expect(diff.isEmpty)
        #expect(!diff.hasMoves)
        #expect(diff.beforeCount == 0 && diff.afterCount == 0)
        #expect(diff.applied(to: [String](), after: []) == [])
    }

    @Test("Empty to n inserts everything", arguments: [1, 2, 50])
    func emptyToMany(count: Int) throws {
        let after = (0..<Int64(count)).map { $0 * 7 }
        let diff = try IndexDiff.compute(from: [], to: after, changed: Set(after))
        #expect(diff.insertedIndexes == Array(0..<count))
        #expect(diff.removedIndexes.isEmpty && diff.moves.isEmpty)
        #expect(diff.changedIndexes.isEmpty)  // inserted objects are never changed
        expectContract(diff, before: [], after: after, changed: Set(after), "empty → \(count)")
    }

    @Test("n to empty removes everything", arguments: [1, 2, 50])
    func manyToEmpty(count: Int) throws {
        let before = (0..<Int64(count)).map { $0 * 7 }
        let diff = try IndexDiff.compute(from: before, to: [], changed: Set(before))
        #expect(diff.removedIndexes == Array(0..<count))
        #expect(diff.insertedIndexes.isEmpty && diff.moves.isEmpty && diff.changedIndexes.isEmpty)
        expectContract(diff, before: before, after: [], changed: Set(before), "\(count) → empty")
    }

    @Test("Identical lists have no moves; only changed identifiers show")
    func identicalLists() throws {
        let list = (0..<Int64(1_000)).map { $0 * 3 + 1 }
        let unchanged = try IndexDiff.compute(from: list, to: list)
        #expect(unchanged.isEmpty)
        #expect(unchanged == IndexDiff(beforeCount: 1_000, afterCount: 1_000, removedIndexes: [], insertedIndexes: [], moves: [], changedIndexes: []))

        let changed: Set<Int64> = [list[0], list[500], list[999], -5]
        let diff = try IndexDiff.compute(from: list, to: list, changed: changed)
        #expect(diff.changedIndexes == [0, 500, 999])
        #expect(!diff.isEmpty && !diff.hasMoves)
        #expect(diff.removedIndexes.isEmpty && diff.insertedIndexes.isEmpty)
    }

    @Test("One element: kept, replaced, removed, inserted")
    func oneElement() throws {
        #expect(try IndexDiff.compute(from: [Int64(7)], to: [7]).isEmpty)
        let changed = try IndexDiff.compute(from: [Int64(7)], to: [7], changed: [7])
        #expect(changed.changedIndexes == [0])
        let replaced = try IndexDiff.compute(from: [Int64(7)], to: [8], changed: [7, 8])
        #expect(replaced.removedIndexes == [0] && replaced.insertedIndexes == [0])
        #expect(replaced.moves.isEmpty && replaced.changedIndexes.isEmpty)
        #expect(replaced.applied(to: ["seven"], after: ["eight"]) == ["eight"])
        #expect(try IndexDiff.compute(from: [Int64(7)], to: []).removedIndexes == [0])
        #expect(try IndexDiff.compute(from: [], to: [Int64(7)]).insertedIndexes == [0])
    }

    @Test("A swap of two neighbours is one move; the one moving to the front is reported")
    func adjacentSwap() throws {
        let diff = try IndexDiff.compute(from: ["a", "b"], to: ["b", "a"])
        #expect(diff.moves == [Move(from: 1, to: 0)])
        #expect(diff.hasMoves)
    }

    @Test("Tie-break keeps the identifiers that sit latest in after")
    func tieBreak() throws {
        // [a, b, c, d] → [c, d, a, b]: {c, d} and {a, b} are both longest; {a, b} sits later.
        let diff = try IndexDiff.compute(from: ["a", "b", "c", "d"], to: ["c", "d", "a", "b"])
        #expect(diff.moves == [Move(from: 2, to: 0), Move(from: 3, to: 1)])

        // [a, b, c] → [c, b, a]: three candidates of length 1; `a`, last in after, stays.
        let reversed = try IndexDiff.compute(from: ["a", "b", "c"], to: ["c", "b", "a"])
        #expect(reversed.moves == [Move(from: 2, to: 0), Move(from: 1, to: 1)])
    }

    @Test("A reversed list of n is n − 1 moves", arguments: [2, 3, 10, 1_000])
    func reversed(count: Int) throws {
        let before = Array(0..<Int64(count))
        let after = Array(before.reversed())
        let diff = try IndexDiff.compute(from: before, to: after)
        #expect(diff.moves.count == count - 1)
        // The element kept is before[0], last in after; every other one moves.
        expectSame(diff.moves, (0..<(count - 1)).map { Move(from: count - 1 - $0, to: $0) }, "moves")
        expectContract(diff, before: before, after: after, "reversed \(count)")
    }

    @Test("Everything moved: a full shuffle has exactly n − LIS moves")
    func fullShuffle() throws {
        var rng = SplitMix64(seed: 42)
        let before = Array(0..<Int64(2_000))
        let after = before.shuffled(using: &rng)
        let diff = try IndexDiff.compute(from: before, to: after)
        #expect(diff.moves.count == 2_000 - Oracle.longestIncreasingLength(after.map(Int.init)))
        expectContract(diff, before: before, after: after, "shuffle 2,000, seed 42")
    }

    @Test("A rotation by one is one move, whichever way")
    func rotations() throws {
        let before = Array(0..<Int64(100))
        let left = try IndexDiff.compute(from: before, to: Array(before[1...] + before[..<1]))
        #expect(left.moves == [Move(from: 0, to: 99)])
        let right = try IndexDiff.compute(from: before, to: Array(before[99...] + before[..<99]))
        #expect(right.moves == [Move(from: 99, to: 0)])
    }

    @Test("Removal and insertion around moves use the right index spaces")
    func mixedIndexSpaces() throws {
        // before: a b c d e; remove b, insert x at front, move e to index 2.
        let before = ["a", "b", "c", "d", "e"]
        let after = ["x", "a", "e", "c", "d"]
        let diff = try IndexDiff.compute(from: before, to: after, changed: ["e", "x", "b", "c"])
        #expect(diff.removedIndexes == [1])
        #expect(diff.insertedIndexes == [0])
        #expect(diff.moves == [Move(from: 4, to: 2)])
        #expect(diff.changedIndexes == [2, 3])  // e (moved and changed) and c; not x, not b
        #expect(diff.applied(to: before, after: after) == after)
    }

    @Test("Extreme Int64 values, in narrow and in full ranges")
    func extremeValues() throws {
        let cases: [(before: [Int64], after: [Int64])] = [
            ([.min, -1, 0, 1, .max], [.max, 0, .min, 2, -1]),  // the full range: hashed table
            ([.max - 4, .max - 3, .max - 2], [.max, .max - 2, .max - 4]),  // narrow range at the top
            ([.min + 2, .min, .min + 1], [.min + 1, .min + 3, .min]),  // narrow range at the bottom
        ]
        for (before, after) in cases {
            let changed: Set<Int64> = [.min, .max, .max - 2, .min + 3]
            let diff = try IndexDiff.compute(from: before, to: after, changed: changed)
            expectContract(diff, before: before, after: after, changed: changed, "\(before) → \(after)")
            #expect(throws: IndexDiffError.duplicateIdentifier(side: .before, index: before.count)) {
                try IndexDiff.compute(from: before + [before[0]], to: after)
            }
            #expect(throws: IndexDiffError.duplicateIdentifier(side: .after, index: after.count)) {
                try IndexDiff.compute(from: before, to: after + [after[1]])
            }
        }
    }

    @Test("applied(to:after:) carries the objects, not just identifiers")
    func appliedCarriesObjects() throws {
        let before: [Int64] = [1, 2, 3, 4]
        let after: [Int64] = [4, 1, 5, 3]
        let diff = try IndexDiff.compute(from: before, to: after)
        let beforeObjects = before.map { "old \($0)" }
        let afterObjects = after.map { "new \($0)" }
        // Moved and unmoved objects come from `before`; only inserted ones from `after`.
        #expect(diff.applied(to: beforeObjects, after: afterObjects) == ["old 4", "old 1", "new 5", "old 3"])
    }
}
