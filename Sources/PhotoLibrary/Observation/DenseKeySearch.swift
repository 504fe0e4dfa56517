import IndexDiff

/// ``KeySearch``'s searches when every key of the list has its sort values in memory (dense
/// ``SortFences``): where keys land in a fetch result's keys, searched in step.
///
/// A round runs right after a commit, which leaves the list's arrays out of the processor's caches: each step
/// of a binary search over a million keys is then a miss to memory. One search after another, each miss of a
/// search waits for the one before. In step (the first step of every search, then the second step of every
/// search, and so on) the reads of one step don't depend on each other, so the processor may overlap them.
/// (Measured: a round about 2 % faster than the same searches one after another, for more instructions.)
///
/// Whether the list holds a key's id is told from what the search read on its way (the base key and the
/// patch's key at the lower bound), not by reading the list at the position, which is two more searches.
struct DenseKeySearch {
    private let fetch: IncrementalFetch
    private let list: FetchResultKeyList
    /// The dense sort values of the list's base, ``width`` a key.
    private let baseValues: [Double]
    private let width: Int
    /// Whether the first column sorts ascending: one column is compared inline (most fetches sort by one).
    private let ascending: Bool

    init(fetch: IncrementalFetch, list: FetchResultKeyList, baseValues: [Double]) {
        self.fetch = fetch
        self.list = list
        self.baseValues = baseValues
        width = fetch.columns.count
        ascending = fetch.ascending.first ?? true
    }

    /// The lower bound in the list of each key (`values`, ``width`` a key, and `ids`), and whether the list
    /// holds the key's id there.
    ///
    /// A lower bound counts the base keys whose values of the fetch's time are less (those of removed keys,
    /// touched since, included: they are still in order), less the removed ones among them, plus the patch's
    /// keys that are less (in order too: the patch's keys are in the list's order, with the values they were
    /// inserted with). Keys are unique, so the list holds an id at its key's lower bound when it is the base
    /// key there (and the patch didn't remove it) or the patch's key there.
    ///
    /// - Complexity: O(*t* (log *n* + log *K*)) for *t* keys, a list of *n* and a patch of *K*.
    func bounds(_ values: [Double], _ ids: [Int64]) -> (positions: [Int], held: [Bool]) {
        let base = list.base
        let stride = SortFences.directoryStride
        // The first steps run over the directory of every 64th key (see ``SortFences/directory``), the last
        // among the 64 keys before the first directory key not less.
        var ranges = [SearchRange](filled: SearchRange(low: 0, high: list.fences!.directory.count / width), count: ids.count)
        firstNotLess(list.fences!.directory, &ranges, values, ids) { base[$0 * stride] }
        for key in ids.indices {
            let low = ranges[key].low
            ranges[key] = SearchRange(low: low == 0 ? 0 : (low - 1) * stride + 1, high: min(low * stride, base.count))
        }
        firstNotLess(baseValues, &ranges, values, ids) { base[$0] }
        let baseBounds = ranges.map(\.low)
        let insertedKeys = list.insertedKeys
        ranges = [SearchRange](filled: SearchRange(low: 0, high: insertedKeys.count), count: ids.count)
        firstNotLess(list.insertedValues, &ranges, values, ids) { insertedKeys[$0] }
        var positions: [Int] = []
        var held: [Bool] = []
        positions.reserveCapacity(ids.count)
        held.reserveCapacity(ids.count)
        for (key, id) in ids.enumerated() {
            let (bound, inserted) = (baseBounds[key], ranges[key].low)
            let removedBefore = FetchResultKeyList.lowerBound(list.removed, bound)
            let removed = removedBefore < list.removed.count && list.removed[removedBefore] == bound
            positions.append(bound - removedBefore + inserted)
            held.append((bound < base.count && base[bound] == id && !removed) || (inserted < insertedKeys.count && insertedKeys[inserted] == id))
        }
        return (positions, held)
    }

    /// The indexes of a search not yet excluded: `low..<high`.
    private struct SearchRange {
        var low: Int
        var high: Int
    }

    /// For each key *i* (of `values`, ``width`` a key, and `ids`): the first index in `ranges[i]` of `keys`
    /// (in order, ``width`` values a key; key *j* has the id `idAt(j)`) whose key is not less, left in
    /// `ranges[i].low`. Binary searches in step. The ids break ties only: they are read only then.
    private func firstNotLess(
        _ keys: [Double], _ ranges: inout [SearchRange], _ values: [Double], _ ids: [Int64], _ idAt: (Int) -> Int64
    ) {
        ranges.withUnsafeMutableBufferPointer { ranges in
            var searching = true
            while searching {
                searching = false
                for key in ranges.indices where ranges[key].low < ranges[key].high {
                    searching = true
                    let middle = (ranges[key].low + ranges[key].high) / 2
                    let order = order(keys, middle, values, key)
                    if order < 0 || (order == 0 && idAt(middle) < ids[key]) { ranges[key].low = middle + 1 } else { ranges[key].high = middle }
                }
            }
        }
    }

    /// The order of key `index` of `keys` and key `target` of `values` by their values alone: -1, 0 or 1.
    @inline(__always)
    private func order(_ keys: [Double], _ index: Int, _ values: [Double], _ target: Int) -> Int {
        guard width == 1 else { return fetch.compareValues(keys, index * width, values, target * width) }
        let (key, value) = (keys[index], values[target])
        let order = key.isNaN ? (value.isNaN ? 0 : -1) : (value.isNaN ? 1 : (key < value ? -1 : (key == value ? 0 : 1)))
        return ascending ? order : -order
    }
}
