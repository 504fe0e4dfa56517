public import FetchPredicate
import Foundation
import GRDB
import LibraryStorage

/// A fetch's filter (PhotoKit's `NSPredicate` in `PHFetchOptions`): a predicate in the text format, or one
/// built with the typed keys (`Asset.isFavorite && Asset.mediaType == .image`).
///
/// Text is parsed and checked against the keys of the type fetched when the fetch runs; dates written
/// without a UTC offset are read in the current time zone.
public struct FetchFilter: Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    enum Storage: Sendable {
        case text(String)
        case predicate(FetchPredicate.Predicate)
    }

    let storage: Storage

    /// A predicate in the text format, e.g. `mediaType == image AND creationDate >= "2024-01-01" AND NOT isHidden`.
    public init(format: String) { storage = .text(format) }
    /// A predicate in the text format, written as a string literal (`"isFavorite AND NOT isHidden"`).
    public init(stringLiteral value: String) { storage = .text(value) }
    /// A predicate built in code.
    public init(_ predicate: some PredicateConvertible) { storage = .predicate(predicate.predicate) }

    public var description: String {
        switch storage {
        case .text(let text): text
        case .predicate(let predicate): predicate.description
        }
    }

    /// The predicate, checked against the keys of `Object`.
    ///
    /// - Throws: ``PhotoLibraryError/invalidPredicate(message:position:)`` naming the position of the problem
    ///   and, for an unknown key, the valid keys.
    public func predicate<Object>(for schema: PredicateSchema<Object>) throws(PhotoLibraryError) -> CompiledPredicate<Object> {
        do {
            switch storage {
            case .text(let text): return try FetchPredicate.Predicate.parse(text, schema: schema).compiled(for: schema)
            case .predicate(let predicate): return try predicate.compiled(for: schema)
            }
        } catch {
            throw .invalidPredicate(message: error.description, position: error.position)
        }
    }

    /// The filter as a `WHERE` condition in `dialect`, on the table of `objectType`.
    func sql(for objectType: ObjectType, dialect: SQLDialect) throws(PhotoLibraryError) -> SQL {
        switch objectType {
        case .asset: try predicate(for: Asset.predicateSchema).sql(dialect)
        case .assetCollection: try predicate(for: AssetCollection.predicateSchema).sql(dialect)
        case .collectionList: try predicate(for: CollectionList.predicateSchema).sql(dialect)
        }
    }
}

/// One key of a fetch's order (PhotoKit's `NSSortDescriptor`): `FetchSort(key: "creationDate", ascending: false)`
/// or, typed, `FetchSort(Asset.creationDate, ascending: false)`. An alias of the predicate language's sort
/// descriptor, named so it doesn't clash with Foundation's `SortDescriptor`.
public typealias FetchSort = FetchPredicate.SortDescriptor

extension FetchPredicate.SortDescriptor {
    /// Parses `key,-key,…` (a leading `-` sorts descending) against the keys of assets.
    ///
    /// - Throws: ``PhotoLibraryError/invalidPredicate(message:position:)`` naming the position of a bad key
    ///   and the valid keys.
    public static func parseList(_ text: String) throws(PhotoLibraryError) -> [FetchSort] {
        do {
            return try parseList(text, schema: Asset.predicateSchema)
        } catch {
            throw .invalidPredicate(message: error.description, position: error.position)
        }
    }

    /// The ordering terms of `sorts` in `dialect` (NULLs first ascending on both engines).
    static func orderSQL(_ sorts: [FetchSort], for objectType: ObjectType, dialect: SQLDialect) throws(PhotoLibraryError) -> SQL {
        do {
            switch objectType {
            case .asset: return try CompiledSortOrder(sorts, schema: Asset.predicateSchema).sql(dialect)
            case .assetCollection: return try CompiledSortOrder(sorts, schema: AssetCollection.predicateSchema).sql(dialect)
            case .collectionList: return try CompiledSortOrder(sorts, schema: CollectionList.predicateSchema).sql(dialect)
            }
        } catch {
            throw .invalidPredicate(message: error.description, position: error.position)
        }
    }
}

extension CompiledPredicate {
    /// The predicate as a `WHERE` condition in `dialect`.
    func sql(_ dialect: SQLDialect) -> SQL {
        switch dialect {
        case .sqlite: sql
        case .postgres: StorageSQL.literal(postgresSQL)
        }
    }
}

extension CompiledSortOrder {
    /// The ordering terms in `dialect`.
    func sql(_ dialect: SQLDialect) -> SQL {
        switch dialect {
        case .sqlite: sql()
        case .postgres: SQL(sql: postgresSQL())
        }
    }
}
