import GRDB

/// The sort values of every ``stride``-th key (16) of a fetched list, read with the keys: the first levels of the
/// incremental path's binary searches run over them in memory (see ``IncrementalFetch``). Values of the
/// keys at `f * stride`, ``width`` per key.
struct SortFences: Sendable {
    static var stride: Int { 16 }
    let width: Int
    let values: [DatabaseValue]
    var count: Int { width == 0 ? 0 : values.count / width }
}

/// The keys of a fetch result, in order: a flat array, or the array of an earlier state of the same fetch
/// with a small sorted patch (the indexes of the base left out, and the keys inserted at their indexes).
///
/// Incremental change details (see ``IncrementalFetch``) make the result after a transaction from the
/// result before it; copying a million keys would cost more than the details themselves, so the after
/// result shares the before result's array and carries only the patch. Patches compose: the next
/// transaction's patch is merged into the same base. When a patch outgrows ``compactionLimit(count:)``
/// the keys are copied into a new flat array once.
struct FetchResultKeyList: Sendable {
    /// The keys the patch applies to.
    let base: [Int64]
    /// Ascending indexes into ``base`` of the keys left out.
    let removed: [Int]
    /// Ascending indexes into this list of the keys that don't come from ``base``.
    let insertedIndexes: [Int]
    /// The keys at ``insertedIndexes``.
    let insertedKeys: [Int64]
    /// The number of keys.
    let count: Int
    /// The sort values of every few keys of ``base``, when the fetch read them. A fence of a base key that
    /// the patch doesn't remove still holds: the key was touched by no transaction since.
    let fences: SortFences?

    /// A flat list.
    init(_ keys: [Int64], fences: SortFences? = nil) {
        base = keys
        removed = []
        insertedIndexes = []
        insertedKeys = []
        count = keys.count
        self.fences = fences
    }

    private init(base: [Int64], removed: [Int], insertedIndexes: [Int], insertedKeys: [Int64], fences: SortFences?) {
        self.base = base
        self.removed = removed
        self.insertedIndexes = insertedIndexes
        self.insertedKeys = insertedKeys
        count = base.count - removed.count + insertedIndexes.count
        self.fences = fences
    }

    /// The index in this list of base key `baseIndex`, or nil when the patch removed it.
    ///
    /// - Complexity: O(log *K*).
    func index(ofBase baseIndex: Int) -> Int? {
        let removedBefore = Self.lowerBound(removed, baseIndex)
        if removedBefore < removed.count && removed[removedBefore] == baseIndex { return nil }
        return Self.position(ofSurvivor: baseIndex - removedBefore, holes: insertedIndexes)
    }

    /// Whether the list is its base, without a patch.
    var isFlat: Bool { removed.isEmpty && insertedIndexes.isEmpty }

    /// The size of the patch: removed plus inserted keys.
    var patchSize: Int { removed.count + insertedIndexes.count }

    /// The largest patch kept before the keys are copied into a flat array: 8 √*n*, at least 1,024. A
    /// patch of *K* entries costs O(*K*) to extend, so rounds of *k* changes cost O(*k* log *K* + √*n*)
    /// and a copy, O(*n*), every √*n* / *k* rounds or so.
    static func compactionLimit(count: Int) -> Int {
        max(1_024, 8 * Int(Double(count).squareRoot()))
    }

    /// The key at `index`.
    ///
    /// - Complexity: O(log *K*) for a patch of *K* entries; O(1) when flat.
    subscript(index: Int) -> Int64 {
        if isFlat { return base[index] }
        let inserted = Self.lowerBound(insertedIndexes, index)
        if inserted < insertedIndexes.count && insertedIndexes[inserted] == index { return insertedKeys[inserted] }
        return base[baseIndex(ofSurvivor: index - inserted)]
    }

    /// The keys at `range`, in order.
    ///
    /// - Complexity: O(*r* log *K*) for *r* keys; a copy of the slice when flat.
    subscript(range: Range<Int>) -> [Int64] {
        if isFlat { return Array(base[range]) }
        return range.map { self[$0] }
    }

    /// Every key, in order.
    ///
    /// - Complexity: O(1) when flat (the base is shared), else O(*n*).
    var array: [Int64] {
        if isFlat { return base }
        var result: [Int64] = []
        result.reserveCapacity(count)
        var nextBase = 0
        var nextRemoved = 0
        var nextInserted = 0
        while result.count < count {
            if nextInserted < insertedIndexes.count && insertedIndexes[nextInserted] == result.count {
                result.append(insertedKeys[nextInserted])
                nextInserted += 1
                continue
            }
            // Base keys up to the next removed one or the next insertion, whichever comes first.
            while nextRemoved < removed.count && removed[nextRemoved] == nextBase {
                nextRemoved += 1
                nextBase += 1
            }
            var end = nextRemoved < removed.count ? removed[nextRemoved] : base.count
            if nextInserted < insertedIndexes.count {
                end = min(end, nextBase + insertedIndexes[nextInserted] - result.count)
            }
            result.append(contentsOf: base[nextBase..<end])
            nextBase = end
        }
        return result
    }

    /// The index in ``base`` of the `rank`-th key (from 0) of the base that isn't removed.
    ///
    /// - Complexity: O(log *K*).
    func baseIndex(ofSurvivor rank: Int) -> Int {
        Self.position(ofSurvivor: rank, holes: removed)
    }

    /// The position of the `rank`-th element (from 0) of a list that is not at one of `holes` (ascending).
    ///
    /// The *t*-th hole has `holes[t] - t` survivors before it, so the survivor of rank *r* sits after exactly
    /// the holes with `holes[t] - t <= r`.
    /// - Complexity: O(log *h*).
    static func position(ofSurvivor rank: Int, holes: [Int]) -> Int {
        var low = 0
        var high = holes.count
        while low < high {
            let middle = (low + high) / 2
            if holes[middle] - middle <= rank { low = middle + 1 } else { high = middle }
        }
        return rank + low
    }

    /// The first index of `sorted` whose value is not less than `value`.
    static func lowerBound(_ sorted: [Int], _ value: Int) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// This list with the keys at `removedIndexes` (ascending indexes into this list) left out and `inserted`
    /// (ascending indexes into the result) put in: the same base with the two patches merged, or a flat
    /// copy when the merged patch is too large.
    ///
    /// - Complexity: O(*K* + *k* log *K*) for a patch of *K* entries and *k* new ones; O(*n*) when it
    ///   compacts.
    func applying(removed removedIndexes: [Int], inserted: [(index: Int, key: Int64)]) -> FetchResultKeyList {
        // 1. Each removed key is either one inserted by the current patch (dropped from it) or a base key.
        var dropped: [Int] = []  // Ascending indexes into `insertedIndexes`.
        var removedBase: [Int] = []  // Ascending indexes into `base`.
        for index in removedIndexes {
            let inserted = Self.lowerBound(insertedIndexes, index)
            if inserted < insertedIndexes.count && insertedIndexes[inserted] == index {
                dropped.append(inserted)
            } else {
                removedBase.append(baseIndex(ofSurvivor: index - inserted))
            }
        }
        let mergedRemoved = Self.merge(removed, removedBase)
        // 2. Keys inserted by the current patch that stay: their new index is the slot, among those the new
        //    insertions leave free, of their rank among the keys that stay.
        var kept: [(index: Int, key: Int64)] = []
        kept.reserveCapacity(insertedIndexes.count - dropped.count)
        var nextDropped = 0
        var removedBefore = 0
        var newBefore = 0
        for (position, index) in insertedIndexes.enumerated() {
            if nextDropped < dropped.count && dropped[nextDropped] == position {
                nextDropped += 1
                continue
            }
            while removedBefore < removedIndexes.count && removedIndexes[removedBefore] < index { removedBefore += 1 }
            let rank = index - removedBefore
            var slot = rank + newBefore
            while newBefore < inserted.count && inserted[newBefore].index <= slot {
                newBefore += 1
                slot = rank + newBefore
            }
            kept.append((slot, insertedKeys[position]))
        }
        // 3. Both insertion lists, by index.
        var indexes: [Int] = []
        var keys: [Int64] = []
        indexes.reserveCapacity(kept.count + inserted.count)
        keys.reserveCapacity(kept.count + inserted.count)
        var a = 0
        var b = 0
        while a < kept.count || b < inserted.count {
            if b == inserted.count || (a < kept.count && kept[a].index < inserted[b].index) {
                indexes.append(kept[a].index)
                keys.append(kept[a].key)
                a += 1
            } else {
                indexes.append(inserted[b].index)
                keys.append(inserted[b].key)
                b += 1
            }
        }
        let result = FetchResultKeyList(
            base: base, removed: mergedRemoved, insertedIndexes: indexes, insertedKeys: keys, fences: fences)
        if result.patchSize > Self.compactionLimit(count: result.count) {
            return FetchResultKeyList(result.array)
        }
        return result
    }

    /// Two ascending lists of distinct values merged, ascending.
    private static func merge(_ a: [Int], _ b: [Int]) -> [Int] {
        if a.isEmpty { return b }
        if b.isEmpty { return a }
        var result: [Int] = []
        result.reserveCapacity(a.count + b.count)
        var i = 0
        var j = 0
        while i < a.count || j < b.count {
            if j == b.count || (i < a.count && a[i] < b[j]) {
                result.append(a[i])
                i += 1
            } else {
                result.append(b[j])
                j += 1
            }
        }
        return result
    }
}
