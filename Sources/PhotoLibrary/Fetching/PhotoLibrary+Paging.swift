import Foundation
import GRDB
import LibraryStorage

/// Where a page of a fetch ended: the sort values of its last object and the object's place in the
/// tie-breaking order, so that the next page starts right after it (keyset pagination).
///
/// Opaque to clients: serialise it with ``stringValue`` (URL-safe) and read it back with
/// ``init(string:)``. A cursor is tied to the query that made it; used with another one it is refused.
public struct FetchCursor: Sendable, Hashable, CustomStringConvertible {
    /// A sort value as SQLite stores it.
    enum Value: Hashable, Codable {
        case null
        case integer(Int64)
        case real(Double)
        case text(String)
    }

    /// The serialised form.
    private struct Body: Codable {
        var v: Int
        /// The query's fingerprint.
        var q: UInt64
        /// The sort values of the last object returned.
        var k: [Value]
        /// Its internal id (the final tie-break).
        var id: Int64
        /// Its position in the album, for an album's own order.
        var p: Int64?
    }

    static let version = 1
    let query: UInt64
    let values: [Value]
    let rowID: Int64
    let position: Int64?

    init(query: UInt64, values: [Value], rowID: Int64, position: Int64?) {
        self.query = query
        self.values = values
        self.rowID = rowID
        self.position = position
    }

    /// The URL-safe text form (base64url, no padding).
    public var stringValue: String {
        let body = Body(v: Self.version, q: query, k: values, id: rowID, p: position)
        let data = (try? JSONEncoder().encode(body)) ?? Data()
        return data.base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    public var description: String { stringValue }

    /// Reads a cursor's text form.
    ///
    /// - Throws: ``PhotoLibraryError/invalidValue(property:reason:)`` (property `cursor`) for text that no
    ///   fetch page made.
    public init(string: String) throws(PhotoLibraryError) {
        var base64 = string.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        guard string.count <= 4096, let data = Data(base64Encoded: base64),
            let body = try? JSONDecoder().decode(Body.self, from: data)
        else { throw .invalidValue(property: "cursor", reason: "not a cursor this library made") }
        guard body.v == Self.version else {
            throw .invalidValue(property: "cursor", reason: "a cursor of another version (\(body.v)); start again without one")
        }
        self.init(query: body.q, values: body.k, rowID: body.id, position: body.p)
    }
}

/// One page of a fetch, read in one transaction: its objects, where the next page starts, and the change
/// token of that instant.
public struct FetchPage<Object: Sendable>: Sendable {
    /// At most the page's limit, in the fetch's order.
    public let objects: [Object]
    /// Where the next page starts; nil when this page reaches the end.
    public let nextCursor: FetchCursor?
    /// The token of the instant the page was read.
    public let changeToken: ChangeToken
}

extension PhotoLibrary {
    /// One page of ``fetchAssets(options:)``, in its order, starting after `cursor` (nil: the first page).
    ///
    /// Keyset pagination: the next page starts after the sort values of the last object returned (and its
    /// place in the tie-breaking order), not at an offset. So, while the library changes between pages:
    /// every asset that matches throughout and keeps its sort values is returned exactly once; an asset is
    /// returned twice only if its sort values changed between the pages (it moved past the cursor); assets
    /// inserted, deleted or changed meanwhile may or may not be in later pages — the changes since the first
    /// page's ``FetchPage/changeToken`` name every one of them.
    ///
    /// - Parameters:
    ///   - options: the fetch's filter, order and hidden/burst options; `fetchLimit` is ignored.
    ///   - cursor: a previous page's ``FetchPage/nextCursor``, made with the same options.
    ///   - limit: the page size, at least 1.
    /// - Throws: ``PhotoLibraryError/invalidPredicate(message:position:)`` for a bad predicate or sort key;
    ///   ``PhotoLibraryError/invalidValue(property:reason:)`` for a limit below 1 or a cursor made by another
    ///   query; a ``PhotoLibraryError`` when the library can't be read.
    /// - Complexity: one query reading O(`limit`) rows when an index serves the order; otherwise SQLite
    ///   sorts the matching rows after the cursor.
    public func fetchAssets(options: FetchOptions = FetchOptions(), after cursor: FetchCursor?, limit: Int) throws(PhotoLibraryError) -> FetchPage<Asset> {
        try fetchPage(FetchQuery(scope: .assets, options: options), after: cursor, limit: limit)
    }

    /// One page of ``fetchAssets(in:options:)``: an album's assets in the album's order (or `options`'),
    /// a smart album's or moment's by creation date. See ``fetchAssets(options:after:limit:)`` for the rules.
    ///
    /// In an album's own order the next page starts after the last asset's current position in the album:
    /// exact while that asset stays in the album; if it was removed meanwhile, after the position it had.
    public func fetchAssets(
        in collection: AssetCollection, options: FetchOptions = FetchOptions(), after cursor: FetchCursor?, limit: Int
    ) throws(PhotoLibraryError) -> FetchPage<Asset> {
        let scope: FetchQuery.Scope
        if let members = collection.transientMembers {
            scope = .assetsWithIdentifiers(members)
        } else {
            switch collection.assetCollectionType {
            case .album: scope = .assetsInAlbum(collection.rowID)
            case .smartAlbum: scope = .assetsInSmartAlbum(collection.assetCollectionSubtype)
            case .moment: scope = .assetsInMoment(collection.rowID)
            }
        }
        return try fetchPage(FetchQuery(scope: scope, options: options), after: cursor, limit: limit)
    }

    private func fetchPage(_ query: FetchQuery, after cursor: FetchCursor?, limit: Int) throws(PhotoLibraryError) -> FetchPage<Asset> {
        guard limit >= 1 else { throw .invalidValue(property: "limit", reason: "a page holds at least 1 object (it was \(limit))") }
        let plan = try PagePlan(query, dialect: storage.dialect)
        if let cursor {
            guard cursor.query == plan.fingerprint else {
                throw .invalidValue(property: "cursor", reason: "it was made for another query (filter, order or options)")
            }
            guard cursor.values.count == plan.keys.count, plan.albumID == nil || cursor.position != nil else {
                throw .invalidValue(property: "cursor", reason: "not a cursor of this query")
            }
        }
        var options = query.options
        options.sortDescriptors = plan.descriptors
        options.fetchLimit = limit + 1
        let compiled = try AssetQueryCompiler.compile(
            FetchQuery(scope: query.scope, options: options), dialect: storage.dialect, extraCondition: cursor.map(plan.condition(after:)))
        return try read { db -> FetchPage<Asset> in
            let keys = try compiled.fetchKeys(db)
            let sequence = try ChangeJournal.lastSequence(db)
            let objects = try ObjectLoading.assets(keys.prefix(limit), sequence: sequence, db)
            var next: FetchCursor?
            if keys.count > limit, let last = objects.last {
                next = try plan.cursor(after: last.rowID, db)
            }
            return FetchPage(objects: objects, nextCursor: next, changeToken: try journal.currentToken(db))
        }
    }
}

/// How a page query orders its rows and where a cursor puts the next page.
private struct PagePlan {
    struct Key {
        /// The comparable SQL expression (strings by UTF-8 bytes, as the fetch sorts them).
        let sql: String
        let ascending: Bool
    }

    /// The order: the options' descriptors, or the scope's natural order.
    let descriptors: [FetchSort]
    let keys: [Key]
    /// For an album in its own order: the album's id (keys are then empty).
    let albumID: Int64?
    let fingerprint: UInt64

    init(_ query: FetchQuery, dialect: SQLDialect) throws(PhotoLibraryError) {
        var descriptors = query.options.sortDescriptors
        var albumID: Int64?
        if descriptors.isEmpty {
            switch query.scope {
            case .assetsInAlbum(let album): albumID = album
            case .assetsInSmartAlbum(.smartAlbumRecentlyAdded): descriptors = [FetchSort(key: "addedDate")]
            case .assetsWithIdentifiers:
                throw .invalidRequest("a list of identifiers is paged in an explicit order: give sort descriptors")
            default: descriptors = [FetchSort(key: "creationDate")]
            }
        }
        var keys: [Key] = []
        for descriptor in descriptors {
            guard let key = Asset.predicateSchema.key(named: descriptor.key) else {
                throw .invalidPredicate(
                    message: "unknown sort key \"\(descriptor.key)\" (keys: \(Asset.predicateSchema.keyNames.joined(separator: ", ")))",
                    position: nil)
            }
            let collation = dialect == .postgres ? " COLLATE \"C\"" : " COLLATE BINARY"
            let comparable = "(\(key.sqlExpression))" + (key.type == .string ? collation : "")
            keys.append(Key(sql: comparable, ascending: descriptor.ascending))
        }
        self.descriptors = descriptors
        self.keys = keys
        self.albumID = albumID
        let options = query.options
        fingerprint = Self.fnv1a([
            "\(query.scope)", options.predicate?.description ?? "", FetchSort.listDescription(descriptors),
            "\(options.includeHiddenAssets)", "\(options.includeAllBurstAssets)",
        ].joined(separator: "\u{0}"))
    }

    /// The rows after `cursor` in the page order: for keys k₁…kₙ and the id, the rows whose tuple of values
    /// sorts after the cursor's (nulls first ascending, last descending, as `ORDER BY` puts them).
    func condition(after cursor: FetchCursor) -> SQL {
        if let albumID, let position = cursor.position {
            return "m.position > COALESCE((SELECT position FROM album_asset WHERE albumId = \(albumID) AND assetId = \(cursor.rowID)), \(position))"
        }
        var alternatives: [SQL] = []
        var equalSoFar: [SQL] = []
        for (key, value) in zip(keys, cursor.values) {
            alternatives.append((equalSoFar + [Self.after(key, value)]).joined(separator: " AND "))
            equalSoFar.append(Self.equal(key, value))
        }
        alternatives.append((equalSoFar + ["asset.id > \(cursor.rowID)"]).joined(separator: " AND "))
        return "(" + alternatives.map { "(" + $0 + ")" }.joined(separator: " OR ") + ")"
    }

    private static func equal(_ key: Key, _ value: FetchCursor.Value) -> SQL {
        if case .null = value { return SQL(sql: key.sql + " IS NULL") }
        return SQL(sql: key.sql + " = ?", arguments: [value.databaseValue])
    }

    private static func after(_ key: Key, _ value: FetchCursor.Value) -> SQL {
        switch (value, key.ascending) {
        case (.null, true): SQL(sql: key.sql + " IS NOT NULL")
        case (.null, false): "1 = 0"
        case (_, true): SQL(sql: key.sql + " > ?", arguments: [value.databaseValue])
        case (_, false): SQL(sql: "(" + key.sql + " < ? OR " + key.sql + " IS NULL)", arguments: [value.databaseValue])
        }
    }

    /// The cursor after the asset with internal id `rowID`: its sort values (and album position) now.
    func cursor(after rowID: Int64, _ db: any SQLConnection) throws -> FetchCursor {
        var values: [FetchCursor.Value] = []
        if !keys.isEmpty {
            let columns = keys.map(\.sql).joined(separator: ", ")
            try db.forEachRow(sql: "SELECT \(columns) FROM asset WHERE asset.id = ?", arguments: [rowID], cached: false) { row in
                values = (0..<keys.count).map { FetchCursor.Value(row.value($0)) }
                return false
            }
        }
        var position: Int64?
        if let albumID {
            position = try db.fetchValue(
                Int64.self, sql: "SELECT position FROM album_asset WHERE albumId = ? AND assetId = ?", arguments: [albumID, rowID])
        }
        return FetchCursor(query: fingerprint, values: values, rowID: rowID, position: position ?? (albumID == nil ? nil : -1))
    }

    /// FNV-1a, 64 bits: a stable fingerprint of the query's text (not a security measure).
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

extension FetchCursor.Value {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let integer): self = .integer(integer)
        case .double(let real): self = .real(real)
        case .string(let text): self = .text(text)
        case .blob(let data): self = .text(String(decoding: data, as: UTF8.self))
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let integer): integer.databaseValue
        case .real(let real): real.databaseValue
        case .text(let text): text.databaseValue
        }
    }
}
