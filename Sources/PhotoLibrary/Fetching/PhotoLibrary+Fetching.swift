import Foundation
import GRDB
import LibraryStorage

/// What a fetch result was made from, so that it can be made again (observation).
struct FetchQuery: Sendable {
    enum Scope: Sendable, Hashable {
        case assets
        case assetsInAlbum(Int64)
        case assetsInSmartAlbum(AssetCollectionSubtype)
        case assetsInMoment(Int64)
        case assetsWithIdentifiers([String])
        case assetsInBurst(String)
        case assetsWithMediaType(AssetMediaType)
        case collections(type: AssetCollectionType?, subtype: AssetCollectionSubtype)
        case collectionsContainingAsset(Int64)
        case momentLists
        case topLevelUserCollections
        case childrenOfList(Int64)
        case childrenOfMomentYear(Int)
        case listsContainingCollection(Int64, isList: Bool)
    }

    let scope: Scope
    let options: FetchOptions
}

extension PhotoLibrary {
    // MARK: Assets

    /// All assets, filtered and sorted by `options`. Default order: creation date (undated first), then
    /// the order they were added.
    ///
    /// - Throws: ``PhotoLibraryError/invalidPredicate(message:position:)`` for a predicate or sort key that
    ///   doesn't apply to assets; a ``PhotoLibraryError`` when the library can't be read.
    /// - Complexity: one query; O(*n*) identities held, objects load lazily.
    public func fetchAssets(options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<Asset> {
        try fetchAssets(FetchQuery(scope: .assets, options: options))
    }

    /// The assets of a collection: an album's in the album's order, a smart album's or a moment's by
    /// creation date, a transient collection's in its order (unless `options` sorts them).
    public func fetchAssets(in collection: AssetCollection, options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<Asset> {
        if let members = collection.transientMembers {
            return try fetchAssets(FetchQuery(scope: .assetsWithIdentifiers(members), options: options))
        }
        switch collection.assetCollectionType {
        case .album: return try fetchAssets(FetchQuery(scope: .assetsInAlbum(collection.rowID), options: options))
        case .smartAlbum:
            return try fetchAssets(FetchQuery(scope: .assetsInSmartAlbum(collection.assetCollectionSubtype), options: options))
        case .moment: return try fetchAssets(FetchQuery(scope: .assetsInMoment(collection.rowID), options: options))
        }
    }

    /// The assets with these identifiers that exist, in the order given (unless `options` sorts them).
    /// Hidden assets and every burst member are included: they were asked for by name.
    public func fetchAssets(withLocalIdentifiers identifiers: [String], options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<Asset> {
        try fetchAssets(FetchQuery(scope: .assetsWithIdentifiers(identifiers), options: options))
    }

    /// Every asset of a burst (not only its representative), by creation date.
    public func fetchAssets(withBurstIdentifier burstIdentifier: String, options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<Asset> {
        try fetchAssets(FetchQuery(scope: .assetsInBurst(burstIdentifier), options: options))
    }

    /// The assets of one media type.
    public func fetchAssets(with mediaType: AssetMediaType, options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<Asset> {
        try fetchAssets(FetchQuery(scope: .assetsWithMediaType(mediaType), options: options))
    }

    func fetchAssets(_ query: FetchQuery) throws(PhotoLibraryError) -> FetchResult<Asset> {
        let compiled = try AssetQueryCompiler.compile(query, dialect: storage.dialect)
        let (keys, fences, sequence) = try read { db -> ([Int64], SortFences?, Int64) in
            let (keys, fences) = try compiled.fetchKeysAndFences(db)
            return (keys, fences, try ChangeJournal.lastSequence(db))
        }
        return observation.track(FetchResult(
            keys: keys, fences: fences, sequence: sequence, query: query, keyKind: .asset, requery: compiled.fetchKeyList,
            incremental: compiled.incremental
        ) { [self] keys, sequence in
            try read { db in try ObjectLoading.assets(keys, sequence: sequence, db) }
        })
    }

    // MARK: Collections

    /// Asset collections of a type and subtype (`.any` for every subtype): albums in the order they were
    /// created, smart albums in a fixed order, moments by date.
    public func fetchAssetCollections(
        with type: AssetCollectionType, subtype: AssetCollectionSubtype = .any, options: FetchOptions = FetchOptions()
    ) throws(PhotoLibraryError) -> FetchResult<AssetCollection> {
        try fetchCollections(FetchQuery(scope: .collections(type: type, subtype: subtype), options: options))
    }

    /// Every moment, by date (the undated moment last).
    public func fetchMoments(options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<AssetCollection> {
        try fetchAssetCollections(with: .moment, options: options)
    }

    /// The collections an asset belongs to: its albums, the smart albums whose rule it meets, and its moment.
    public func fetchAssetCollections(containing asset: Asset, options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<AssetCollection> {
        try fetchCollections(FetchQuery(scope: .collectionsContainingAsset(asset.rowID), options: options))
    }

    func fetchCollections(_ query: FetchQuery) throws(PhotoLibraryError) -> FetchResult<AssetCollection> {
        let compiled = try CollectionQueryCompiler.compile(query, dialect: storage.dialect)
        let (keys, sequence) = try read { db -> ([Int64], Int64) in
            (try compiled.fetchKeys(db), try ChangeJournal.lastSequence(db))
        }
        return observation.track(FetchResult(
            keys: keys, sequence: sequence, query: query, keyKind: .assetCollection, requery: compiled.fetchKeyList
        ) { [self] keys, sequence in
            try read { db in try ObjectLoading.collections(keys, sequence: sequence, library: self, db) }
        })
    }

    // MARK: Collection lists

    /// The moment year lists, by year.
    public func fetchMomentLists(options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<CollectionList> {
        try fetchLists(FetchQuery(scope: .momentLists, options: options))
    }

    /// The lists containing a collection: the folder holding an album or folder, the year list holding a
    /// moment.
    public func fetchCollectionLists(containing collection: PhotoCollection, options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<CollectionList> {
        switch collection {
        case .assetCollection(let collection):
            return try fetchLists(FetchQuery(scope: .listsContainingCollection(collection.rowID, isList: false), options: options))
        case .collectionList(let list):
            return try fetchLists(FetchQuery(scope: .listsContainingCollection(list.rowID, isList: true), options: options))
        }
    }

    /// The lists containing an album, folder or moment. See ``fetchCollectionLists(containing:options:)-(PhotoCollection,_)``.
    public func fetchCollectionLists(containing collection: AssetCollection, options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<CollectionList> {
        try fetchCollectionLists(containing: .assetCollection(collection), options: options)
    }

    func fetchLists(_ query: FetchQuery) throws(PhotoLibraryError) -> FetchResult<CollectionList> {
        let compiled = try CollectionQueryCompiler.compile(query, dialect: storage.dialect)
        let (keys, sequence) = try read { db -> ([Int64], Int64) in
            (try compiled.fetchKeys(db), try ChangeJournal.lastSequence(db))
        }
        return observation.track(FetchResult(
            keys: keys, sequence: sequence, query: query, keyKind: .collectionList, requery: compiled.fetchKeyList
        ) { [self] keys, sequence in
            try read { db in try ObjectLoading.lists(keys, sequence: sequence, db) }
        })
    }

    // MARK: Mixed

    /// The albums and folders at the top of the user's hierarchy (not inside a folder), in the order they
    /// were created.
    public func fetchTopLevelUserCollections(options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<PhotoCollection> {
        try fetchMixed(FetchQuery(scope: .topLevelUserCollections, options: options))
    }

    /// The children of a list: a folder's albums and folders in its order, a year list's moments by date,
    /// a transient list's collections in its order.
    public func fetchCollections(in list: CollectionList, options: FetchOptions = FetchOptions()) throws(PhotoLibraryError) -> FetchResult<PhotoCollection> {
        if let children = list.transientChildren {
            let keys = children.compactMap { FetchResultKeys.key(of: $0) }
            return FetchResult(keys: keys, sequence: 0, query: nil, keyKind: .mixed, requery: nil) { [self] keys, _ in
                try read { db in try ObjectLoading.mixed(keys, sequence: .max, library: self, db) }
            }
        }
        if list.collectionListType == .momentList, let year = Int(list.localizedTitle ?? "") {
            return try fetchMixed(FetchQuery(scope: .childrenOfMomentYear(year), options: options))
        }
        return try fetchMixed(FetchQuery(scope: .childrenOfList(list.rowID), options: options))
    }

    func fetchMixed(_ query: FetchQuery) throws(PhotoLibraryError) -> FetchResult<PhotoCollection> {
        let compiled = try CollectionQueryCompiler.compile(query, dialect: storage.dialect)
        let (keys, sequence) = try read { db -> ([Int64], Int64) in
            (try compiled.fetchKeys(db), try ChangeJournal.lastSequence(db))
        }
        return observation.track(FetchResult(
            keys: keys, sequence: sequence, query: query, keyKind: .mixed, requery: compiled.fetchKeyList
        ) { [self] keys, sequence in
            try read { db in try ObjectLoading.mixed(keys, sequence: sequence, library: self, db) }
        })
    }
}
