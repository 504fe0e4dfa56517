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
        let common = (1...Int64(cutIns)).map { -$0 }
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
