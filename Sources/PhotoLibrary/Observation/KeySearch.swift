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
    /// The statement that reads the keys of untouched assets, once needed.
    private var probeStatement: IDGroupStatement?

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

    /// Where the touched assets go: where each was (the position of its key at the start, if it was in the
    /// result) and how many untouched assets precede each member now (the lower bound of its key now).
    mutating func place(members: SortKeys) throws -> Placement {
        var placement = Placement()
        // A touched asset that was in the result sits exactly at its key's lower bound, which the fences narrow
        // to a window of about 16 positions: its id is found there without reading the database. Wider
        // windows (no fences, or fences the patch removed) are searched.
        let oldWindows = windows(old)
        var searched = SortKeys(width: old.width)
        var searchedOld: [Int] = []  // Index into `old` of each key of `searched`.
        for index in 0..<old.count {
            let window = oldWindows[index]
            guard window.count <= Self.scannedWindow else {
                searched.append(from: old, index)
                searchedOld.append(index)
                continue
            }
            let positions = window.lowerBound..<min(window.upperBound + 1, before.count)
            if let position = positions.first(where: { before[$0] == old.ids[index] }) {
                placement.beforePosition[old.ids[index]] = position
            }
        }
        // Members whose sort values didn't change and that were in the result: the same position. The others
        // are searched with the old keys left, all in step.
        var memberBounds = [Int](repeating: 0, count: members.count)
        var searchedMember: [(member: Int, target: Int)] = []
        for member in 0..<members.count {
            let id = members.ids[member]
            if let position = placement.beforePosition[id], let previous = oldIndex[id], old.sameValues(previous, as: members, member) {
                memberBounds[member] = position
            } else {
                searchedMember.append((member, searched.count))
                searched.append(from: members, member)
            }
        }
        let bounds = try lowerBounds(searched)
        for (target, index) in searchedOld.enumerated() where bounds[target] < before.count && before[bounds[target]] == old.ids[index] {
            placement.beforePosition[old.ids[index]] = bounds[target]
        }
        for (member, target) in searchedMember { memberBounds[member] = bounds[target] }
        // `before` is ordered by the keys at the start, which untouched assets still have: the untouched assets
        // before a member's key are the untouched ones before its lower bound.
        placement.holes = placement.beforePosition.values.sorted()
        placement.slots = memberBounds.map { $0 - FetchResultKeyList.lowerBound(placement.holes, $0) }
        return placement
    }

    /// The widest window of positions scanned for an id rather than searched by key.
    static var scannedWindow: Int { 4 * SortFences.stride }

    /// The positions of `before` each target's lower bound can be at: narrowed by the fences, when there are.
    private func windows(_ targets: SortKeys) -> [ClosedRange<Int>] {
        guard let fences = before.fences, fences.count > 0, fences.width == fetch.columns.count else {
            return Array(repeating: 0...before.count, count: targets.count)
        }
        return (0..<targets.count).map { target in
            let (low, high) = fenceBounds(targets, target, fences)
            return low...high
        }
    }

    /// The first position of `before` whose key at the start is not less than each target. The searches
    /// start from the fences' windows and advance together, so that the probes of each step are read in one
    /// query.
    private mutating func lowerBounds(_ targets: SortKeys) throws -> [Int] {
        let windows = windows(targets)
        var low = windows.map(\.lowerBound)
        var high = windows.map(\.upperBound)
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

    /// The range of positions of `before` a target's lower bound is in, from the fences: the sampled keys of
    /// the base, whose values (of the fetch's time) are in order. A binary search over all of them finds the
    /// two around the target; a fence whose base key the patch removed (touched since) gives no position, so
    /// the nearest ones that still hold bound the range.
    private func fenceBounds(_ targets: SortKeys, _ target: Int, _ fences: SortFences) -> (low: Int, high: Int) {
        let stride = SortFences.stride
        var lower = 0
        var upper = fences.count
        while lower < upper {
            let middle = (lower + upper) / 2
            let order = fetch.compare(
                fences.values, middle * fences.width, before.base[middle * stride], targets.values, target * targets.width,
                targets.ids[target])
            if order < 0 { lower = middle + 1 } else { upper = middle }
        }
        // Fences before `lower` are less than the target, the others not.
        var low = 0
        var fence = lower - 1
        while fence >= 0 {
            if let position = before.index(ofBase: fence * stride) {
                low = position + 1
                break
            }
            fence -= 1
        }
        var high = before.count
        fence = lower
        while fence < fences.count {
            if let position = before.index(ofBase: fence * stride) {
                high = position
                break
            }
            fence += 1
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
        if probeStatement == nil { probeStatement = try IDGroupStatement(db, columns: fetch.probeColumns) }
        try probeStatement!.forEachRow(ids: wanted.keys) { row in
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
