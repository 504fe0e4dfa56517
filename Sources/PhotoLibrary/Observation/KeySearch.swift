import GRDB

/// Step 4 of ``IncrementalFetch``: binary searches over a fetch result's keys, ordered by their sort values at
/// the result's sequence, for where each touched asset was and where each member now goes.
///
/// Untouched assets still have their sort values of then, so a probe reads them from the database; touched
/// ones have theirs from the journal. The searches start in memory over the sort values the fetch sampled
/// (``SortFences``), and then advance together, so that each step reads all its probes with one prepared
/// statement: O(log *n*) statements for all the searches, O(log 16) of them past the fences.
struct KeySearch {
    private let fetch: IncrementalFetch
    private let before: FetchResultKeyList
    private let db: Database
    /// Every touched asset, and the index in the keys at the start of those that existed then.
    private let touched: TouchedAssets
    private let old: SortKeys
    private var oldIndex: [Int64: Int] = [:]
    /// The keys read so far, and where each position of `before` has its key in them.
    private var probes: SortKeys
    private var probeIndex: [Int: Int] = [:]

    init(fetch: IncrementalFetch, before: FetchResultKeyList, touched: TouchedAssets, old: SortKeys, _ db: Database) {
        self.fetch = fetch
        self.before = before
        self.db = db
        self.touched = touched
        self.old = old
        probes = SortKeys(width: fetch.columns.count)
        oldIndex.reserveCapacity(old.count)
        for index in 0..<old.count { oldIndex[old.ids[index]] = index }
    }

    /// Where the touched assets go: one search per distinct key, those of the touched assets at the start
    /// (where they were) and those of the members now (how many untouched assets precede each). A member
    /// whose sort values didn't change has one search for both.
    mutating func place(members: SortKeys) throws -> Placement {
        var targets = old
        var memberTarget: [Int] = []  // Index into `targets` of each member's search.
        memberTarget.reserveCapacity(members.count)
        for member in 0..<members.count {
            if let previous = oldIndex[members.ids[member]], old.sameValues(previous, as: members, member) {
                memberTarget.append(previous)
            } else {
                memberTarget.append(targets.count)
                targets.append(from: members, member)
            }
        }
        let bounds = try lowerBounds(targets)
        // `before` is ordered by the keys at the start, which untouched assets still have: the untouched assets
        // before a member's key are the untouched ones before its lower bound.
        var placement = Placement()
        for index in 0..<old.count where bounds[index] < before.count && before[bounds[index]] == old.ids[index] {
            placement.beforePosition[old.ids[index]] = bounds[index]
            placement.holes.append(bounds[index])
        }
        placement.holes.sort()
        placement.slots = memberTarget.map { bounds[$0] - FetchResultKeyList.lowerBound(placement.holes, bounds[$0]) }
        return placement
    }

    /// The first position of `before` whose key at the start is not less than each target. The searches
    /// advance together, so that the probes of each step are read in one query.
    private mutating func lowerBounds(_ targets: SortKeys) throws -> [Int] {
        var low = [Int](repeating: 0, count: targets.count)
        var high = [Int](repeating: before.count, count: targets.count)
        if let fences = before.fences, fences.count > 0, fences.width == fetch.columns.count {
            for target in 0..<targets.count {
                (low[target], high[target]) = fenceBounds(targets, target, fences)
            }
        }
        var active = (0..<targets.count).filter { low[$0] < high[$0] }
        var step: [Int] = []
        while !active.isEmpty {
            step.removeAll(keepingCapacity: true)
            for target in active { step.append((low[target] + high[target]) / 2) }
            try load(step)
            for (target, position) in zip(active, step) {
                if fetch.compare(probes, probeIndex[position]!, targets, target) < 0 {
                    low[target] = position + 1
                } else {
                    high[target] = position
                }
            }
            active.removeAll { low[$0] >= high[$0] }
        }
        return low
    }

    /// The range of positions of `before` a target's lower bound is in, from a binary search over the fences:
    /// the sampled keys that no transaction since has removed (the patch doesn't remove their base key).
    private func fenceBounds(_ targets: SortKeys, _ target: Int, _ fences: SortFences) -> (low: Int, high: Int) {
        let stride = SortFences.stride
        var low = 0
        var high = before.count
        var lower = 0
        var upper = fences.count
        while lower < upper {
            let middle = (lower + upper) / 2
            // The nearest fence that still holds, at or after the middle, else before it.
            var fence = middle
            var position = before.index(ofBase: fence * stride)
            while position == nil && fence + 1 < upper {
                fence += 1
                position = before.index(ofBase: fence * stride)
            }
            if position == nil {
                fence = middle - 1
                while fence >= lower {
                    position = before.index(ofBase: fence * stride)
                    if position != nil { break }
                    fence -= 1
                }
            }
            guard let found = position, fence >= lower else { break }  // No fence left that holds.
            let order = fetch.compare(
                fences.values, fence * fences.width, before.base[fence * stride], targets.values, target * targets.width,
                targets.ids[target])
            if order < 0 {
                lower = fence + 1
                low = max(low, found + 1)
            } else {
                upper = fence
                high = min(high, found)
            }
        }
        return (low, high)
    }

    /// Reads the keys, at the start, of the assets at these positions of `before`: touched assets' from the
    /// journal, untouched assets' (which still have them) from the database, with one statement.
    private mutating func load(_ positions: [Int]) throws {
        var wanted: [Int64: [Int]] = [:]
        for position in positions where probeIndex[position] == nil {
            let id = before[position]
            if touched.first[id] != nil {
                guard let known = oldIndex[id] else { throw IncrementalFetch.Unmaintainable() }
                probes.append(from: old, known)
                probeIndex[position] = probes.count - 1
            } else {
                wanted[id, default: []].append(position)
            }
        }
        guard !wanted.isEmpty else { return }
        let statement = try db.cachedStatement(sql: fetch.probeSQL)
        try IncrementalFetch.forEachRow(of: statement, ids: wanted.keys) { row in
            let id: Int64 = row[0]
            let key = probes.append(row, id: id, from: 1)
            for position in wanted[id] ?? [] { probeIndex[position] = key }
        }
        guard positions.allSatisfy({ probeIndex[$0] != nil }) else { throw IncrementalFetch.Unmaintainable() }
    }
}

/// Where the touched assets are in the result before and go in the result after.
struct Placement {
    /// The position in `before` of each touched asset that was in it.
    var beforePosition: [Int64: Int] = [:]
    /// Ascending positions in `before` of the touched assets: they leave, some come back.
    var holes: [Int] = []
    /// `slots[i]`: the untouched assets before member `i` in the result after; ascending.
    var slots: [Int] = []
}
