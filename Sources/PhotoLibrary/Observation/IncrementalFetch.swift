import Foundation
import GRDB
import LibraryStorage
import Synchronization
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
/// **How**, in five steps (``update(_:from:through:_:)``):
/// 1. The journal's records after the result's sequence name the touched assets (``TouchedAssets``);
///    untouched assets keep their values, hence their membership and their relative order. So do assets
///    updated only in properties that neither the sort nor the condition reads (a favourite toggled under a
///    date order): they are treated as untouched, and only their positions are searched, to report them
///    changed.
/// 2. The fetch's own SQL condition restricted to the touched ids gives their membership and sort values now,
///    so membership is exactly the requery's. When the round's records were handed off by this handle's
///    commits (``JournalHandOff``) with the rows they left, and no touched asset was inserted or changed in a
///    property of the condition, neither can have changed: the values come from those rows and the
///    membership is the one at the start (step 4 finds it), without reading the database.
/// 3. A touched asset's sort values at the result's sequence are its current ones when no record changed a
///    sort property, else the previous values of its first record (only the sort columns are decoded).
/// 4. One binary search per key over the result, ordered by the keys at its sequence, finds where each
///    touched asset was and how many untouched assets precede each member (``KeySearch``): in memory over
///    the sort values the fetch kept (``SortFences``: every key's when they are numbers), else first over
///    every 16th key's and then in the database, all searches in step so that each step reads its probes
///    with one prepared statement.
/// 5. The details: removals, insertions and changes by position, and the minimal moves from a longest
///    increasing subsequence over O(*k*) items (``ChainMoves``), with ``IndexDiff``'s tie-break, so the details
///    are exactly those of fetching again and diffing. The keys after share the keys before plus a patch.
///
/// Every statement is prepared once per connection and reused (the touched ids are bound in groups: see
/// ``IDGroupStatement``).
final class IncrementalFetch: Sendable {
    /// The fetch's condition over `asset` (true when it has none).
    let condition: SQL
    /// The sort columns of `asset`, before the final `id`.
    let columns: [String]
    /// Whether each column sorts ascending.
    let ascending: [Bool]
    /// The journaled properties that cover the sort columns: an asset whose records name none of them kept
    /// its sort values. Nil when a column isn't covered (its values are then always read from the journal).
    let sortProperties: AssetProperties?
    /// The journaled properties that cover the sort columns and those the condition reads: an asset updated
    /// with none of them kept its place and its membership. Nil when a column isn't covered.
    let relevantProperties: AssetProperties?
    /// The journaled properties that cover the columns the condition reads: an asset updated with none of
    /// them kept its membership. Nil when a column isn't covered.
    let conditionProperties: AssetProperties?
    /// The position of each sort column among the columns of an asset's previous values.
    let journalIndexes: [Int]
    /// `asset.id, <columns>`: what a probe reads.
    let probeColumns: String
    /// The membership query, once built (see ``membershipQuery(_:)``).
    private let membership = BuiltMembership()

    /// A value built on first use and kept: the membership query's SQL and arguments.
    final class BuiltMembership: Sendable {
        let value = Mutex<IDGroupStatement.Query?>(nil)
    }

    /// The recipe for a fetch with this condition and order, or nil when a sort key isn't a column of `asset`.
    /// `conditionColumns` are the columns of `asset` the condition reads (nil: it reads others).
    init?(condition: SQL, conditionColumns: [String]?, sortDescriptors: [FetchSort]) {
        var columns: [String] = []
        var ascending: [Bool] = []
        var journalIndexes: [Int] = []
        for descriptor in sortDescriptors {
            guard let column = Asset.predicateSchema.key(named: descriptor.key).flatMap(Self.assetColumn),
                let journalIndex = AssetRow.journalColumns.firstIndex(of: column)
            else { return nil }
            columns.append(column)
            ascending.append(descriptor.ascending)
            journalIndexes.append(journalIndex)
        }
        self.condition = condition
        self.columns = columns
        self.ascending = ascending
        self.journalIndexes = journalIndexes
        sortProperties = Self.covering(columns)
        relevantProperties = conditionColumns.flatMap { Self.covering(columns + $0) }
        conditionProperties = conditionColumns.flatMap { Self.covering($0) }
        probeColumns = "asset.id" + columns.map { ", asset." + $0 }.joined()
    }

    /// The column of `asset` a key reads, when it is one (`asset.column`); nil for any other expression.
    static func assetColumn(_ key: PredicateKey<Asset>) -> String? {
        guard key.sqlExpression.hasPrefix("asset.") else { return nil }
        let column = String(key.sqlExpression.dropFirst("asset.".count))
        guard !column.isEmpty, column.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return nil }
        return column
    }

    /// The journaled properties whose changes can change these columns; nil when one isn't covered.
    private static func covering(_ columns: [String]) -> AssetProperties? {
        let covering: [String: AssetProperties] = [
            "localIdentifier": [], "mediaType": .mediaType, "mediaSubtypes": .mediaSubtypes, "pixelWidth": .pixelSize,
            "pixelHeight": .pixelSize, "creationDate": .creationDate, "modificationDate": .modificationDate,
            "latitude": .location, "longitude": .location, "duration": .duration, "isFavorite": .isFavorite,
            "isHidden": .isHidden, "burstIdentifier": .burst, "representsBurst": .burst, "hasAdjustments": .hasAdjustments,
            "originalFilename": .resource, "uniformTypeIdentifier": .resource, "fileSize": .content, "contentHash": .content,
        ]
        var properties: AssetProperties = []
        for column in columns {
            guard let covered = covering[column] else { return nil }
            properties.formUnion(covered)
        }
        return properties
    }

    /// The most touched assets a round may have for the incremental path: beyond about *n* / (16 log₂ *n*)
    /// fetching again is cheaper (3,125 for a million).
    static func maximumTouched(count: Int) -> Int {
        let log = max(1, Int.bitWidth - count.leadingZeroBitCount)
        return max(32, count / (16 * log))
    }

    /// Why a round can't be followed incrementally: fetch again instead.
    struct Unmaintainable: Error {}

    /// The change from `before`, the result's keys at journal position `start`, to the state at the round's end,
    /// or nil when the round must fall back to fetching again.
    ///
    /// - Complexity: for *k* touched assets and *r* journal records in the interval, O(*k* + *r*) rows read
    ///   (none for the records when the round read them all) and O(*k* log *n*) work in memory when the fetch
    ///   kept every key's sort values; O(*k* log *n*) rows read when it kept every 16th; plus O(*K*) to patch
    ///   the keys (see ``FetchResultKeyList``).
    func update(_ before: FetchResultKeyList, from start: Int64, round: RoundJournal, _ db: any SQLConnection) throws -> IncrementalUpdate? {
        do {
            // Records before the floor may be gone.
            guard start >= round.floor else { throw Unmaintainable() }
            let all = try TouchedAssets(from: start, round: round, of: self, limit: Self.maximumTouched(count: before.count), db)
            guard !all.ids.isEmpty else { return IncrementalUpdate(unchanged: before) }
            // Assets updated in properties neither the sort nor the condition reads stay where they were, as they
            // were: only their positions are searched, by their keys at the start (not read again).
            let (touched, inPlace) = all.dividing()
            let inMemory = knownAtEnd(touched, before: before)
            var now = try inMemory ? currentKeysInMemory(of: touched) : currentKeys(of: touched, db)
            let old = try keysAtStart(touched, now: now, db)
            var search = KeySearch(fetch: self, before: before, touched: touched, old: old, db)
            let placement = try inMemory
                ? placeKeptMembers(&now, old: old, &search, touchedCount: touched.ids.count)
                : search.place(members: now.members, slots: now.memberSlots)
            let updatedInPlace = try search.positions(of: keysInPlace(all, inPlace, db)).filter { $0 >= 0 }
            return try IncrementalUpdate(
                before: before, touched: touched, members: now.members, memberSlots: now.memberSlots, placement: placement,
                updatedInPlace: updatedInPlace, readInMemory: inMemory)
        } catch is Unmaintainable {
            return nil
        }
    }

    /// The touched assets now: the sort keys of those in the result, in the fetch's order, and those of all.
    struct CurrentKeys {
        /// The touched assets in the result now, in its order, and the slot of each.
        var members: SortKeys
        var memberSlots: [Int] = []
        /// By slot: the index into ``all`` of each touched asset that still exists, else -1.
        var index: [Int]
        var all: SortKeys
        /// The slot of each key of ``all``.
        var slots: [Int] = []
    }

    /// Whether the touched assets' state at the end of the round is known without reading the database, and
    /// their memberships can't have changed: each is gone, or was there at the start and is there at the end
    /// with its last update's row handed off by its commit, no record of it naming a property of the
    /// condition. Otherwise their rows are read, and the condition evaluated, by the engine. Only with every
    /// key's sort values in memory (the members' old positions are searched there) and columns the journal
    /// covers (the rows' journaled columns are their state at the end).
    private func knownAtEnd(_ touched: TouchedAssets, before: FetchResultKeyList) -> Bool {
        guard before.denseBaseValues != nil, sortProperties != nil, conditionProperties != nil else { return false }
        return touched.ids.indices.allSatisfy { slot in
            touched.isDeletedAtEnd(slot: slot)
                || (touched.entries[slot].first.kind == .updated && !touched.entries[slot].conditionChanged && touched.hasRowAtEnd(slot: slot))
        }
    }

    /// Step 2 without the database (``knownAtEnd(_:before:)``): the sort values of the touched assets still
    /// there, from their rows at the end; the members are chosen by the caller (``orderMembers(_:_:)``).
    private func currentKeysInMemory(of touched: TouchedAssets) throws -> CurrentKeys {
        let width = columns.count
        var keys = CurrentKeys(members: SortKeys(width: width), index: [Int](filled: -1, count: touched.ids.count), all: SortKeys(width: width))
        keys.all.reserveCapacity(touched.ids.count)
        keys.slots.reserveCapacity(touched.ids.count)
        for slot in touched.ids.indices where !touched.isDeletedAtEnd(slot: slot) {
            keys.index[slot] = try keys.all.append(id: touched.ids[slot]) { column in
                guard let value = touched.valueAtEnd(slot: slot, column: journalIndexes[column]) else { throw Unmaintainable() }
                return value
            }
            keys.slots.append(slot)
        }
        return keys
    }

    /// The sort keys of the assets updated in place (at `slots` of `all`): their keys at the start, which
    /// are their keys at the end, since no record of theirs names a property of the sort. Taken from their
    /// rows at the end when handed off with the records (no decoding), else from their previous values.
    private func keysInPlace(_ all: TouchedAssets, _ slots: [Int], _ db: any SQLConnection) throws -> SortKeys {
        var keys = SortKeys(width: columns.count)
        keys.reserveCapacity(slots.count)
        for slot in slots {
            if all.hasRowAtEnd(slot: slot) {
                _ = try keys.append(id: all.ids[slot]) { column in
                    guard let value = all.valueAtEnd(slot: slot, column: journalIndexes[column]) else { throw Unmaintainable() }
                    return value
                }
                continue
            }
            guard let values = try all.previousValues(at: journalIndexes, slot: slot, db) else { throw Unmaintainable() }
            keys.append(values, id: all.ids[slot])
        }
        return keys
    }

    /// Step 4 when memberships didn't change (``knownAtEnd(_:before:)``): the members are the touched assets
    /// still there that were in the result, found by searching their old keys; then they are placed.
    private func placeKeptMembers(_ now: inout CurrentKeys, old: StartKeys, _ search: inout KeySearch, touchedCount: Int) throws -> Placement {
        let positions = try search.positions(of: old.keys)
        var wasMember = [Bool](filled: false, count: touchedCount)
        for (index, position) in positions.enumerated() where position >= 0 { wasMember[old.slots[index]] = true }
        orderMembers(&now, (0..<now.all.count).filter { wasMember[now.slots[$0]] })
        return try search.place(members: now.members, slots: now.memberSlots, oldPositions: positions)
    }

    /// Sets the members: the keys of ``CurrentKeys/all`` at `indexes`, in the fetch's order.
    private func orderMembers(_ keys: inout CurrentKeys, _ indexes: [Int]) {
        let all = keys.all
        let sorted = indexes.sorted { compare(all, $0, all, $1) < 0 }
        keys.members.reserveCapacity(sorted.count)
        keys.memberSlots.reserveCapacity(sorted.count)
        for key in sorted {
            keys.members.append(from: all, key)
            keys.memberSlots.append(keys.slots[key])
        }
    }

    /// Step 2: the touched assets' sort values now, and whether each is in the result (the fetch's own
    /// condition, evaluated by the engine).
    private func currentKeys(of touched: TouchedAssets, _ db: any SQLConnection) throws -> CurrentKeys {
        let width = columns.count
        var keys = CurrentKeys(
            members: SortKeys(width: width), index: [Int](filled: -1, count: touched.ids.count), all: SortKeys(width: width))
        keys.all.reserveCapacity(touched.ids.count)
        let statement = try IDGroupStatement(db, query: membershipQuery(db))
        guard !touched.ids.isEmpty else { return keys }
        var memberKeys: [Int] = []
        try statement.forEachRow(ids: touched.ids) { row in
            let id = row.int64(0)
            guard let slot = touched.slots.slot(of: id) else { return }
            let key = keys.all.append(row, id: id, from: 1)
            keys.index[slot] = key
            keys.slots.append(slot)
            if row.int64(width + 1) == 1 { memberKeys.append(key) }
        }
        orderMembers(&keys, memberKeys)
        return keys
    }

    /// The membership query (``probeColumns`` and whether the fetch's condition holds) as an id group
    /// statement's SQL and arguments, built once.
    private func membershipQuery(_ db: any SQLConnection) throws -> IDGroupStatement.Query {
        if let built = membership.value.withLock({ $0 }) { return built }
        // The condition is a SQL literal the query compilers made in the connection's dialect.
        let (condition, arguments) = try StorageSQL.render(self.condition, db)
        let built = IDGroupStatement.query(columns: "\(probeColumns), CASE WHEN (\(condition)) THEN 1 ELSE 0 END", arguments: arguments)
        membership.value.withLock { $0 = built }
        return built
    }

    /// The touched assets' sort keys at the result's sequence, for those that existed then.
    struct StartKeys {
        var keys: SortKeys
        /// By slot: the index into ``keys`` of each touched asset that existed, else -1.
        var index: [Int]
        /// The slot of each key.
        var slots: [Int] = []
    }

    /// Step 3: the touched assets' sort keys at the result's sequence, for those that existed then: their
    /// current keys when no record changed a sort property, else their first record's previous values.
    private func keysAtStart(_ touched: TouchedAssets, now: CurrentKeys, _ db: any SQLConnection) throws -> StartKeys {
        var old = StartKeys(keys: SortKeys(width: columns.count), index: [Int](filled: -1, count: touched.ids.count))
        old.keys.reserveCapacity(touched.ids.count)
        old.slots.reserveCapacity(touched.ids.count)
        for (slot, entry) in touched.entries.enumerated() where entry.first.kind != .inserted {
            old.index[slot] = old.keys.count
            old.slots.append(slot)
            if !entry.sortChanged, now.index[slot] >= 0 {
                old.keys.append(from: now.all, now.index[slot])
                continue
            }
            guard let values = try touched.previousValues(at: journalIndexes, slot: slot, db) else { throw Unmaintainable() }
            old.keys.append(values, id: touched.ids[slot])
        }
        return old
    }
}
