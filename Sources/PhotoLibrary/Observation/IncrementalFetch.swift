import Foundation
import GRDB
@_spi(Maintenance) import IndexDiff

/// How an asset fetch is followed transaction by transaction: O(*k* log *n*) change details for a
/// transaction touching *k* assets of a result of *n*, instead of fetching again and diffing, O(*n*).
///
/// **Which fetches.** Asset fetches whose membership is a function of each asset's own public properties,
/// read the same way at any time, and whose order is by columns of `asset` then `id` (the final tie-break of
/// every asset fetch): all assets, assets of a media type, of a burst, and of the smart albums other than
/// Recently Added, with any predicate and sort descriptors. Everything else falls back to fetching again and
/// diffing (see ``ObservationCenter``): album-ordered fetches (the order is the album's), moments (an asset's
/// moment is bookkeeping, not journaled), Recently Added (a window of time), fetches by identifier list (the
/// list's order), a `fetchLimit` (membership depends on the other assets), collection and list fetches (their
/// counts and memberships depend on other objects), and, at delivery, a round that touches more than
/// ``maximumTouched(count:)`` assets or whose history has expired.
///
/// **How.** The journal's records after the result's sequence name the touched assets; untouched assets keep
/// their values, hence their membership and their relative order. A touched asset's sort values at the
/// result's sequence are its current ones when no record changed a sort property, else the previous values of
/// its first record. Its current membership and values come from the fetch's own SQL condition restricted to
/// the touched ids, so membership is exactly the requery's. One binary search per key over the result (ordered
/// by the keys at its sequence) finds where each touched asset was and how many untouched assets precede each
/// member: first in memory over the sort values the fetch sampled every 16 keys (``SortFences``), then over
/// the database, all searches in step so that each step reads its probes in one prepared statement. The minimal moves come from a longest increasing
/// subsequence over O(*k*) items: the touched assets present before and after, and the runs of untouched
/// assets between them (a run is always wholly kept or wholly moved), with the same tie-break as
/// ``IndexDiff``, so the details are exactly those of fetching again and diffing.
struct IncrementalFetch: Sendable {
    /// The fetch's condition over `asset` (true when it has none).
    let condition: SQL
    /// The sort columns of `asset`, before the final `id`.
    let columns: [String]
    /// Whether each column sorts ascending.
    let ascending: [Bool]
    /// The journaled properties that cover the sort columns: an asset whose records name none of them kept
    /// its sort values. Nil when a column isn't covered (its values are then always read from the journal).
    let sortProperties: AssetProperties?

    /// The recipe for a fetch with this condition and order, or nil when a sort key isn't a column of `asset`.
    init?(condition: SQL, sortDescriptors: [FetchSort]) {
        var columns: [String] = []
        var ascending: [Bool] = []
        for descriptor in sortDescriptors {
            guard let key = Asset.predicateSchema.key(named: descriptor.key), key.sqlExpression.hasPrefix("asset.") else { return nil }
            let column = String(key.sqlExpression.dropFirst("asset.".count))
            guard !column.isEmpty, column.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return nil }
            columns.append(column)
            ascending.append(descriptor.ascending)
        }
        self.condition = condition
        self.columns = columns
        self.ascending = ascending
        let covering: [String: AssetProperties] = [
            "localIdentifier": [], "mediaType": .mediaType, "mediaSubtypes": .mediaSubtypes, "pixelWidth": .pixelSize,
            "pixelHeight": .pixelSize, "creationDate": .creationDate, "modificationDate": .modificationDate,
            "latitude": .location, "longitude": .location, "duration": .duration, "isFavorite": .isFavorite,
            "isHidden": .isHidden, "burstIdentifier": .burst, "representsBurst": .burst, "hasAdjustments": .hasAdjustments,
            "originalFilename": .resource, "uniformTypeIdentifier": .resource, "fileSize": .content, "contentHash": .content,
        ]
        var properties: AssetProperties? = []
        for column in columns {
            if let covered = covering[column] { properties?.formUnion(covered) } else { properties = nil }
        }
        sortProperties = properties
    }

    /// The most touched assets a round may have for the incremental path: beyond about *n* / (16 log₂ *n*)
    /// fetching again is cheaper (3,125 for a million).
    static func maximumTouched(count: Int) -> Int {
        let log = max(1, Int.bitWidth - count.leadingZeroBitCount)
        return max(32, count / (16 * log))
    }

    /// The ids read by one probe statement.
    static var probeArity: Int { 16 }

    /// Why a round can't be followed incrementally: fetch again instead.
    struct Unmaintainable: Error {}

    /// A key of the order: the sort columns' values, then the id.
    struct SortKey {
        let values: [DatabaseValue]
        let id: Int64
    }

    /// The change from `before`, the result's keys at journal position `start`, to the state at `end` (the
    /// read's position), or nil when the round must fall back to fetching again.
    ///
    /// - Complexity: O(*k* log *n* + *r*) database reads and work for *k* touched assets, *r* journal
    ///   records in the interval, plus O(*K*) to patch the keys (see ``FetchResultKeyList``).
    func update(_ before: FetchResultKeyList, from start: Int64, through end: Int64, _ db: Database) throws -> IncrementalUpdate? {
        do {
            return try computeUpdate(before, from: start, through: end, db)
        } catch is Unmaintainable {
            return nil
        }
    }

    private func computeUpdate(_ before: FetchResultKeyList, from start: Int64, through end: Int64, _ db: Database) throws -> IncrementalUpdate {
        let floor = try Int64.fetchOne(db, sql: "SELECT floor FROM change_journal WHERE id = 1") ?? 0
        guard start >= floor else { throw Unmaintainable() }  // The records after `start` are no longer all kept.

        // 1. The touched assets; the first record of each after `start` tells its state then.
        var first: [Int64: (kind: Int, previous: Data?)] = [:]
        var updated: Set<Int64> = []
        var sortChanged: Set<Int64> = []  // Assets whose records name a property of the sort.
        let limit = Self.maximumTouched(count: before.count)
        // `+objectType`: read the interval through the primary key, not every asset record through the index
        // on object type.
        let records = try Row.fetchCursor(
            db, sql: """
                SELECT objectId, kind, previousValues, changedProperties FROM change_record
                WHERE seq > ? AND seq <= ? AND +objectType = ? ORDER BY seq
                """,
            arguments: [start, end, ObjectType.asset.rawValue])
        while let row = try records.next() {
            let id: Int64 = row[0]
            let kind: Int = row[1]
            if first[id] == nil {
                guard first.count < limit else { throw Unmaintainable() }
                first[id] = (kind, row[2])
            }
            if kind == ChangeKind.updated.rawValue {
                updated.insert(id)
                let properties = AssetProperties(rawValue: row[3])
                if sortProperties.map({ !properties.isDisjoint(with: $0) }) ?? true { sortChanged.insert(id) }
            }
        }

        // 2. The touched assets now: their sort values, and whether they are in the result (the fetch's own
        //    condition).
        let selectColumns = columns.map { ", asset." + $0 }.joined()
        let list = first.keys.sorted().map(String.init).joined(separator: ",")
        let query = SQL(sql: "SELECT asset.id\(selectColumns), CASE WHEN (") + condition
            + SQL(sql: ") THEN 1 ELSE 0 END FROM asset WHERE asset.id IN (\(list))")
        let (text, arguments) = try query.build(db)
        var current: [Int64: SortKey] = [:]
        var members: [SortKey] = []
        for row in try Row.fetchAll(db, sql: text, arguments: arguments) {
            let key = SortKey(values: columns.indices.map { row[$0 + 1] as DatabaseValue }, id: row[0])
            current[key.id] = key
            if row[columns.count + 1] as Bool? == true { members.append(key) }
        }
        members.sort { compare($0, $1) < 0 }

        // 3. The touched assets' sort values at `start`: their current ones when no record changed them, else
        //    the previous values of their first record.
        let decoder = JSONDecoder()
        var old: [Int64: SortKey] = [:]
        for (id, entry) in first where entry.kind != ChangeKind.inserted.rawValue {
            if !sortChanged.contains(id), let now = current[id] {
                old[id] = now
                continue
            }
            guard let data = entry.previous, let row = try? decoder.decode(AssetRow.self, from: data) else { throw Unmaintainable() }
            let values = try row.databaseDictionary
            var key: [DatabaseValue] = []
            for column in columns {
                guard let value = values[column] else { throw Unmaintainable() }
                key.append(value)
            }
            old[id] = SortKey(values: key, id: id)
        }
        let count = before.count
        var probes: [Int: SortKey] = [:]
        let probe = try db.cachedStatement(sql: """
            SELECT asset.id\(selectColumns) FROM asset WHERE asset.id IN (\(Array(repeating: "?", count: Self.probeArity).joined(separator: ",")))
            """)
        /// Reads the keys, at `start`, of the assets at these positions of `before` (untouched assets still
        /// have them), in one query.
        func load(_ positions: [Int]) throws {
            var wanted: [Int64: [Int]] = [:]
            for position in positions where probes[position] == nil {
                let id = before[position]
                if first[id] != nil {
                    guard let known = old[id] else { throw Unmaintainable() }
                    probes[position] = known
                } else {
                    wanted[id, default: []].append(position)
                }
            }
            guard !wanted.isEmpty else { return }
            // One prepared statement of `probeArity` ids (padded with 0, never an id): preparing a statement
            // costs more than running it.
            let ids = Array(wanted.keys)
            for chunk in stride(from: 0, to: ids.count, by: Self.probeArity) {
                var arguments = ids[chunk..<min(ids.count, chunk + Self.probeArity)].map { $0.databaseValue }
                arguments += repeatElement(0.databaseValue, count: Self.probeArity - arguments.count)
                for row in try Row.fetchAll(probe, arguments: StatementArguments(arguments)) {
                    let key = SortKey(values: columns.indices.map { row[$0 + 1] as DatabaseValue }, id: row[0])
                    for position in wanted[key.id] ?? [] { probes[position] = key }
                }
            }
            guard positions.allSatisfy({ probes[$0] != nil }) else { throw Unmaintainable() }
        }
        /// The first position of `before` whose key at `start` is not less than each target. The searches
        /// advance together, so that the probes of each step are read in one query: O(log *n*) queries for
        /// all of them.
        func lowerBounds(_ targets: [SortKey]) throws -> [Int] {
            var low = [Int](repeating: 0, count: targets.count)
            var high = [Int](repeating: count, count: targets.count)
            // First in memory, over the sort values the fetch sampled (those of keys untouched since).
            if let fences = before.fences, fences.count > 0, fences.width == columns.count {
                let stride = SortFences.stride
                for target in targets.indices {
                    var lower = 0
                    var upper = fences.count
                    while lower < upper {
                        let middle = (lower + upper) / 2
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
                            guard let found = position, fence >= lower else { break }  // No fence left that holds.
                            position = found
                        }
                        let values = Array(fences.values[(fence * fences.width)..<((fence + 1) * fences.width)])
                        if compare(SortKey(values: values, id: before.base[fence * stride]), targets[target]) < 0 {
                            lower = fence + 1
                            low[target] = max(low[target], position! + 1)
                        } else {
                            upper = fence
                            high[target] = min(high[target], position!)
                        }
                    }
                }
            }
            var active = targets.indices.filter { low[$0] < high[$0] }
            while !active.isEmpty {
                let step = active.map { (target: $0, probe: (low[$0] + high[$0]) / 2) }
                try load(step.map(\.probe))
                for (target, probe) in step {
                    if compare(probes[probe]!, targets[target]) < 0 { low[target] = probe + 1 } else { high[target] = probe }
                }
                active = active.filter { low[$0] < high[$0] }
            }
            return low
        }

        // 4. One search per key: where each touched asset was (by its key at `start`), and where each member
        //    goes. `before` is ordered by the keys at `start`, which untouched assets still have, so the
        //    untouched assets before a member's key are the untouched ones before its lower bound. A member
        //    whose sort values didn't change has one search for both.
        let oldKeys = Array(old.values)
        let oldIndex = Dictionary(uniqueKeysWithValues: oldKeys.enumerated().map { ($1.id, $0) })
        var targets = oldKeys
        var memberTarget: [Int] = []  // Index into `targets` of each member's search.
        for member in members {
            if let previous = old[member.id], zip(previous.values, member.values).allSatisfy({ Self.compare($0, $1) == 0 }) {
                memberTarget.append(oldIndex[member.id]!)
            } else {
                memberTarget.append(targets.count)
                targets.append(member)
            }
        }
        let bounds = try lowerBounds(targets)
        var beforePosition: [Int64: Int] = [:]
        var holes: [Int] = []  // Positions in `before` of touched assets: they leave, some come back.
        for (target, position) in zip(oldKeys, bounds) where position < count && before[position] == target.id {
            beforePosition[target.id] = position
            holes.append(position)
        }
        holes.sort()
        // slots[i]: the untouched assets before members[i]; ascending.
        let slots = memberTarget.map { bounds[$0] - FetchResultKeyList.lowerBound(holes, bounds[$0]) }
        let untouchedCount = count - holes.count
        let after = before.applying(
            removed: holes, inserted: members.indices.map { (index: slots[$0] + $0, key: members[$0].id) })

        // 5. The details.
        let memberIDs = Set(members.map { $0.id })
        var removedIndexes: [Int] = []
        for (id, position) in beforePosition where !memberIDs.contains(id) { removedIndexes.append(position) }
        removedIndexes.sort()
        var insertedIndexes: [Int] = []
        var common: [CommonAsset] = []
        var changedIndexes: [Int] = []
        for (index, member) in members.enumerated() {
            let afterIndex = slots[index] + index
            guard let position = beforePosition[member.id] else {
                insertedIndexes.append(afterIndex)
                continue
            }
            common.append(CommonAsset(
                beforeIndex: position, afterIndex: afterIndex, order: index,
                untouchedBefore: position - FetchResultKeyList.lowerBound(holes, position), untouchedAfter: slots[index]))
            if updated.contains(member.id) { changedIndexes.append(afterIndex) }
        }
        let moves = try Self.minimalMoves(common: common, untouchedCount: untouchedCount, holes: holes, slots: slots)
        return IncrementalUpdate(
            diff: IndexDiff.assembled(
                beforeCount: count, afterCount: untouchedCount + members.count, removedIndexes: removedIndexes,
                insertedIndexes: insertedIndexes, moves: moves, changedIndexes: changedIndexes),
            after: after)
    }

    /// A touched asset present before and after.
    struct CommonAsset {
        let beforeIndex: Int
        let afterIndex: Int
        /// Its rank among the touched assets after (their order in the result after).
        let order: Int
        /// The untouched assets before it, before and after.
        let untouchedBefore: Int
        let untouchedAfter: Int
    }

    /// One element of the compressed subsequence problem: a touched asset present before and after, or a run
    /// of untouched assets (by rank among them) that no such asset splits, before or after.
    private struct Item {
        enum Kind {
            case common(Int)
            case run(Range<Int>)
        }

        let kind: Kind
        let weight: Int
        /// Order keys: position among the untouched assets, then runs after touched assets at the same
        /// place, then the touched assets' own order.
        let afterKey: (Int, Int, Int)
        let beforeKey: (Int, Int, Int)
    }

    /// The moves of a longest increasing subsequence of before positions in after order, chosen with
    /// ``IndexDiff``'s tie-break, computed over runs instead of single assets.
    ///
    /// Every untouched asset keeps its relative order, so the sequence is one increasing chain with at most *c*
    /// touched assets (*c* = `common.count`) cutting into it, before and after. Between cuts, a run of the
    /// chain is compatible with whatever is compatible with one of its members, so a longest subsequence holds
    /// all of it or none of it: a weighted longest increasing subsequence over O(*c*) items. The tie-break
    /// (each element the latest possible, from the last backwards) picks, from the end, the latest item whose
    /// range of subsequence lengths holds the length wanted; that item is always a whole one.
    ///
    /// - Complexity: O(*c* log *c*) plus the moves.
    private static func minimalMoves(common: [CommonAsset], untouchedCount: Int, holes: [Int], slots: [Int]) throws -> [IndexDiff.Move] {
        guard !common.isEmpty else { return [] }
        var cuts: Set<Int> = [0, untouchedCount]
        for asset in common {
            cuts.insert(asset.untouchedBefore)
            cuts.insert(asset.untouchedAfter)
        }
        let sortedCuts = cuts.sorted()
        var items: [Item] = []
        items.reserveCapacity(common.count + sortedCuts.count)
        for (index, asset) in common.enumerated() {
            items.append(Item(
                kind: .common(index), weight: 1, afterKey: (asset.untouchedAfter, 0, asset.order),
                beforeKey: (asset.untouchedBefore, 0, asset.beforeIndex)))
        }
        for (lower, upper) in zip(sortedCuts, sortedCuts.dropFirst()) where lower < upper {
            items.append(Item(kind: .run(lower..<upper), weight: upper - lower, afterKey: (lower, 1, 0), beforeKey: (lower, 1, 0)))
        }
        items.sort { $0.afterKey < $1.afterKey }
        let byBefore = items.indices.sorted { items[$0].beforeKey < items[$1].beforeKey }
        var rank = [Int](repeating: 0, count: items.count)
        for (position, item) in byBefore.enumerated() { rank[item] = position }

        // Longest (weighted) subsequence ending at each item, through a Fenwick tree of prefix maxima.
        var tree = [Int](repeating: 0, count: items.count + 1)
        var best = [Int](repeating: 0, count: items.count)
        for (index, item) in items.enumerated() {
            var longest = 0
            var node = rank[index]  // Prefix of ranks 0..<rank.
            while node > 0 {
                longest = max(longest, tree[node])
                node -= node & -node
            }
            best[index] = longest + item.weight
            node = rank[index] + 1
            while node <= items.count {
                tree[node] = max(tree[node], best[index])
                node += node & -node
            }
        }

        // Backtrack from the end: the latest item holding each length wanted.
        var wanted = best.max() ?? 0
        var kept = [Bool](repeating: false, count: items.count)
        var index = items.count - 1
        while wanted > 0 && index >= 0 {
            if best[index] >= wanted && best[index] - items[index].weight < wanted {
                // A longest subsequence holds whole runs only.
                guard best[index] == wanted else { throw Unmaintainable() }
                kept[index] = true
                wanted -= items[index].weight
            }
            index -= 1
        }
        guard wanted == 0 else { throw Unmaintainable() }

        var moves: [IndexDiff.Move] = []
        for (index, item) in items.enumerated() where !kept[index] {
            switch item.kind {
            case .common(let asset):
                moves.append(IndexDiff.Move(from: common[asset].beforeIndex, to: common[asset].afterIndex))
            case .run(let ranks):
                for rank in ranks {
                    // Touched assets placed before it: those whose slot is at most its rank.
                    var low = 0
                    var high = slots.count
                    while low < high {
                        let middle = (low + high) / 2
                        if slots[middle] <= rank { low = middle + 1 } else { high = middle }
                    }
                    moves.append(IndexDiff.Move(
                        from: FetchResultKeyList.position(ofSurvivor: rank, holes: holes), to: rank + low))
                }
            }
        }
        moves.sort { $0.to < $1.to }
        return moves
    }

    /// Compares two keys in the fetch's order: the columns as SQLite orders them, each ascending or not, then
    /// the id ascending. Negative, zero or positive.
    func compare(_ lhs: SortKey, _ rhs: SortKey) -> Int {
        for index in columns.indices {
            let order = Self.compare(lhs.values[index], rhs.values[index])
            if order != 0 { return ascending[index] ? order : -order }
        }
        return lhs.id < rhs.id ? -1 : (lhs.id == rhs.id ? 0 : 1)
    }

    /// SQLite's order of values (`BINARY` collation): NULL, then numbers (integers and reals compared
    /// exactly), then text by bytes, then blobs by bytes.
    static func compare(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Int {
        func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }
        func typeOrder(_ value: DatabaseValue) -> Int {
            switch value.storage {
            case .null: 0
            case .int64, .double: 1
            case .string: 2
            case .blob: 3
            }
        }
        switch (lhs.storage, rhs.storage) {
        case (.int64(let a), .int64(let b)): return sign(a, b)
        case (.double(let a), .double(let b)): return sign(a, b)
        case (.int64(let a), .double(let b)): return compare(a, b)
        case (.double(let a), .int64(let b)): return -compare(b, a)
        case (.string(let a), .string(let b)):
            if a.utf8.elementsEqual(b.utf8) { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        case (.blob(let a), .blob(let b)):
            if a == b { return 0 }
            return a.lexicographicallyPrecedes(b) ? -1 : 1
        default:
            return sign(typeOrder(lhs), typeOrder(rhs))
        }
    }

    /// An integer and a real compared exactly.
    private static func compare(_ integer: Int64, _ real: Double) -> Int {
        if real.isNaN { return 1 }
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = real.rounded(.down)
        let whole = Int64(floor)
        if integer != whole { return integer < whole ? -1 : 1 }
        return real > floor ? -1 : 0
    }
}

/// The change of one fetch result over a delivery round, made incrementally.
struct IncrementalUpdate: Sendable {
    let diff: IndexDiff
    /// The keys after the round (the before keys' storage with a patch).
    let after: FetchResultKeyList
}
