@_spi(Maintenance) import IndexDiff

/// The change of one fetch result over a delivery round, made incrementally (see ``IncrementalFetch``).
struct IncrementalUpdate: Sendable {
    let diff: IndexDiff
    /// The keys after the round (the before keys' storage with a patch).
    let after: FetchResultKeyList
    /// Whether the touched assets' state at the end was known without reading the database (their rows
    /// handed off by their commits): tests check which path a round took.
    private(set) var readInMemory = false

    /// The update of a round that touched none of the result's assets.
    init(unchanged keys: FetchResultKeyList) {
        diff = IndexDiff.assembled(
            beforeCount: keys.count, afterCount: keys.count, removedIndexes: [], insertedIndexes: [], moves: [], changedIndexes: [])
        after = keys
    }

    /// Step 5 of ``IncrementalFetch``: the details, from where the touched assets were and where the members
    /// go. The untouched assets form a chain, in the same relative order before and after, that only the
    /// touched assets present in both cut into: the minimal moves come from ``ChainMoves``.
    ///
    /// - Throws: ``IncrementalFetch/Unmaintainable`` when the moves can't be derived that way.
    /// `updatedInPlace` holds the positions in `before` of the assets updated in place (not touched here: they
    /// keep their place in the chain of untouched assets), reported as changed.
    init(
        before: FetchResultKeyList, touched: TouchedAssets, members: SortKeys, memberSlots: [Int], placement: Placement,
        updatedInPlace: [Int] = [], readInMemory: Bool = false
    ) throws {
        self.readInMemory = readInMemory
        let count = before.count
        let holes = placement.holes
        let slots = placement.slots
        let untouchedCount = count - holes.count
        after = before.applying(
            removed: holes, inserted: (0..<members.count).map { (index: slots[$0] + $0, key: members.ids[$0]) },
            insertedValues: placement.insertedValues)

        var isMember = [Bool](filled: false, count: touched.ids.count)
        for slot in memberSlots { isMember[slot] = true }
        var removedIndexes: [Int] = []
        removedIndexes.reserveCapacity(touched.ids.count)
        for (slot, position) in placement.beforePosition.enumerated() where position >= 0 && !isMember[slot] {
            removedIndexes.append(position)
        }
        removedIndexes.sort()
        var insertedIndexes: [Int] = []
        var changedIndexes: [Int] = []
        var cutIns: [ChainMoves.CutIn] = []
        insertedIndexes.reserveCapacity(memberSlots.count)
        changedIndexes.reserveCapacity(memberSlots.count + updatedInPlace.count)
        cutIns.reserveCapacity(memberSlots.count)
        for (index, slot) in memberSlots.enumerated() {
            let afterIndex = slots[index] + index
            let position = placement.beforePosition[slot]
            guard position >= 0 else {
                insertedIndexes.append(afterIndex)
                continue
            }
            cutIns.append(ChainMoves.CutIn(
                chainBefore: position - FetchResultKeyList.lowerBound(holes, position), chainAfter: slots[index],
                beforeIndex: position, afterIndex: afterIndex))
            if touched.entries[slot].updated { changedIndexes.append(afterIndex) }
        }
        for position in updatedInPlace {
            // Its rank among the untouched assets, after the members whose slot is at most that rank.
            let rank = position - FetchResultKeyList.lowerBound(holes, position)
            changedIndexes.append(rank + Self.upperBound(slots, rank))
        }
        if !updatedInPlace.isEmpty { changedIndexes.sort() }
        guard let moved = ChainMoves.moved(cutIns: cutIns, chainCount: untouchedCount) else { throw IncrementalFetch.Unmaintainable() }
        diff = IndexDiff.assembled(
            beforeCount: count, afterCount: untouchedCount + members.count, removedIndexes: removedIndexes,
            insertedIndexes: insertedIndexes, moves: Self.moves(moved, cutIns: cutIns, holes: holes, slots: slots),
            changedIndexes: changedIndexes)
    }

    /// The moves of what ``ChainMoves`` says moves, ascending by `to`: an untouched asset of rank *r* in the
    /// chain sits after the holes with fewer untouched assets before them in `before`, and after the members
    /// whose slot is at most *r* in the result after.
    private static func moves(_ moved: ChainMoves.Moved, cutIns: [ChainMoves.CutIn], holes: [Int], slots: [Int]) -> [IndexDiff.Move] {
        var moves: [IndexDiff.Move] = []
        moves.reserveCapacity(moved.cutIns.count + moved.chain.reduce(0) { $0 + $1.count })
        for cutIn in moved.cutIns { moves.append(IndexDiff.Move(from: cutIns[cutIn].beforeIndex, to: cutIns[cutIn].afterIndex)) }
        for ranks in moved.chain {
            for rank in ranks {
                moves.append(IndexDiff.Move(from: FetchResultKeyList.position(ofSurvivor: rank, holes: holes), to: rank + upperBound(slots, rank)))
            }
        }
        moves.sort { $0.to < $1.to }
        return moves
    }

    /// The number of elements of `sorted` (ascending) that are at most `value`.
    private static func upperBound(_ sorted: [Int], _ value: Int) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] <= value { low = middle + 1 } else { high = middle }
        }
        return low
    }
}
