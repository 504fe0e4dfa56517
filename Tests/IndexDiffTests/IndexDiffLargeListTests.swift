import Testing

@testable import IndexDiff

/// A million row ids, the size the library diffs; each test checks the exact, minimal answer.
@Suite("Large lists give minimal moves")
struct IndexDiffLargeListTests {
    typealias Move = IndexDiff.Move
    static let count = 1_000_000
    static let rowIDs = Array(0..<Int64(count))

    @Test("One element moved from front to back of a million is exactly one move")
    func frontToBack() throws {
        let before = Self.rowIDs
        let after = Array(before[1...]) + [before[0]]
        let diff = try IndexDiff.compute(from: before, to: after)
        expectSame(diff.moves, [Move(from: 0, to: Self.count - 1)], "moves")
        #expect(diff.removedIndexes.isEmpty && diff.insertedIndexes.isEmpty)
        expectSame(diff.applied(to: before, after: after), after, "applied")
    }

    @Test("One element moved from back to front of a million is exactly one move")
    func backToFront() throws {
        let before = Self.rowIDs
        let after = [before[Self.count - 1]] + before[..<(Self.count - 1)]
        let diff = try IndexDiff.compute(from: before, to: after)
        expectSame(diff.moves, [Move(from: Self.count - 1, to: 0)], "moves")
    }

    @Test("A swap of two far-apart elements is two moves; of neighbours, one")
    func swaps() throws {
        // Swapping i < j with k elements between them: keeping i (or j) unmoved would force the k
        // elements between and the other one to move (k + 1 moves), so for k ≥ 1 the minimum is 2.
        var farSwap = Self.rowIDs
        farSwap.swapAt(250_000, 750_000)
        let far = try IndexDiff.compute(from: Self.rowIDs, to: farSwap)
        expectSame(far.moves, [Move(from: 750_000, to: 250_000), Move(from: 250_000, to: 750_000)], "far swap")

        var neighbourSwap = Self.rowIDs
        neighbourSwap.swapAt(500_000, 500_001)
        let neighbours = try IndexDiff.compute(from: Self.rowIDs, to: neighbourSwap)
        expectSame(neighbours.moves, [Move(from: 500_001, to: 500_000)], "neighbour swap")
    }

    @Test("An insertion at the head, a move front to back and a far swap: 1 insertion, 3 moves")
    func combinedEdit() throws {
        // Workload (c) of the benchmarks.
        let before = Self.rowIDs
        var after = Array(before[1...]) + [before[0]]  // front → back
        after.swapAt(250_000, 750_000)  // before indexes 250,001 and 750,001
        after.insert(-1, at: 0)  // a new row at the head
        let diff = try IndexDiff.compute(from: before, to: after, changed: [-1, 0, 250_001, 42])
        expectSame(diff.insertedIndexes, [0], "inserted")
        #expect(diff.removedIndexes.isEmpty)
        expectSame(
            diff.moves,
            [Move(from: 750_001, to: 250_001), Move(from: 250_001, to: 750_001), Move(from: 0, to: Self.count)],
            "moves"
        )
        // 42, 250,001 and 0 (moved and changed); not the inserted -1.
        expectSame(diff.changedIndexes, [42, 750_001, Self.count], "changed")
        expectSame(diff.applied(to: before, after: after), after, "applied")
    }

    @Test("Pure insertions and removals in a million cause no moves")
    func insertionsAndRemovals() throws {
        var after = Self.rowIDs.filter { $0 % 1_000 != 7 }  // 1,000 removals spread out
        after.insert(contentsOf: (0..<Int64(5_000)).map { -$0 - 1 }, at: 300_000)
        after.append(-999_999)
        let diff = try IndexDiff.compute(from: Self.rowIDs, to: after)
        #expect(diff.moves.isEmpty)
        expectSame(diff.removedIndexes, (0..<1_000).map { $0 * 1_000 + 7 }, "removed")
        expectSame(diff.insertedIndexes, Array(300_000..<305_000) + [after.count - 1], "inserted")
    }
}
