import GRDB
import IndexDiff
import LibraryStorage

/// Step 4 of ``IncrementalFetch``: binary searches over a fetch result's keys, ordered by their sort values at
/// the result's sequence, for where each touched asset was and where each member now goes.
///
/// With every key's sort values in memory (dense ``SortFences``, and the values the patch's keys were
/// inserted with), each search is two binary searches in memory: O(log *n*), no database read. With sampled
/// fences, untouched assets still have their sort values of then, so a probe reads them from the database
/// (touched ones have theirs from the journal): the searches start in memory over every 16th key's values,
/// then advance together, so that each step reads all its probes with one prepared statement: O(log 16)
/// statements for all the searches.
struct KeySearch {
    private let fetch: IncrementalFetch
    private let before: FetchResultKeyList
    private let db: any SQLConnection
    /// Every touched asset, and the keys at the start of those that existed then.
    private let touched: TouchedAssets
    private let old: SortKeys
    private let start: IncrementalFetch.StartKeys
    /// The keys read so far, and where each position of `before` has its key in them.
    private var probes: SortKeys
    private var probeIndex: [Int: Int] = [:]
    /// The statement that reads the keys of untouched assets, once needed.
    private var probeStatement: IDGroupStatement?
    /// The searches in memory, when every key of `before` has its sort values.
    private let dense: DenseKeySearch?

    init(fetch: IncrementalFetch, before: FetchResultKeyList, touched: TouchedAssets, old: IncrementalFetch.StartKeys, _ db: any SQLConnection) {
        self.fetch = fetch
        self.before = before
        self.db = db
        self.touched = touched
        self.old = old.keys
        start = old
        probes = SortKeys(width: fetch.columns.count)
        dense = before.denseBaseValues.map { DenseKeySearch(fetch: fetch, list: before, baseValues: $0) }
    }

    /// Where the touched assets go: where each was (the position of its key at the start, if it was in the
    /// result) and how many untouched assets precede each member now (the lower bound of its key now).
    /// `slots` holds the touched slot of each member.
    /// `oldPositions`, when given, are ``positions(of:)`` of the old keys, already searched.
    mutating func place(members: SortKeys, slots: [Int], oldPositions: [Int]? = nil) throws -> Placement {
        if let dense { return try placeInMemory(members: members, slots: slots, dense, oldPositions: oldPositions) }
        return try placeWithProbes(members: members, slots: slots)
    }

    /// The position in `before` of the asset of each key, given as its key at the start, or -1 when it isn't
    /// in `before`: for assets that aren't touched.
    ///
    /// - Complexity: O(*t* log *n*) in memory with dense values; else as ``place(members:slots:)``.
    mutating func positions(of keys: SortKeys) throws -> [Int] {
        guard keys.count > 0 else { return [] }
        if let dense { return try Self.positions(of: keys, dense) }
        var (found, searched, searchedKeys) = scanWindows(keys)
        let bounds = try lowerBounds(searched)
        for (target, index) in searchedKeys.enumerated() where holds(keys.ids[index], at: bounds[target]) {
            found[index] = bounds[target]
        }
        return found
    }

    /// ``positions(of:)`` in memory.
    private static func positions(of keys: SortKeys, _ dense: DenseKeySearch) throws -> [Int] {
        let (positions, held) = dense.bounds(try numbers(keys), keys.ids)
        return positions.indices.map { held[$0] ? positions[$0] : -1 }
    }

    /// Where each key of `keys` is in `before` when the fences narrow it to a window of a few positions, found
    /// by scanning the window for its id (-1: not in `before`); the keys with wider windows (no fences, or
    /// fences the patch removed) are left to ``lowerBounds(_:)``: `searched`, and the index in `keys` of each.
    private func scanWindows(_ keys: SortKeys) -> (found: [Int], searched: SortKeys, searchedKeys: [Int]) {
        var found = [Int](filled: -1, count: keys.count)
        let keyWindows = windows(keys)
        var searched = SortKeys(width: keys.width)
        var searchedKeys: [Int] = []
        for index in 0..<keys.count {
            let window = keyWindows[index]
            guard window.count <= Self.scannedWindow else {
                searched.append(from: keys, index)
                searchedKeys.append(index)
                continue
            }
            let range = window.lowerBound..<min(window.upperBound + 1, before.count)
            found[index] = range.first { before[$0] == keys.ids[index] } ?? -1
        }
        return (found, searched, searchedKeys)
    }

    /// Whether `before` holds `id` at `position` (a lower bound: possibly past the end).
    private func holds(_ id: Int64, at position: Int) -> Bool {
        position < before.count && before[position] == id
    }

    /// The members that keep their place: those whose sort values didn't change and that were in the result,
    /// whose lower bound is their position in `before` (`beforePosition`, by touched slot). Returns each
    /// member's bound where it keeps its place (else 0), and the other members, ascending: to search.
    private func keptBounds(members: SortKeys, slots: [Int], _ beforePosition: [Int]) -> (bounds: [Int], moved: [Int]) {
        var bounds = [Int](filled: 0, count: members.count)
        var moved: [Int] = []
        for member in 0..<members.count {
            let position = beforePosition[slots[member]]
            let previous = start.index[slots[member]]
            if position >= 0, previous >= 0, old.sameValues(previous, as: members, member) {
                bounds[member] = position
            } else {
                moved.append(member)
            }
        }
        return (bounds, moved)
    }

    /// ``place(members:slots:)`` with every 16th key's sort values in memory, or none.
    private mutating func placeWithProbes(members: SortKeys, slots: [Int]) throws -> Placement {
        var placement = Placement(touchedCount: touched.ids.count)
        // A touched asset that was in the result sits exactly at its key's lower bound, which the fences narrow
        // to a window of about 16 positions: its id is found there without reading the database. Wider
        // windows are searched.
        var (found, searched, searchedOld) = scanWindows(old)
        for index in 0..<old.count where found[index] >= 0 { placement.beforePosition[start.slots[index]] = found[index] }
        // The members that don't keep their place are searched with the old keys left, all in step.
        let kept = keptBounds(members: members, slots: slots, placement.beforePosition)
        var memberBounds = kept.bounds
        var searchedMember: [(member: Int, target: Int)] = []
        for member in kept.moved {
            searchedMember.append((member, searched.count))
            searched.append(from: members, member)
        }
        let bounds = try lowerBounds(searched)
        for (target, index) in searchedOld.enumerated() where holds(old.ids[index], at: bounds[target]) {
            placement.beforePosition[start.slots[index]] = bounds[target]
        }
        for (member, target) in searchedMember { memberBounds[member] = bounds[target] }
        // `before` is ordered by the keys at the start, which untouched assets still have: the untouched assets
        // before a member's key are the untouched ones before its lower bound.
        placement.holes = placement.beforePosition.filter { $0 >= 0 }.sorted()
        placement.slots = memberBounds.map { $0 - FetchResultKeyList.lowerBound(placement.holes, $0) }
        return placement
    }

    /// ``place(members:slots:)`` with every key's sort values in memory.
    private func placeInMemory(members: SortKeys, slots: [Int], _ dense: DenseKeySearch, oldPositions: [Int]?) throws -> Placement {
        var placement = Placement(touchedCount: touched.ids.count)
        for (index, position) in try (oldPositions ?? Self.positions(of: old, dense)).enumerated() where position >= 0 {
            placement.beforePosition[start.slots[index]] = position
        }
        placement.insertedValues = try Self.numbers(members)
        placement.holes = placement.beforePosition.filter { $0 >= 0 }.sorted()
        // The members that don't keep their place are searched in step, with the values just converted.
        let kept = keptBounds(members: members, slots: slots, placement.beforePosition)
        var bounds = kept.bounds
        let width = members.width
        let found = dense.bounds(
            kept.moved.flatMap { placement.insertedValues[($0 * width)..<(($0 + 1) * width)] }, kept.moved.map { members.ids[$0] }
        ).positions
        for (index, member) in kept.moved.enumerated() { bounds[member] = found[index] }
        placement.slots = bounds.map { $0 - FetchResultKeyList.lowerBound(placement.holes, $0) }
        return placement
    }

    /// The keys' values as dense numbers; throws ``IncrementalFetch/Unmaintainable`` for a value that isn't one
    /// (the fetch's values all were; a new one can't be placed among them exactly).
    private static func numbers(_ keys: SortKeys) throws -> [Double] {
        try keys.values.map { value in
            guard let number = SortFences.number(value) else { throw IncrementalFetch.Unmaintainable() }
            return number
        }
    }

    /// The widest window of positions scanned for an id rather than searched by key.
    static var scannedWindow: Int { 4 * SortFences.stride }

    /// The positions of `before` each target's lower bound can be at: narrowed by the fences, when there are.
    private func windows(_ targets: SortKeys) -> [ClosedRange<Int>] {
        guard let fences = before.fences, case .sampled(let values) = fences.values, fences.count > 0,
            fences.width == fetch.columns.count
        else {
            return Array(repeating: 0...before.count, count: targets.count)
        }
        return (0..<targets.count).map { target in
            let (low, high) = fenceBounds(targets, target, values: values, count: fences.count)
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
    private func fenceBounds(_ targets: SortKeys, _ target: Int, values: [DatabaseValue], count: Int) -> (low: Int, high: Int) {
        let stride = SortFences.stride
        var lower = 0
        var upper = count
        while lower < upper {
            let middle = (lower + upper) / 2
            let order = fetch.compare(
                values, middle * targets.width, before.base[middle * stride], targets.values, target * targets.width,
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
        while fence < count {
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
            if let slot = touched.slots.slot(of: id) {
                let known = start.index[slot]
                guard known >= 0 else { throw IncrementalFetch.Unmaintainable() }
                probes.append(from: old, known)
                probeIndex[position] = probes.count - 1
            } else {
                wanted[id, default: []].append(position)
            }
        }
        guard !wanted.isEmpty else { return }
        if probeStatement == nil { probeStatement = try IDGroupStatement(db, query: IDGroupStatement.query(columns: fetch.probeColumns)) }
        try probeStatement!.forEachRow(ids: wanted.keys) { row in
            let id = row.int64(0)
            let key = probes.append(row, id: id, from: 1)
            for position in wanted[id] ?? [] { probeIndex[position] = key }
        }
        guard positions.allSatisfy({ probeIndex[$0] != nil }) else { throw IncrementalFetch.Unmaintainable() }
    }
}

/// Where the touched assets are in the result before and go in the result after.
struct Placement {
    /// By touched slot: the position in `before` of each touched asset that was in it, else -1.
    var beforePosition: [Int]
    /// Ascending positions in `before` of the touched assets: they leave, some come back.
    var holes: [Int] = []
    /// `slots[i]`: the untouched assets before member `i` in the result after; ascending.
    var slots: [Int] = []
    /// With dense sort values, the members' (a key's values after another's): the patch keeps them.
    var insertedValues: [Double] = []

    init(touchedCount: Int) {
        beforePosition = [Int](filled: -1, count: touchedCount)
    }
}
