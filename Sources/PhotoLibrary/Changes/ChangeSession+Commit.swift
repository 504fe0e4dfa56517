import Foundation
import GRDB
import LibraryStorage

extension ChangeSession {
    /// Ends the block: writes pending edits, maintains derived collections and appends the journal.
    ///
    /// - Returns: the journaled transaction, or nil when the block changed nothing.
    func finish() throws -> JournalTransaction? {
        if let firstError { throw firstError }
        try writePendingAssets()
        for write in clientWrites { try write(db) }
        var afterAssets = try fetchAssetsAfter(reusingWritten: true)
        if try maintainBursts(afterAssets) {
            afterAssets = try fetchAssetsAfter(reusingWritten: false)
        }
        try maintainMoments(afterAssets)
        try maintainSmartAlbums(afterAssets)
        try maintainAlbumAggregates(afterAssets)
        // `momentId` may have moved since `afterAssets` was read; it is bookkeeping, not a public property.
        return try appendJournal(afterAssets: afterAssets)
    }

    // MARK: Pending edits

    private func writePendingAssets() throws {
        try writeCreatedAssets()
        for id in pendingAssetOrder {
            guard var row = pendingAssetRows[id] else { continue }  // Deleted later in the block.
            try validate(row)
            if row.burstIdentifier == nil {
                row.representsBurst = false
            }
            try row.update(in: db)
            writtenAssetRows[id] = row
        }
        pendingAssetRows.removeAll()
        pendingAssetOrder.removeAll()
    }

    func validate(_ row: AssetRow) throws {
        if let location = row.location, !location.isValid {
            throw PhotoLibraryError.invalidValue(property: "location", reason: "(\(location.latitude), \(location.longitude)) is not on Earth")
        }
        if (row.latitude == nil) != (row.longitude == nil) {
            throw PhotoLibraryError.invalidValue(property: "location", reason: "latitude and longitude go together")
        }
        if let date = row.creationDate, !date.isFinite {
            throw PhotoLibraryError.invalidValue(property: "creationDate", reason: "not a finite date")
        }
        if let offset = row.creationTimeZoneOffset, abs(offset) > 18 * 3600 {
            throw PhotoLibraryError.invalidValue(property: "creationTimeZoneOffset", reason: "\(offset) s is beyond ±18 h")
        }
        if row.pixelWidth < 0 || row.pixelHeight < 0 {
            throw PhotoLibraryError.invalidValue(property: "pixelWidth/pixelHeight", reason: "negative size")
        }
        if !row.duration.isFinite || row.duration < 0 {
            throw PhotoLibraryError.invalidValue(property: "duration", reason: "\(row.duration)")
        }
        if AssetMediaType(rawValue: row.mediaType) == nil {
            throw PhotoLibraryError.invalidValue(property: "mediaType", reason: "raw value \(row.mediaType)")
        }
    }

    /// The rows of the assets the block touched, as they are now: read from the database, or, with
    /// `reusingWritten`, taken from ``writtenAssetRows`` where the block wrote them.
    private func fetchAssetsAfter(reusingWritten: Bool) throws -> [Int64: AssetRow] {
        var result: [Int64: AssetRow] = [:]
        result.reserveCapacity(assetsBefore.count)
        var ids: [Int64] = []
        for id in assetsBefore.keys {
            if reusingWritten, let row = writtenAssetRows[id] {
                result[id] = row
            } else {
                ids.append(id)
            }
        }
        for chunk in stride(from: 0, to: ids.count, by: 500) {
            let slice = Array(ids[chunk..<min(ids.count, chunk + 500)])
            let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ",")
            let rows = try db.fetchRecords(
                AssetRow.self, sql: "SELECT * FROM asset WHERE id IN (\(placeholders))", arguments: StatementArguments(slice))
            for row in rows { result[row.id] = row }
        }
        return result
    }

    // MARK: Bursts

    /// Every burst keeps exactly one representative: the user's pick, else the automatic pick, else the
    /// earliest asset (then the first added).
    /// - Returns: whether any asset's representative flag changed.
    private func maintainBursts(_ after: [Int64: AssetRow]) throws -> Bool {
        var bursts: Set<String> = []
        for (id, before) in assetsBefore {
            if let identifier = before?.burstIdentifier { bursts.insert(identifier) }
            if let identifier = after[id]?.burstIdentifier { bursts.insert(identifier) }
        }
        var changed = false
        for burst in bursts.sorted() {
            var members: [(id: Int64, represents: Bool)] = []
            try db.forEachRow(
                sql: """
                    SELECT id, representsBurst FROM asset WHERE burstIdentifier = ?
                    ORDER BY representsBurst DESC, (burstSelectionTypes & 2) DESC, (burstSelectionTypes & 1) DESC,
                             creationDate IS NULL, creationDate, id
                    """,
                arguments: [burst], cached: true
            ) { columns in
                members.append((columns.int64(0), columns.int64(1) != 0))
                return true
            }
            // The first row is the current representative if there is one, else the best candidate.
            for (index, member) in members.enumerated() {
                let shouldRepresent = index == 0
                if member.represents != shouldRepresent {
                    try touchAsset(member.id)
                    try db.execute(
                        sql: "UPDATE asset SET representsBurst = ? WHERE id = ?", arguments: [shouldRepresent ? 1 : 0, member.id])
                    changed = true
                }
            }
        }
        return changed
    }

    // MARK: Moments

    /// One moment's change in a block: members in and out, and their locations' sums.
    private struct MomentDelta {
        var count = 0
        var located = 0
        var latitude = 0.0
        var longitude = 0.0

        mutating func add(_ row: AssetRow, _ sign: Int) {
            count += sign
            if let lat = row.latitude, let lon = row.longitude {
                located += sign
                latitude += Double(sign) * lat
                longitude += Double(sign) * lon
            }
        }
    }

    /// Moments group assets by the local calendar day of their creation date: in the capture's own UTC
    /// offset when the file recorded one, else in the library's moment time zone. Assets without a creation
    /// date share one moment titled "Undated", which belongs to no year list.
    ///
    /// Aggregates are kept incrementally, so a commit costs O(*k* log *n*) for *k* touched assets: counts and
    /// the mean position by deltas, the date span by two index look-ups per touched moment. New assets were
    /// written with their moment (``moment(forDay:)`` creates a missing one); a moment created in the block
    /// that ends up empty is deleted here.
    private func maintainMoments(_ after: [Int64: AssetRow]) throws {
        var deltas = try moveAssetsToTheirMoments(after)
        for moment in momentsCreated.keys where deltas[moment] == nil { deltas[moment] = MomentDelta() }
        var yearsWithNewOrDeletedMoments = Set(momentsCreated.values.compactMap(MomentDay.year(of:)))
        var dirtyYears: Set<Int> = []
        for (moment, delta) in deltas.sorted(by: { $0.key < $1.key }) {
            guard let row = try collectionRow(id: moment) else { continue }
            let year = row.momentDay.flatMap(MomentDay.year(of:))
            if let year { dirtyYears.insert(year) }
            try touchCollection(moment)
            if try !applyAggregates(delta, to: row), let year { yearsWithNewOrDeletedMoments.insert(year) }
        }
        try maintainYearLists(dirtyYears, membershipChanged: yearsWithNewOrDeletedMoments)
    }

    /// Puts each touched asset in the moment of its day (a re-dated asset moves) and sums what each moment
    /// gained and lost.
    private func moveAssetsToTheirMoments(_ after: [Int64: AssetRow]) throws -> [Int64: MomentDelta] {
        var deltas: [Int64: MomentDelta] = [:]
        for (id, before) in assetsBefore {
            // The moment the asset was in at the start of the block, with its contribution then.
            if let old = before, let moment = old.momentId { deltas[moment, default: MomentDelta()].add(old, -1) }
            guard let row = after[id] else { continue }
            let moment = try moment(forDay: MomentDay.key(for: row, timeZone: library.momentTimeZone))
            deltas[moment, default: MomentDelta()].add(row, +1)
            if row.momentId != moment {
                try db.executeRepeated(sql: "UPDATE asset SET momentId = ? WHERE id = ?", arguments: [moment, id])
            }
            if before?.momentId != moment {
                if let old = before?.momentId {
                    try touchCollection(old)
                    collectionMembershipChanged.insert(old)
                }
                try touchCollection(moment)
                collectionMembershipChanged.insert(moment)
            }
        }
        return deltas
    }

    /// Writes a moment's new count, located count, mean position and date span; deletes it when it has no
    /// asset left.
    ///
    /// - Returns: false when the moment was deleted.
    private func applyAggregates(_ delta: MomentDelta, to row: AssetCollectionRow) throws -> Bool {
        let count = row.assetCount + delta.count
        if count <= 0 {
            try db.execute(sql: "DELETE FROM asset_collection WHERE id = ?", arguments: [row.id])
            return false
        }
        let located = row.locatedCount + delta.located
        var latitude: Double?
        var longitude: Double?
        if located > 0 {
            let oldSum = (Double(row.locatedCount) * (row.latitude ?? 0), Double(row.locatedCount) * (row.longitude ?? 0))
            latitude = (oldSum.0 + delta.latitude) / Double(located)
            longitude = (oldSum.1 + delta.longitude) / Double(located)
        }
        // The span through the (momentId, creationDate) index: two look-ups, whatever the moment's size.
        let start = try db.fetchRepeatedValue(
            Double.self, sql: "SELECT min(creationDate) FROM asset WHERE momentId = ?",
            arguments: [row.id])
        let end = try db.fetchRepeatedValue(
            Double.self, sql: "SELECT max(creationDate) FROM asset WHERE momentId = ?",
            arguments: [row.id])
        try db.executeRepeated(
            sql: """
                UPDATE asset_collection SET assetCount = ?, locatedCount = ?, startDate = ?, endDate = ?, latitude = ?, longitude = ?
                WHERE id = ?
                """,
            arguments: [count, located, start, end, latitude, longitude, row.id])
        return true
    }

    /// One moment list per year holds that year's moments (PhotoKit's Moment → Moment Year hierarchy).
    private func maintainYearLists(_ years: Set<Int>, membershipChanged: Set<Int>) throws {
        for year in years.sorted() {
            let prefix = MomentDay.yearPrefix(year)
            var span: (count: Int64, start: Double?, end: Double?) = (0, nil, nil)
            try db.forEachRow(
                sql: """
                    SELECT count(*), min(startDate), max(endDate) FROM asset_collection
                    WHERE type = 3 AND momentDay >= ? AND momentDay < ?
                    """,
                arguments: [prefix, MomentDay.yearPrefix(year + 1)], cached: true
            ) { columns in
                span = (columns.int64(0), columns.optionalDouble(1), columns.optionalDouble(2))
                return false
            }
            let existing = try db.fetchRepeatedRecord(
                CollectionListRow.self, sql: "SELECT * FROM collection_list WHERE momentYear = ?",
                arguments: [year])
            if span.count == 0 {
                if let existing {
                    try touchList(existing.id)
                    try db.execute(sql: "DELETE FROM collection_list WHERE id = ?", arguments: [existing.id])
                }
                continue
            }
            let list: Int64
            if let existing {
                list = existing.id
                try touchList(list)
            } else {
                var created = CollectionListRow(
                    id: 0, localIdentifier: LocalIdentifier.make(.collectionList), type: CollectionListType.momentList.rawValue,
                    subtype: CollectionListSubtype.momentListYear.rawValue, title: String(year), momentYear: year, createdAt: now)
                try insertList(&created)
                list = created.id
            }
            try db.execute(
                sql: "UPDATE collection_list SET startDate = ?, endDate = ? WHERE id = ?", arguments: [span.start, span.end, list])
            // Moments created or deleted in this year change the list's membership.
            if membershipChanged.contains(year) { listMembershipChanged.insert(list) }
        }
    }

    // MARK: Smart albums

    /// Smart albums keep their count: each touched asset's membership before and after, by each album's rule.
    private func maintainSmartAlbums(_ after: [Int64: AssetRow]) throws {
        // The albums' ids and rules only: not a copy of each album's row per asset.
        let smartAlbums = try db.fetchRepeatedRecords(
            AssetCollectionRow.self, sql: "SELECT * FROM asset_collection WHERE type = ?",
            arguments: [AssetCollectionType.smartAlbum.rawValue]
        ).compactMap { album in AssetCollectionSubtype(rawValue: album.subtype).map { (id: album.id, subtype: $0) } }
        guard !smartAlbums.isEmpty else { return }
        let recentSince = SmartAlbumRule.recentSince
        var deltas: [Int64: Int] = [:]
        for (id, before) in assetsBefore {
            let old = before.flatMap { $0 }
            let new = after[id]
            for (album, subtype) in smartAlbums {
                let wasMember = old.map { SmartAlbumRule.contains($0, subtype: subtype, recentSince: recentSince) } ?? false
                let isMember = new.map { SmartAlbumRule.contains($0, subtype: subtype, recentSince: recentSince) } ?? false
                if wasMember != isMember {
                    deltas[album, default: 0] += isMember ? 1 : -1
                }
            }
        }
        for (album, delta) in deltas.sorted(by: { $0.key < $1.key }) {
            try touchCollection(album)
            collectionMembershipChanged.insert(album)
            // No scalar max() on both engines (PostgreSQL's is GREATEST): a CASE, the delta given twice.
            try db.executeRepeated(
                sql: "UPDATE asset_collection SET assetCount = CASE WHEN assetCount + ? > 0 THEN assetCount + ? ELSE 0 END WHERE id = ?",
                arguments: [delta, delta, album])
        }
    }

    // MARK: Albums

    /// Albums keep their count and the span of their members' creation dates.
    private func maintainAlbumAggregates(_ after: [Int64: AssetRow]) throws {
        var albums = collectionMembershipChanged
        let redated = assetsBefore.compactMap { id, before -> Int64? in
            guard let old = before.flatMap({ $0 }), let new = after[id], old.creationDate != new.creationDate else { return nil }
            return id
        }
        for chunk in stride(from: 0, to: redated.count, by: 500) {
            let slice = Array(redated[chunk..<min(redated.count, chunk + 500)])
            let placeholders = Array(repeating: "?", count: slice.count).joined(separator: ",")
            albums.formUnion(try db.fetchValues(
                Int64.self, sql: "SELECT DISTINCT albumId FROM album_asset WHERE assetId IN (\(placeholders))",
                arguments: StatementArguments(slice)))
        }
        for album in albums.sorted() {
            guard let row = try collectionRow(id: album), row.type == AssetCollectionType.album.rawValue else {
                continue
            }
            var aggregate: (count: Int64, start: Double?, end: Double?) = (0, nil, nil)
            try db.forEachRow(
                sql: """
                    SELECT count(*), min(a.creationDate), max(a.creationDate)
                    FROM album_asset m JOIN asset a ON a.id = m.assetId WHERE m.albumId = ?
                    """,
                arguments: [album], cached: true
            ) { columns in
                aggregate = (columns.int64(0), columns.optionalDouble(1), columns.optionalDouble(2))
                return false
            }
            try touchCollection(album)
            try db.executeRepeated(
                sql: "UPDATE asset_collection SET assetCount = ?, startDate = ?, endDate = ? WHERE id = ?",
                arguments: [aggregate.count, aggregate.start, aggregate.end, album])
        }
    }

    // MARK: Journal

    /// Appends the block's transaction to the journal: one record per object whose public state changed.
    ///
    /// - Returns: the transaction, or nil when the block changed nothing public or the journal is off.
    private func appendJournal(afterAssets: [Int64: AssetRow]) throws -> JournalTransaction? {
        guard library.journaling else { return nil }
        var batch = JournalBatch(capacity: assetsBefore.count + collectionsBefore.count + listsBefore.count)
        // Keys sorted, not the (key, row) pairs: the rows are large. A row is read at its position in its
        // dictionary, not as an optional from a look-up by key, which copied it, strings and all, once more.
        for id in assetsBefore.keys.sorted() {
            let before = assetsBefore.index(forKey: id)!
            if let after = afterAssets.index(forKey: id) {
                batch.add(.asset, id: id, old: assetsBefore.values[before], new: afterAssets.values[after], membershipChanged: false)
            } else if let old = assetsBefore.values[before] {
                batch.add(.asset, id: id, deleted: old)
            }
        }
        for (id, before) in collectionsBefore.sorted(by: { $0.key < $1.key }) {
            batch.add(
                .assetCollection, id: id, old: before.flatMap { $0 }, new: try collectionRow(id: id),
                membershipChanged: collectionMembershipChanged.contains(id))
        }
        for (id, before) in listsBefore.sorted(by: { $0.key < $1.key }) {
            batch.add(
                .collectionList, id: id, old: before.flatMap { $0 }, new: try listRow(id: id),
                membershipChanged: listMembershipChanged.contains(id))
        }
        guard !batch.isEmpty else { return nil }
        let stamp = ChangeToken.stamp(forDate: now)
        let sequence = try ChangeJournal.append(batch, author: author, date: now, stamp: stamp, db)
        let transaction = JournalTransaction(sequence: sequence, author: author, date: now, stamp: stamp)
        handOff(transaction, batch, afterAssets: afterAssets)
        return transaction
    }

    /// Prepares the transaction's records for the library's delivery rounds in memory (see
    /// ``JournalHandOff``): ``handOffEntry``, which the library publishes once the engine commits the block —
    /// nothing is published when it rolls back. The rows of updated assets go with their records: a round
    /// reads the state they left from them.
    private func handOff(_ transaction: JournalTransaction, _ batch: JournalBatch, afterAssets: [Int64: AssetRow]) {
        guard JournalHandOff.holds(recordCount: batch.records.count) else { return }
        handOffEntry = JournalHandOff.Entry(
            transaction: transaction, records: batch.roundRecords(sequence: transaction.sequence, afterAssets: afterAssets))
    }
}

/// An object the journal records: its identifier, what changed between two of its states, and (as a
/// ``JournaledRow``) its previous values.
protocol JournaledObject: JournaledRow {
    var localIdentifier: String { get }
    /// The public properties that differ from `old` (a raw `AssetProperties` or `CollectionProperties`), and
    /// whether the content did.
    func journaledChanges(since old: Self) -> (properties: Int, contentChanged: Bool)
}

extension AssetRow: JournaledObject {
    func journaledChanges(since old: AssetRow) -> (properties: Int, contentChanged: Bool) {
        let changed = changedProperties(since: old)
        return (changed.rawValue, changed.contains(.content))
    }
}

extension AssetCollectionRow: JournaledObject {
    func journaledChanges(since old: AssetCollectionRow) -> (properties: Int, contentChanged: Bool) {
        (changedProperties(since: old).rawValue, false)
    }
}

extension CollectionListRow: JournaledObject {
    func journaledChanges(since old: CollectionListRow) -> (properties: Int, contentChanged: Bool) {
        (changedProperties(since: old).rawValue, false)
    }
}
