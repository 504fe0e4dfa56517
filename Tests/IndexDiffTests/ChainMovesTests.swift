import SeededRandom
import Testing

@_spi(Maintenance) @testable import IndexDiff

/// ``ChainMoves`` against ``IndexDiff/compute(from:to:changed:)`` on the whole lists: the same moves, with the
/// same tie-break, however the cut-ins sit (ties at one place in the chain, at the ends, crossing each other).
@Suite("Moves over a chain with cut-ins")
struct ChainMovesTests {
    /// Two lists sharing the chain 0..<chainCount in order, plus `cutIns` common elements (negative ids) at
    /// random places in each, plus a few elements only before or only after.
    static func scenario(_ g: inout SplitMix64, chainCount: Int, cutIns: Int) -> (before: [Int64], after: [Int64]) {
        func place(_ extra: [Int64], into chain: [Int64], _ g: inout SplitMix64) -> [Int64] {
            var list = chain
            for element in extra { list.insert(element, at: g.int(in: 0...list.count)) }
            return list
        }
        let chain = (0..<Int64(chainCount)).map { $0 }
        let common = (0..<Int64(cutIns)).map { -1 - $0 }
        let onlyBefore = (0..<g.int(in: 0...3)).map { _ in Int64(1_000_000) + Int64(g.int(in: 0...999_999)) }
        let onlyAfter = (0..<g.int(in: 0...3)).map { _ in Int64(2_000_000) + Int64(g.int(in: 0...999_999)) }
        return (place(common + Array(Set(onlyBefore)), into: chain, &g), place(common.shuffled(using: &g) + Array(Set(onlyAfter)), into: chain, &g))
    }

    /// The moves `ChainMoves` gives for two lists, expanded to single elements, ascending by `to`.
    static func moves(before: [Int64], after: [Int64], chainCount: Int) throws -> [IndexDiff.Move] {
        func chainBefore(_ list: [Int64], _ index: Int) -> Int { list[..<index].count { $0 >= 0 && $0 < Int64(chainCount) } }
        let afterIndex = Dictionary(uniqueKeysWithValues: after.enumerated().map { ($1, $0) })
        var cutIns: [ChainMoves.CutIn] = []
        for (index, element) in before.enumerated() where element < 0 {
            let to = try #require(afterIndex[element])
            cutIns.append(ChainMoves.CutIn(
                chainBefore: chainBefore(before, index), chainAfter: chainBefore(after, to), beforeIndex: index, afterIndex: to))
        }
        let moved = try #require(ChainMoves.moved(cutIns: cutIns, chainCount: chainCount))
        let beforeIndex = Dictionary(uniqueKeysWithValues: before.enumerated().map { ($1, $0) })
        var moves = moved.cutIns.map { IndexDiff.Move(from: cutIns[$0].beforeIndex, to: cutIns[$0].afterIndex) }
        for rank in moved.chain.joined() {
            moves.append(IndexDiff.Move(from: beforeIndex[Int64(rank)]!, to: afterIndex[Int64(rank)]!))
        }
        return moves.sorted { $0.to < $1.to }
    }

    @Test("The moves are those of diffing the whole lists", arguments: 0..<400 as Range<UInt64>)
    func sameMovesAsTheWholeDiff(seed: UInt64) throws {
        var g = SplitMix64(seed: seed)
        let chainCount = g.pick([0, 1, 2, 5, 20, 200])
        let cutIns = g.int(in: 1...12)
        let (before, after) = Self.scenario(&g, chainCount: chainCount, cutIns: cutIns)
        let expected = try IndexDiff.compute(from: before, to: after).moves
        #expect(try Self.moves(before: before, after: after, chainCount: chainCount) == expected, "seed \(seed): \(before) → \(after)")
    }

    @Test("Random cut-ins: the moves turn before into after, moving the least weight, with the tie-break", arguments: 0..<500 as Range<UInt64>)
    func minimalMovesOnRandomLists(seed: UInt64) throws {
        var g = SplitMix64(seed: seed)
        let chainCount = g.int(in: 0...g.pick([3, 12, 40]))
        let cutIns = g.int(in: 0...g.pick([2, 6, 12]))
        let (before, after) = Self.scenario(&g, chainCount: chainCount, cutIns: cutIns)
        let context = "seed \(seed): \(before) → \(after)"
        let moves = try Self.moves(before: before, after: after, chainCount: chainCount)

        // Applied with the forced removals and insertions, the moves give the list after.
        let inAfter = Set(after)
        let inBefore = Set(before)
        let diff = IndexDiff.assembled(
            beforeCount: before.count, afterCount: after.count,
            removedIndexes: before.indices.filter { !inAfter.contains(before[$0]) },
            insertedIndexes: after.indices.filter { !inBefore.contains(after[$0]) }, moves: moves, changedIndexes: [])
        #expect(Set(moves.map(\.from)).count == moves.count && Set(moves.map(\.to)).count == moves.count, "\(context)")
        #expect(diff.applied(to: before, after: after) == after, "\(context)")

        // The weight moved is the least possible: the common elements but a heaviest increasing subsequence,
        // by a quadratic programme over the cut-ins and the runs between them, and over the single elements.
        let beforeIndex = Dictionary(uniqueKeysWithValues: before.enumerated().map { ($1, $0) })
        let common = after.compactMap { beforeIndex[$0] }  // Before positions, in after order.
        let heaviest = Self.heaviestIncreasingWeight(Self.compressed(before: before, after: after, chainCount: chainCount))
        #expect(heaviest == Oracle.longestIncreasingLengthQuadratic(common), "\(context)")
        #expect(moves.count == common.count - heaviest, "\(context)")

        // The elements kept are those of IndexDiff's tie-break, by enumeration where that is affordable.
        if common.count <= 16 {
            let movedFrom = Set(moves.map(\.from))
            let kept = common.indices.filter { !movedFrom.contains(common[$0]) }
            #expect(kept == Oracle.tieBrokenLongestIncreasingPositions(common), "\(context)")
        }
    }

    /// The compressed problem, built from the lists themselves: each common element that isn't in the chain
    /// (weight 1), and each run of chain elements that no such element sits inside of, before or after
    /// (weight: its length); as (before position, after position, weight) of the item's first element, in
    /// after order.
    static func compressed(before: [Int64], after: [Int64], chainCount: Int) -> [(before: Int, after: Int, weight: Int)] {
        let beforeIndex = Dictionary(uniqueKeysWithValues: before.enumerated().map { ($1, $0) })
        let afterIndex = Dictionary(uniqueKeysWithValues: after.enumerated().map { ($1, $0) })
        let isCommon = { (element: Int64) in beforeIndex[element] != nil && afterIndex[element] != nil }
        let isChain = { (element: Int64) in element >= 0 && element < Int64(chainCount) }
        // A chain element starts a new run when the one before it in the chain isn't right before it in
        // either list (skipping elements that are in one list only).
        func previousCommon(_ list: [Int64], _ index: Int) -> Int64? {
            list[..<index].last(where: isCommon)
        }
        var items: [(before: Int, after: Int, weight: Int)] = []
        for (position, element) in after.enumerated() where isCommon(element) {
            if !isChain(element) {
                items.append((beforeIndex[element]!, position, 1))
            } else if element > 0, previousCommon(after, position) == element - 1,
                previousCommon(before, beforeIndex[element]!) == element - 1
            {
                items[items.count - 1].weight += 1
            } else {
                items.append((beforeIndex[element]!, position, 1))
            }
        }
        return items
    }

    /// The greatest total weight of items increasing in before position, taken in after order: O(m²).
    static func heaviestIncreasingWeight(_ items: [(before: Int, after: Int, weight: Int)]) -> Int {
        var heaviestEndingAt = items.map(\.weight)
        for k in items.indices {
            for j in 0..<k where items[j].before < items[k].before {
                heaviestEndingAt[k] = max(heaviestEndingAt[k], heaviestEndingAt[j] + items[k].weight)
            }
        }
        return heaviestEndingAt.max() ?? 0
    }

    @Test("Pure reorders of the cut-ins among themselves")
    func cutInsSwappedInPlace() throws {
        // [a, b] → [b, a] around an untouched chain: `a` stays, `b` moves (IndexDiff's tie-break).
        let before: [Int64] = [0, 1, -1, -2, 2, 3]
        let after: [Int64] = [0, 1, -2, -1, 2, 3]
        #expect(try Self.moves(before: before, after: after, chainCount: 4) == [IndexDiff.Move(from: 3, to: 2)])
        // A cut-in moved from the front to the back of a long chain is one move, not the chain's.
        let long = (0..<Int64(1_000)).map { $0 }
        #expect(
            try Self.moves(before: [-1] + long, after: long + [-1], chainCount: 1_000) == [IndexDiff.Move(from: 0, to: 1_000)])
        // The chain's head moved behind a cut-in that sat at the back: the chain (longer) stays.
        #expect(try Self.moves(before: long + [-1], after: [-1] + long, chainCount: 1_000) == [IndexDiff.Move(from: 1_000, to: 0)])
    }
}
