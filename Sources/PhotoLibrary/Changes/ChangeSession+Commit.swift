import Foundation
import GRDB

/// The kind of change the journal records for an object. Raw values are stored.
enum ChangeKind: Int, Sendable, Hashable {
    case inserted = 1
    case updated = 2
    case deleted = 3
}

/// One object's net change in one transaction, as journaled.
struct JournalRecord: Sendable, Hashable {
    let objectType: ObjectType
    let objectID: Int64
    let localIdentifier: String
    let kind: ChangeKind
    /// `AssetProperties` or `CollectionProperties` raw value.
    let changedProperties: Int
    let contentChanged: Bool
    /// The JSON-encoded row before the change (updated and deleted).
    let previousValues: Data?
}

/// What one committed change block did.
struct CommittedTransaction: Sendable {
    let sequence: Int64
    let stamp: Int64
    let author: String
    let date: Double
    let records: [JournalRecord]
}

extension ChangeSession {
    /// Ends the block: writes pending edits, maintains derived collections and appends the journal.
    ///
    /// - Returns: the journaled transaction, or nil when the block changed nothing.
    func finish() throws -> CommittedTransaction? {
        if let firstError { throw firstError }
        try writePendingAssets()
        for write in mirrorWrites { try write(db) }
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
            try row.update(db)
            writtenAssetRows[id] = row
        }
        pendingAssetRows.removeAll()
        pendingAssetOrder.removeAll()
    }

    func validate(_ row: AssetRow) throws {
        if let latitude = row.latitude, let longitude = row.longitude,
            !Location(latitude: latitude, longitude: longitude, altitude: row.altitude).isValid
        {
            throw PhotoLibraryError.invalidValue(property: "location", reason: "(\(latitude), \(longitude)) is not on Earth")
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
            let slice = ids[chunk..<min(ids.count, chunk + 500)]
            for row in try AssetRow.fetchAll(db, keys: slice) { result[row.id] = row }
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
            let members = try Row.fetchAll(
                db,
                sql: """
                    SELECT id, representsBurst FROM asset WHERE burstIdentifier = ?
                    ORDER BY representsBurst DESC, (burstSelectionTypes & 2) DESC, (burstSelectionTypes & 1) DESC,
                             creationDate IS NULL, creationDate, id
                    """,
                arguments: [burst])
            guard !members.isEmpty else { continue }
            // The first row is the current representative if there is one, else the best candidate.
            for (index, member) in members.enumerated() {
                let id: Int64 = member["id"]
                let represents: Bool = member["representsBurst"]
                let shouldRepresent = index == 0
                if represents != shouldRepresent {
                    try touchAsset(id)
                    try db.execute(sql: "UPDATE asset SET representsBurst = ? WHERE id = ?", arguments: [shouldRepresent, id])
                    changed = true
                }
            }
        }
        return changed
    }

    // MARK: Moments

    /// Moments group assets by the local calendar day of their creation date: in the capture's own UTC
    /// offset when the file recorded one, else in the library's moment time zone. Assets without a creation
    /// date share one moment titled "Undated", which belongs to no year list.
    ///
    /// Aggregates are kept incrementally, so a commit costs O(*k* log *n*) for *k* touched assets: counts and
    /// the mean position by deltas, the date span by two index look-ups per touched moment.
    private func maintainMoments(_ after: [Int64: AssetRow]) throws {
        struct Delta {
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
        var deltas: [Int64: Delta] = [:]
        var yearsWithNewOrDeletedMoments: Set<Int> = []
        var momentByDay: [String: Int64] = [:]
        for (id, before) in assetsBefore {
            // The moment the asset was in at the start of the block, with its contribution then.
            if let old = before, let moment = old.momentId { deltas[moment, default: Delta()].add(old, -1) }
            guard let row = after[id] else { continue }
            let day = MomentDay.key(for: row, timeZone: library.momentTimeZone)
            let moment: Int64
            if let cached = momentByDay[day] {
                moment = cached
            } else if let existing = try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT id FROM asset_collection WHERE momentDay = ?"), arguments: [day])
            {
                moment = existing
            } else {
                var created = AssetCollectionRow(
                    id: 0, localIdentifier: LocalIdentifier.make(.assetCollection), type: AssetCollectionType.moment.rawValue,
                    subtype: AssetCollectionSubtype.any.rawValue, title: MomentDay.title(for: day), momentDay: day, createdAt: now)
                try insertCollection(&created)
                moment = created.id
                if let year = MomentDay.year(of: day) { yearsWithNewOrDeletedMoments.insert(year) }
            }
            momentByDay[day] = moment
            deltas[moment, default: Delta()].add(row, +1)
            if row.momentId != moment {
                try db.cachedStatement(sql: "UPDATE asset SET momentId = ? WHERE id = ?").execute(arguments: [moment, id])
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
        var dirtyYears: Set<Int> = []
        for (moment, delta) in deltas.sorted(by: { $0.key < $1.key }) {
            guard let row = try collectionRow(id: moment) else { continue }
            if let day = row.momentDay, let year = MomentDay.year(of: day) { dirtyYears.insert(year) }
            try touchCollection(moment)
            let count = row.assetCount + delta.count
            if count <= 0 {
                if let day = row.momentDay, let year = MomentDay.year(of: day) { yearsWithNewOrDeletedMoments.insert(year) }
                try db.execute(sql: "DELETE FROM asset_collection WHERE id = ?", arguments: [moment])
                continue
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
            let start = try Double.fetchOne(db.cachedStatement(sql: "SELECT min(creationDate) FROM asset WHERE momentId = ?"), arguments: [moment])
            let end = try Double.fetchOne(db.cachedStatement(sql: "SELECT max(creationDate) FROM asset WHERE momentId = ?"), arguments: [moment])
            try db.cachedStatement(
                sql: """
                    UPDATE asset_collection SET assetCount = ?, locatedCount = ?, startDate = ?, endDate = ?, latitude = ?, longitude = ?
                    WHERE id = ?
                    """
            ).execute(arguments: [count, located, start, end, latitude, longitude, moment])
        }
        try maintainYearLists(dirtyYears, membershipChanged: yearsWithNewOrDeletedMoments)
    }

    /// One moment list per year holds that year's moments (PhotoKit's Moment → Moment Year hierarchy).
    private func maintainYearLists(_ years: Set<Int>, membershipChanged: Set<Int>) throws {
        for year in years.sorted() {
            let prefix = String(format: "%04d-", year)
            let aggregate = try Row.fetchOne(
                db,
                sql: """
                    SELECT count(*) AS n, min(startDate) AS start, max(endDate) AS end FROM asset_collection
                    WHERE type = 3 AND momentDay >= ? AND momentDay < ?
                    """,
                arguments: [prefix, String(format: "%04d-", year + 1)])!
            let count: Int = aggregate["n"]
            let existing = try CollectionListRow.filter(Column("momentYear") == year).fetchOne(db)
            if count == 0 {
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
                sql: "UPDATE collection_list SET startDate = ?, endDate = ? WHERE id = ?",
                arguments: [aggregate["start"], aggregate["end"], list])
            // Moments created or deleted in this year change the list's membership.
            if membershipChanged.contains(year) { listMembershipChanged.insert(list) }
        }
    }

    // MARK: Smart albums

    private func maintainSmartAlbums(_ after: [Int64: AssetRow]) throws {
        let smartAlbums = try AssetCollectionRow.fetchAll(
            db.cachedStatement(sql: "SELECT * FROM asset_collection WHERE type = ?"), arguments: [AssetCollectionType.smartAlbum.rawValue])
        guard !smartAlbums.isEmpty else { return }
        let recentSince = SmartAlbumRule.recentSince
        var deltas: [Int64: Int] = [:]
        for (id, before) in assetsBefore {
            let old = before.flatMap { $0 }
            let new = after[id]
            for album in smartAlbums {
                guard let subtype = AssetCollectionSubtype(rawValue: album.subtype) else { continue }
                let wasMember = old.map { SmartAlbumRule.contains($0, subtype: subtype, recentSince: recentSince) } ?? false
                let isMember = new.map { SmartAlbumRule.contains($0, subtype: subtype, recentSince: recentSince) } ?? false
                if wasMember != isMember {
                    deltas[album.id, default: 0] += isMember ? 1 : -1
                }
            }
        }
        for (album, delta) in deltas.sorted(by: { $0.key < $1.key }) {
            try touchCollection(album)
            collectionMembershipChanged.insert(album)
            try db.cachedStatement(sql: "UPDATE asset_collection SET assetCount = max(0, assetCount + ?) WHERE id = ?")
                .execute(arguments: [delta, album])
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
            albums.formUnion(try Int64.fetchAll(
                db, sql: "SELECT DISTINCT albumId FROM album_asset WHERE assetId IN (\(placeholders))",
                arguments: StatementArguments(slice)))
        }
        for album in albums.sorted() {
            guard let row = try collectionRow(id: album), row.type == AssetCollectionType.album.rawValue else {
                continue
            }
            let aggregate = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT count(*) AS n, min(a.creationDate) AS start, max(a.creationDate) AS end
                        FROM album_asset m JOIN asset a ON a.id = m.assetId WHERE m.albumId = ?
                        """),
                arguments: [album])!
            try touchCollection(album)
            try db.cachedStatement(sql: "UPDATE asset_collection SET assetCount = ?, startDate = ?, endDate = ? WHERE id = ?")
                .execute(arguments: [aggregate["n"], aggregate["start"], aggregate["end"], album])
        }
    }

    // MARK: Journal

    private func appendJournal(afterAssets: [Int64: AssetRow]) throws -> CommittedTransaction? {
        var records: [JournalRecord] = []
        let encoder = JSONEncoder()
        for (id, before) in assetsBefore.sorted(by: { $0.key < $1.key }) {
            let old = before.flatMap { $0 }
            let new = afterAssets[id]
            switch (old, new) {
            case (nil, nil):
                continue  // Inserted and deleted in the same block: nothing.
            case (nil, let new?):
                records.append(JournalRecord(
                    objectType: .asset, objectID: id, localIdentifier: new.localIdentifier, kind: .inserted,
                    changedProperties: 0, contentChanged: false, previousValues: nil))
            case (let old?, nil):
                records.append(JournalRecord(
                    objectType: .asset, objectID: id, localIdentifier: old.localIdentifier, kind: .deleted,
                    changedProperties: 0, contentChanged: false, previousValues: try encoder.encode(old)))
            case (let old?, let new?):
                let changed = new.changedProperties(since: old)
                guard !changed.isEmpty else { continue }  // Bookkeeping only: invisible.
                records.append(JournalRecord(
                    objectType: .asset, objectID: id, localIdentifier: new.localIdentifier, kind: .updated,
                    changedProperties: changed.rawValue, contentChanged: changed.contains(.content),
                    previousValues: try encoder.encode(old)))
            }
        }
        for (id, before) in collectionsBefore.sorted(by: { $0.key < $1.key }) {
            let old = before.flatMap { $0 }
            let new = try AssetCollectionRow.fetchOne(db, key: id)
            if let record = try Self.record(
                .assetCollection, id: id, old: old, new: new, identifier: \.localIdentifier,
                changed: { $0.changedProperties(since: $1).rawValue },
                membershipChanged: collectionMembershipChanged.contains(id), encoder: encoder)
            {
                records.append(record)
            }
        }
        for (id, before) in listsBefore.sorted(by: { $0.key < $1.key }) {
            let old = before.flatMap { $0 }
            let new = try CollectionListRow.fetchOne(db, key: id)
            if let record = try Self.record(
                .collectionList, id: id, old: old, new: new, identifier: \.localIdentifier,
                changed: { $0.changedProperties(since: $1).rawValue },
                membershipChanged: listMembershipChanged.contains(id), encoder: encoder)
            {
                records.append(record)
            }
        }
        guard !records.isEmpty, library.journaling else { return nil }
        try db.execute(sql: "INSERT INTO change_transaction (author, date) VALUES (?, ?)", arguments: [author, now])
        let sequence = db.lastInsertedRowID
        let statement = try db.cachedStatement(
            sql: """
                INSERT INTO change_record (seq, objectType, objectId, localIdentifier, kind, changedProperties,
                                           contentChanged, previousValues)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for record in records {
            try statement.execute(arguments: [
                sequence, record.objectType.rawValue, record.objectID, record.localIdentifier, record.kind.rawValue,
                record.changedProperties, record.contentChanged, record.previousValues,
            ])
        }
        return CommittedTransaction(
            sequence: sequence, stamp: ChangeToken.stamp(forDate: now), author: author, date: now, records: records)
    }

    private static func record<Row: Encodable>(
        _ type: ObjectType, id: Int64, old: Row?, new: Row?, identifier: KeyPath<Row, String>,
        changed: (Row, Row) -> Int, membershipChanged: Bool, encoder: JSONEncoder
    ) throws -> JournalRecord? {
        switch (old, new) {
        case (nil, nil):
            return nil
        case (nil, let new?):
            return JournalRecord(
                objectType: type, objectID: id, localIdentifier: new[keyPath: identifier], kind: .inserted,
                changedProperties: 0, contentChanged: false, previousValues: nil)
        case (let old?, nil):
            return JournalRecord(
                objectType: type, objectID: id, localIdentifier: old[keyPath: identifier], kind: .deleted,
                changedProperties: 0, contentChanged: false, previousValues: try encoder.encode(old))
        case (let old?, let new?):
            var properties = changed(new, old)
            if membershipChanged { properties |= CollectionProperties.membership.rawValue }
            guard properties != 0 else { return nil }
            return JournalRecord(
                objectType: type, objectID: id, localIdentifier: new[keyPath: identifier], kind: .updated,
                changedProperties: properties, contentChanged: false, previousValues: try encoder.encode(old))
        }
    }
}
