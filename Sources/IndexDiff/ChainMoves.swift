/// The minimal moves between two lists that share one long *chain* — elements in the same relative order in
/// both — plus a few other common elements, computed over O(*c*) items instead of the lists' *n* elements.
///
/// This is what maintaining a sorted list under a few edits gives: the untouched elements keep their relative
/// order, so only the *c* touched elements present before and after (the *cut-ins*) can break it. The chain
/// is split by the places where cut-ins sit, before and after, into runs; a run is compatible with whatever is
/// compatible with one of its elements, so a longest increasing subsequence holds all of it or none of it.
/// That makes the problem a maximum-weight increasing subsequence over the cut-ins (weight 1) and the runs
/// (weight: their length).
///
/// The choice among longest subsequences is ``IndexDiff``'s tie-break (each element the latest possible, from
/// the last backwards), so the moves are exactly those ``IndexDiff/compute(from:to:changed:)`` reports for the
/// two whole lists.
@_spi(Maintenance)
public enum ChainMoves {
    /// A common element that isn't part of the chain.
    public struct CutIn: Sendable, Hashable {
        /// The chain elements before it in the list before, and in the list after.
        public let chainBefore: Int
        public let chainAfter: Int
        /// Its position in the list before, and in the list after (cut-ins at the same place in the chain are
        /// ordered by them).
        public let beforeIndex: Int
        public let afterIndex: Int

        public init(chainBefore: Int, chainAfter: Int, beforeIndex: Int, afterIndex: Int) {
            self.chainBefore = chainBefore
            self.chainAfter = chainAfter
            self.beforeIndex = beforeIndex
            self.afterIndex = afterIndex
        }
    }

    /// What moves: cut-ins (indexes into the `cutIns` given) and runs of the chain (ranges of ranks in it).
    public struct Moved: Sendable, Hashable {
        public var cutIns: [Int] = []
        public var chain: [Range<Int>] = []
    }

    /// One item of the compressed problem: a cut-in or a run of the chain that no cut-in splits.
    private struct Item {
        enum Kind {
            case cutIn(Int)
            case run(Range<Int>)
        }

        let kind: Kind
        let weight: Int
        /// Order keys: place in the chain, then runs after the cut-ins at the same place, then the cut-ins'
        /// own order.
        let afterKey: (Int, Int, Int)
        let beforeKey: (Int, Int, Int)
    }

    /// The elements that move, for a chain of `chainCount` elements and these cut-ins; nil if the input breaks
    /// the preconditions (a longest subsequence would then split a run).
    ///
    /// - Complexity: O(*c* log *c*) for *c* cut-ins.
    public static func moved(cutIns: [CutIn], chainCount: Int) -> Moved? {
        guard !cutIns.isEmpty else { return Moved() }
        let items = Self.items(cutIns: cutIns, chainCount: chainCount)
        guard let kept = heaviestIncreasingSubsequence(items) else { return nil }
        var moved = Moved()
        moved.cutIns.reserveCapacity(cutIns.count)
        moved.chain.reserveCapacity(items.count - cutIns.count)
        for (index, item) in items.enumerated() where !kept[index] {
            switch item.kind {
            case .cutIn(let cutIn): moved.cutIns.append(cutIn)
            case .run(let ranks): moved.chain.append(ranks)
            }
        }
        return moved
    }

    /// The cut-ins and the runs between the places they sit at, in after order.
    private static func items(cutIns: [CutIn], chainCount: Int) -> [Item] {
        var cuts = [0, chainCount]
        cuts.reserveCapacity(2 * cutIns.count + 2)
        for cutIn in cutIns {
            cuts.append(cutIn.chainBefore)
            cuts.append(cutIn.chainAfter)
        }
        cuts.sort()
        var items: [Item] = []
        items.reserveCapacity(cutIns.count + cuts.count)
        for (index, cutIn) in cutIns.enumerated() {
            items.append(Item(
                kind: .cutIn(index), weight: 1, afterKey: (cutIn.chainAfter, 0, cutIn.afterIndex),
                beforeKey: (cutIn.chainBefore, 0, cutIn.beforeIndex)))
        }
        for (lower, upper) in zip(cuts, cuts.dropFirst()) where lower < upper {  // Equal cuts: no run between.
            items.append(Item(kind: .run(lower..<upper), weight: upper - lower, afterKey: (lower, 1, 0), beforeKey: (lower, 1, 0)))
        }
        items.sort { $0.afterKey < $1.afterKey }
        return items
    }

    /// Which items (in after order) a heaviest subsequence increasing in before order keeps, with the
    /// tie-break: from the end, the latest item whose range of subsequence weights holds the weight wanted.
    /// Nil when that item would be split.
    private static func heaviestIncreasingSubsequence(_ items: [Item]) -> [Bool]? {
        let byBefore = items.indices.sorted { items[$0].beforeKey < items[$1].beforeKey }
        var rank = [Int](filled: 0, count: items.count)
        for (position, item) in byBefore.enumerated() { rank[item] = position }

        // The heaviest subsequence ending at each item, through a Fenwick tree of prefix maxima.
        var tree = [Int](filled: 0, count: items.count + 1)
        var best = [Int](filled: 0, count: items.count)
        for (index, item) in items.enumerated() {
            var heaviest = 0
            var node = rank[index]  // Prefix of ranks 0..<rank.
            while node > 0 {
                heaviest = max(heaviest, tree[node])
                node -= node & -node
            }
            best[index] = heaviest + item.weight
            node = rank[index] + 1
            while node <= items.count {
                tree[node] = max(tree[node], best[index])
                node += node & -node
            }
        }

        // Backtrack from the end: the latest item holding each weight wanted.
        var wanted = best.max() ?? 0
        var kept = [Bool](filled: false, count: items.count)
        var index = items.count - 1
        while wanted > 0 && index >= 0 {
            if best[index] >= wanted && best[index] - items[index].weight < wanted {
                guard best[index] == wanted else { return nil }  // A longest subsequence holds whole runs only.
                kept[index] = true
                wanted -= items[index].weight
            }
            index -= 1
        }
        return wanted == 0 ? kept : nil
    }
}
