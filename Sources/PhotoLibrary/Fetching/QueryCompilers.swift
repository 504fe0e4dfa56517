import Foundation
import GRDB
import LibraryStorage

/// A fetch turned into SQL: `SELECT key FROM … WHERE … ORDER BY … LIMIT …`.
struct CompiledQuery {
    let sql: SQL
    /// How to maintain the fetch incrementally; nil when it can't be (see ``IncrementalFetch``).
    var incremental: IncrementalFetch? = nil
    /// The same query also selecting the sort columns (``IncrementalFetch/columns``), for ``fetchKeysAndFences(_:)``.
    var sampledSQL: SQL? = nil

    /// The keys and their sort values (every key's or every ``SortFences/stride``-th: see ``SortFences``),
    /// what the incremental path searches in memory. The values come with the rows read anyway: for an order
    /// served by an index they are in the index.
    func fetchKeysAndFences(_ db: any SQLConnection) throws -> ([Int64], SortFences?) {
        guard let sampledSQL, let width = incremental?.columns.count else { return (try fetchKeys(db), nil) }
        var keys: [Int64] = []
        var fences = SortFences.Builder(width: width)
        try Self.forEachRow(sampledSQL, db) { columns in
            fences.add(columns, from: 1)
            keys.append(columns.int64(0))
        }
        return (keys, fences.build())
    }

    /// The keys as a key list, with their sort values (see ``fetchKeysAndFences(_:)``) when `sortValues`: how a
    /// fetch is fetched again at delivery.
    func fetchKeyList(_ db: any SQLConnection, sortValues: Bool) throws -> FetchResultKeyList {
        guard sortValues else { return FetchResultKeyList(try fetchKeys(db)) }
        let (keys, fences) = try fetchKeysAndFences(db)
        return FetchResultKeyList(keys, fences: fences)
    }

    func fetchKeys(_ db: any SQLConnection) throws -> [Int64] {
        var keys: [Int64] = []
        try Self.forEachRow(sql, db) { columns in keys.append(columns.int64(0)) }
        return keys
    }

    /// Runs a fetch's query, calling `body` on each row (a fetch reads a row per object).
    private static func forEachRow(_ query: SQL, _ db: any SQLConnection, _ body: (any SQLColumns) -> Void) throws {
        let (text, arguments) = try StorageSQL.render(query, db)
        try db.forEachRow(sql: text, arguments: arguments, cached: false) { columns in
            body(columns)
            return true
        }
    }
}

/// Asset fetches: the scope's rows, the options' filters and order, the internal id as the final tie-break.
enum AssetQueryCompiler {
    /// - Parameter extraCondition: a further condition on the rows (a page's keyset condition); the fetch is
    ///   then not followed incrementally.
    static func compile(_ query: FetchQuery, dialect: SQLDialect, extraCondition: SQL? = nil) throws(PhotoLibraryError) -> CompiledQuery {
        let options = query.options
        var parts = AssetQueryParts(scope: query.scope, options: options, dialect: dialect)
        parts.addVisibilityFilters()
        if let filter = options.predicate { try parts.add(filter, dialect: dialect) }
        if let extraCondition {
            parts.conditions.append(extraCondition)
            parts.membershipIsPerAsset = false
        }
        var sql: SQL = " FROM " + parts.from
        let condition: SQL? = parts.conditions.isEmpty ? nil : parts.conditions.map { "(" + $0 + ")" }.joined(separator: " AND ")
        if let condition {
            sql += " WHERE " + condition
        }
        if case .assetsWithIdentifiers(let identifiers) = query.scope, !identifiers.isEmpty {
            sql += " GROUP BY asset.id"
        }
        if !options.sortDescriptors.isEmpty {
            sql += " ORDER BY " + (try FetchSort.orderSQL(options.sortDescriptors, for: .asset, dialect: dialect)) + ", asset.id"
        } else {
            // NULL first, as SQLite sorts it (PostgreSQL sorts NULL last unless told).
            sql += " ORDER BY " + parts.naturalOrder + (dialect == .postgres ? " NULLS FIRST" : "") + ", asset.id"
        }
        if let limit = options.fetchLimit, limit > 0 {
            sql += " LIMIT \(limit)"
            parts.membershipIsPerAsset = false  // Membership depends on the other assets.
        }
        guard parts.membershipIsPerAsset,
            let incremental = IncrementalFetch(
                condition: condition ?? "1 = 1", conditionColumns: parts.conditionColumns,
                sortDescriptors: options.sortDescriptors.isEmpty ? [FetchSort(key: "creationDate")] : options.sortDescriptors)
        else { return CompiledQuery(sql: "SELECT asset.id" + sql) }
        var compiled = CompiledQuery(sql: "SELECT asset.id" + sql, incremental: incremental)
        compiled.sampledSQL = SQL(sql: "SELECT asset.id" + incremental.columns.map { ", asset." + $0 }.joined()) + sql
        return compiled
    }
}

/// The pieces of an asset fetch's SQL, gathered from its scope, its visibility options and its predicate,
/// with what they imply for following it incrementally.
private struct AssetQueryParts {
    var from: SQL = "asset"
    var conditions: [SQL] = []
    var naturalOrder: SQL = "asset.creationDate"
    var hiddenFilter: Bool
    var burstFilter: Bool
    /// Membership a function of each asset's own public properties, evaluated the same way at any time.
    var membershipIsPerAsset = true
    /// The columns of `asset` the condition reads; nil when it reads something else.
    var conditionColumns: [String]? = []

    /// The scope's rows and natural order.
    init(scope: FetchQuery.Scope, options: FetchOptions, dialect: SQLDialect) {
        hiddenFilter = !options.includeHiddenAssets
        burstFilter = !options.includeAllBurstAssets
        switch scope {
        case .assets:
            break
        case .assetsInAlbum(let album):
            from = "asset JOIN album_asset m ON m.assetId = asset.id"
            conditions.append("m.albumId = \(album)")
            naturalOrder = "m.position"
            membershipIsPerAsset = false
        case .assetsInSmartAlbum(let subtype):
            conditions.append(SmartAlbumRule.sql(subtype: subtype, recentSince: SmartAlbumRule.recentSince))
            conditionColumns = SmartAlbumRule.columns(subtype: subtype)
            if subtype == .smartAlbumRecentlyAdded {
                naturalOrder = "asset.addedDate"
                membershipIsPerAsset = false  // A window of time.
            }
            if subtype == .smartAlbumAllHidden { hiddenFilter = false }
        case .assetsInMoment(let moment):
            conditions.append("asset.momentId = \(moment)")
            membershipIsPerAsset = false  // `momentId` is bookkeeping: its changes aren't journaled.
        case .assetsWithIdentifiers(let identifiers):
            setIdentifiers(identifiers, dialect: dialect)
        case .assetsInBurst(let burst):
            conditions.append("asset.burstIdentifier = \(burst)")
            conditionColumns?.append("burstIdentifier")
            burstFilter = false
        case .assetsWithMediaType(let mediaType):
            conditions.append("asset.mediaType = \(mediaType.rawValue)")
            conditionColumns?.append("mediaType")
        default:
            preconditionFailure("not an asset fetch: \(scope)")
        }
    }

    /// The assets of the identifiers given, in the order given (an identifier given twice at its first
    /// place): a join with the list, passed as one JSON array (no limit on its length) and expanded into
    /// values and positions by each engine's JSON function; rows grouped by asset.
    private mutating func setIdentifiers(_ identifiers: [String], dialect: SQLDialect) {
        hiddenFilter = false
        burstFilter = false
        membershipIsPerAsset = false  // Ordered by the list given.
        if identifiers.isEmpty {
            conditions.append("1 = 0")
            return
        }
        let json = (try? String(decoding: JSONEncoder().encode(identifiers), as: UTF8.self)) ?? "[]"
        switch dialect {
        case .sqlite:
            from = "asset JOIN json_each(\(json)) AS wanted ON wanted.value = asset.localIdentifier"
        case .postgres:
            from = """
                asset JOIN json_array_elements_text(CAST(\(json) AS json)) WITH ORDINALITY AS wanted(value, key)
                ON wanted.value COLLATE "C" = asset.localIdentifier
                """
        }
        naturalOrder = "min(wanted.key)"
    }

    /// Hidden assets and bursts' other members left out, unless the options or the scope include them.
    mutating func addVisibilityFilters() {
        if hiddenFilter {
            conditions.append("asset.isHidden = 0")
            conditionColumns?.append("isHidden")
        }
        if burstFilter {
            conditions.append("(asset.burstIdentifier IS NULL OR asset.representsBurst = 1)")
            conditionColumns?.append(contentsOf: ["burstIdentifier", "representsBurst"])
        }
    }

    /// The options' predicate, and the columns it reads.
    ///
    /// - Throws: ``PhotoLibraryError`` for a predicate that doesn't fit the asset keys.
    mutating func add(_ filter: FetchFilter, dialect: SQLDialect) throws(PhotoLibraryError) {
        let predicate = try filter.predicate(for: Asset.predicateSchema)
        conditions.append(predicate.sql(dialect))
        for name in predicate.predicate.keyNames {
            guard let column = Asset.predicateSchema.key(named: name).flatMap(IncrementalFetch.assetColumn) else {
                conditionColumns = nil
                break
            }
            conditionColumns?.append(column)
        }
    }
}

/// Collection and list fetches. Keys of mixed results carry the kind in their low bit.
enum CollectionQueryCompiler {
    static func compile(_ query: FetchQuery, dialect: SQLDialect) throws(PhotoLibraryError) -> CompiledQuery {
        let options = query.options
        var sql: SQL
        var order: SQL
        var objectType = ObjectType.assetCollection
        var alias: SQL = "c"
        var conditions: [SQL] = []
        switch query.scope {
        case .collections(let type, let subtype):
            sql = "SELECT c.id FROM asset_collection c"
            if let type { conditions.append("c.type = \(type.rawValue)") }
            if subtype != .any { conditions.append("c.subtype = \(subtype.rawValue)") }
            order = type == .moment ? "c.momentDay = 'undated', c.startDate NULLS FIRST, c.id" : "c.id"
        case .collectionsContainingAsset(let asset):
            sql = "SELECT c.id FROM asset_collection c"
            var memberships: [SQL] = [
                "(c.type = 1 AND EXISTS (SELECT 1 FROM album_asset m WHERE m.albumId = c.id AND m.assetId = \(asset)))",
                "(c.type = 3 AND c.id = (SELECT momentId FROM asset WHERE id = \(asset)))",
            ]
            for subtype in [AssetCollectionSubtype.smartAlbumUserLibrary, .smartAlbumFavorites, .smartAlbumVideos,
                            .smartAlbumRecentlyAdded, .smartAlbumPanoramas, .smartAlbumScreenshots,
                            .smartAlbumBursts, .smartAlbumAllHidden]
            {
                let rule = SmartAlbumRule.sql(subtype: subtype, recentSince: SmartAlbumRule.recentSince)
                memberships.append(
                    "(c.type = 2 AND c.subtype = \(subtype.rawValue) AND EXISTS (SELECT 1 FROM asset WHERE asset.id = \(asset) AND \(rule)))")
            }
            conditions.append(memberships.joined(separator: " OR "))
            order = "c.type, c.id"
        case .momentLists:
            objectType = .collectionList
            alias = "l"
            sql = "SELECT l.id FROM collection_list l"
            conditions.append("l.type = 1")
            order = "l.momentYear NULLS FIRST"
        case .listsContainingCollection(let id, let isList):
            objectType = .collectionList
            alias = "l"
            sql = "SELECT l.id FROM collection_list l"
            if isList {
                conditions.append("l.id = (SELECT listId FROM collection_list_child WHERE childListId = \(id))")
            } else {
                conditions.append("""
                    l.id = (SELECT listId FROM collection_list_child WHERE childCollectionId = \(id))
                    OR l.momentYear = (SELECT CAST(substr(momentDay, 1, 4) AS INTEGER) FROM asset_collection
                                       WHERE id = \(id) AND momentDay != 'undated')
                    """)
            }
            order = "l.id"
        case .topLevelUserCollections:
            // Albums and folders not inside a folder, interleaved in creation order.
            sql = """
                SELECT key FROM (
                    SELECT c.id << 1 AS key, c.createdAt AS created, c.title AS title FROM asset_collection c
                    WHERE c.type = 1 AND NOT EXISTS (SELECT 1 FROM collection_list_child WHERE childCollectionId = c.id)
                    UNION ALL
                    SELECT (l.id << 1) | 1, l.createdAt, l.title FROM collection_list l
                    WHERE l.type = 2 AND NOT EXISTS (SELECT 1 FROM collection_list_child WHERE childListId = l.id)
                ) AS top
                """
            return CompiledQuery(sql: sql + " ORDER BY created, key" + limit(options))
        case .childrenOfList(let list):
            sql = """
                SELECT CASE WHEN childCollectionId IS NOT NULL THEN childCollectionId << 1 ELSE (childListId << 1) | 1 END
                FROM collection_list_child WHERE listId = \(list) ORDER BY position
                """
            return CompiledQuery(sql: sql + limit(options))
        case .childrenOfMomentYear(let year):
            let from = MomentDay.yearPrefix(year)
            let to = MomentDay.yearPrefix(year + 1)
            sql = "SELECT id << 1 FROM asset_collection WHERE type = 3 AND momentDay >= \(from) AND momentDay < \(to) ORDER BY startDate NULLS FIRST, id"
            return CompiledQuery(sql: sql + limit(options))
        default:
            preconditionFailure("not a collection fetch: \(query.scope)")
        }
        if let predicate = options.predicate {
            conditions.append(try predicate.sql(for: objectType, dialect: dialect))
        }
        if !conditions.isEmpty {
            sql += " WHERE " + conditions.map { "(" + $0 + ")" }.joined(separator: " AND ")
        }
        if !options.sortDescriptors.isEmpty {
            sql += " ORDER BY " + (try FetchSort.orderSQL(options.sortDescriptors, for: objectType, dialect: dialect)) + ", \(alias).id"
        } else {
            sql += " ORDER BY " + order
        }
        return CompiledQuery(sql: sql + limit(options))
    }

    private static func limit(_ options: FetchOptions) -> SQL {
        if let limit = options.fetchLimit, limit > 0 { return " LIMIT \(limit)" }
        return ""
    }
}
