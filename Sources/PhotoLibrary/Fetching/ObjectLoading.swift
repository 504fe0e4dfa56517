import Foundation
import GRDB
import LibraryStorage

/// Loads objects by key as they were at a journal position, rebuilding changed or deleted objects from
/// the previous values the journal keeps.
enum ObjectLoading {
    /// Rows of `Row` for `keys`, as of `sequence`. Missing entries could not be rebuilt.
    static func rows<Record: FetchableRecord & Decodable & JournaledRow>(
        _ type: Record.Type, objectType: ObjectType, keys: some Collection<Int64>, sequence: Int64,
        idColumn: KeyPath<Record, Int64>, _ db: any SQLConnection
    ) throws -> [Int64: Record] {
        var result: [Int64: Record] = [:]
        // `IN ()` is SQLite's, not PostgreSQL's: no keys, no query.
        guard !keys.isEmpty else { return result }
        result.reserveCapacity(keys.count)
        let list = keys.map { "\($0)" }.joined(separator: ",")
        let table = objectType.tableName
        for record in try db.fetchRecords(Record.self, sql: "SELECT * FROM \(table) WHERE id IN (\(list))") {
            result[record[keyPath: idColumn]] = record
        }
        // Objects changed since the fetch: their first change after it carries the state at the fetch.
        let current = try ChangeJournal.lastSequence(db)
        if current > sequence {
            try ChangeJournal.forEachFirstChange(of: objectType, among: list, after: sequence, db) { id, data in
                if let data, let previous = PreviousValues.decode(Record.self, from: data) {
                    result[id] = previous
                }
            }
        }
        return result
    }

    static func assets(_ keys: ArraySlice<Int64>, sequence: Int64, _ db: any SQLConnection) throws -> [Asset] {
        let rows = try rows(AssetRow.self, objectType: .asset, keys: keys, sequence: sequence, idColumn: \.id, db)
        return keys.compactMap { rows[$0].map(Asset.init(row:)) }
    }

    static func collections(_ keys: ArraySlice<Int64>, sequence: Int64, library: PhotoLibrary, _ db: any SQLConnection) throws -> [AssetCollection] {
        let rows = try rows(AssetCollectionRow.self, objectType: .assetCollection, keys: keys, sequence: sequence, idColumn: \.id, db)
        return try keys.compactMap { key in
            guard var row = rows[key] else { return nil }
            try SmartAlbumCounts.refresh(&row, library: library, db)
            return AssetCollection(row: row)
        }
    }

    static func lists(_ keys: ArraySlice<Int64>, sequence: Int64, _ db: any SQLConnection) throws -> [CollectionList] {
        let rows = try rows(CollectionListRow.self, objectType: .collectionList, keys: keys, sequence: sequence, idColumn: \.id, db)
        return keys.compactMap { rows[$0].map(CollectionList.init(row:)) }
    }

    static func mixed(_ keys: ArraySlice<Int64>, sequence: Int64, library: PhotoLibrary, _ db: any SQLConnection) throws -> [PhotoCollection] {
        let collectionKeys = keys.filter { $0 & 1 == 0 }.map { $0 >> 1 }
        let listKeys = keys.filter { $0 & 1 == 1 }.map { $0 >> 1 }
        var collections: [Int64: AssetCollection] = [:]
        for collection in try Self.collections(collectionKeys[...], sequence: sequence, library: library, db) {
            collections[collection.rowID] = collection
        }
        var lists: [Int64: CollectionList] = [:]
        for list in try Self.lists(listKeys[...], sequence: sequence, db) { lists[list.rowID] = list }
        return keys.compactMap { key in
            key & 1 == 0 ? collections[key >> 1].map(PhotoCollection.assetCollection) : lists[key >> 1].map(PhotoCollection.collectionList)
        }
    }
}

/// Recently Added changes with the passing of time, not with commits: its count is computed when read.
enum SmartAlbumCounts {
    static func refresh(_ row: inout AssetCollectionRow, library: PhotoLibrary, _ db: any SQLConnection) throws {
        guard row.type == AssetCollectionType.smartAlbum.rawValue,
            row.subtype == AssetCollectionSubtype.smartAlbumRecentlyAdded.rawValue
        else { return }
        let since = SmartAlbumRule.recentSince
        row.assetCount = try db.fetchValue(
            Int.self, sql: "SELECT count(*) FROM asset WHERE isHidden = 0 AND addedDate >= ?", arguments: [since], cached: true) ?? 0
    }
}

extension ObjectType {
    var tableName: String {
        switch self {
        case .asset: "asset"
        case .assetCollection: "asset_collection"
        case .collectionList: "collection_list"
        }
    }
}
