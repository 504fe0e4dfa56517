public import Foundation
import GRDB
import LibraryStorage
import Synchronization

/// Receives the library's changes (PhotoKit's `PHPhotoLibraryChangeObserver`).
///
/// Held weakly by the library. Called once per committed transaction — made by this process or by another
/// that opened the same library — in commit order: each call returns before the next one is made, so an
/// observer never sees two changes at once, even across its own suspension points. Each observer has its
/// own delivery task: a slow observer delays only itself.
///
/// The requirement is `async`, so an actor conforms with an ordinary (isolated) method, and a class with a
/// synchronous one; neither needs `@unchecked Sendable`:
///
/// ```swift
/// actor AlbumCounter: PhotoLibraryChangeObserver {
///     var changedAlbums = 0
///     func photoLibraryDidChange(_ change: Change) { … }
/// }
/// final class ChangeLog: PhotoLibraryChangeObserver {
///     let tokens = Mutex<[ChangeToken]>([])
///     func photoLibraryDidChange(_ change: Change) { tokens.withLock { $0.append(change.changeToken) } }
/// }
/// ```
public protocol PhotoLibraryChangeObserver: AnyObject, Sendable {
    /// Called with each committed transaction, in commit order, once the previous call returned.
    func photoLibraryDidChange(_ change: Change) async
}

/// One committed transaction, as observers receive it (PhotoKit's `PHChange`).
///
/// Ask it how your fetch results and objects changed. When deliveries fall behind commits (a burst of
/// commits, a slow observer), each transaction is still delivered, in order, and the last one delivered in
/// a round carries the fetch-result and object details for the whole round: the earlier ones return nil
/// for them. Applying every non-nil details in order always leads to the current state.
public final class Change: Sendable {
    /// The token just after this transaction.
    public let changeToken: ChangeToken
    /// Who committed it.
    public let author: String
    /// When it was committed.
    public let date: Date
    let context: DeliveryContext?

    init(changeToken: ChangeToken, author: String, date: Date, context: DeliveryContext?) {
        self.changeToken = changeToken
        self.author = author
        self.date = date
        self.context = context
    }

    /// How a fetch result changed, or nil when nothing in it changed (or this change's round is described
    /// by a later change).
    ///
    /// - Complexity: O(1) for a result the library follows incrementally (the details were computed at
    ///   delivery in O(*k* log *n*) for *k* touched objects; see the README, "Observing"); else O(*n* log *k*)
    ///   in the result's size (the after state was fetched at delivery) — also for a result of a followed
    ///   fetch that was made after this round was read (a consumer lagging behind deliveries).
    public func changeDetails<Object: LibraryObject>(for fetchResult: FetchResult<Object>) -> FetchResultChangeDetails<Object>? {
        guard let context, fetchResult.sequence < context.sequence else { return nil }
        if let update = context.incremental[DeliveryContext.ResultState(chain: ObjectIdentifier(fetchResult.chain), sequence: fetchResult.sequence)] {
            guard !update.diff.isEmpty else { return nil }
            let after = fetchResult.successor(keyList: update.after, sequence: context.sequence)
            context.center?.track(after)
            return FetchResultChangeDetails(before: fetchResult, after: after, diff: update.diff, incrementalLimit: context.incrementalLimit)
        }
        guard let update = context.chains[ObjectIdentifier(fetchResult.chain)] else { return nil }
        var changedKeys: Set<Int64> = []
        for (sequence, key) in update.updates where sequence > fetchResult.sequence { changedKeys.insert(key) }
        let after = fetchResult.successor(keyList: update.after, sequence: context.sequence)
        guard let details = try? FetchResultChangeDetails(
            before: fetchResult, after: after, changedKeys: changedKeys, incrementalLimit: context.incrementalLimit),
            !details.diff.isEmpty
        else { return nil }
        context.center?.track(after)
        return details
    }

    /// How an object changed in this change's round, or nil when it didn't.
    ///
    /// - Complexity: one database read, for the object as it was at the end of the round (rebuilt from the
    ///   journal when it changed since).
    public func changeDetails<Object: LibraryObject>(for object: Object) -> ObjectChangeDetails<Object>? {
        guard let context, let key = FetchResultKeys.objectKey(of: object), let change = context.objects[key] else { return nil }
        let after = change.deleted ? nil : context.object(key) as? Object
        if after == nil && !change.deleted { return nil }
        return ObjectChangeDetails(objectBeforeChanges: object, objectAfterChanges: after, assetContentChanged: change.contentChanged)
    }
}

/// What a delivery round read at its end state, shared by its last change. A class, immutable: its change
/// holds it by one reference, and releasing it needs no generic value witness.
final class DeliveryContext: Sendable {
    /// A fetch at the round's end: its keys, and the objects updated since its oldest live result.
    struct ChainUpdate: Sendable {
        /// The fetch's keys at the round's end: fetched again, or (for a fetch followed incrementally) the
        /// incremental result, for a result of the chain made after the round was read.
        let after: FetchResultKeyList
        let updates: [(sequence: Int64, key: Int64)]
    }

    struct ObjectUpdate: Sendable {
        let deleted: Bool
        let contentChanged: Bool
    }

    /// A fetch at one journal position: the results of a chain at the same sequence have the same keys.
    struct ResultState: Hashable, Sendable {
        let chain: ObjectIdentifier
        let sequence: Int64
    }

    let sequence: Int64
    let chains: [ObjectIdentifier: ChainUpdate]
    /// The results followed incrementally, from their state to the round's end.
    let incremental: [ResultState: IncrementalUpdate]
    /// What the round did to each object it touched, keyed by object type and row id.
    let objects: TouchedObjects
    let incrementalLimit: Double
    /// Where the touched objects are read from, as they were at ``sequence``.
    let storage: any StorageEngine
    weak let center: ObservationCenter?

    init(
        sequence: Int64, chains: [ObjectIdentifier: ChainUpdate], incremental: [ResultState: IncrementalUpdate], objects: TouchedObjects,
        incrementalLimit: Double, storage: any StorageEngine, center: ObservationCenter?
    ) {
        self.sequence = sequence
        self.chains = chains
        self.incremental = incremental
        self.objects = objects
        self.incrementalLimit = incrementalLimit
        self.storage = storage
        self.center = center
    }

    /// An object as it was at the end of the round: its row then, rebuilt from the journal's previous values
    /// when it changed since (like a fetch result's objects). Nil when it can't be read.
    func object(_ key: ObjectKey) -> (any LibraryObject)? {
        try? storage.read { db -> (any LibraryObject)? in
            switch key.type {
            case .asset:
                return try ObjectLoading.assets([key.rowID][...], sequence: sequence, db).first
            case .assetCollection:
                let rows = try ObjectLoading.rows(
                    AssetCollectionRow.self, objectType: .assetCollection, keys: [key.rowID], sequence: sequence, idColumn: \.id, db)
                return rows[key.rowID].map(AssetCollection.init(row:))
            case .collectionList:
                return try ObjectLoading.lists([key.rowID][...], sequence: sequence, db).first
            }
        }
    }
}

/// What a round did to each object it touched: whether its last record deletes it, and whether any changed its
/// content. Gathered from the round's records on the first question (most rounds get none).
final class TouchedObjects: Sendable {
    private let records: [RoundRecord]
    private let updates = Mutex<[ObjectKey: DeliveryContext.ObjectUpdate]?>(nil)

    init(records: [RoundRecord]) {
        self.records = records
    }

    /// What the round did to an object, or nil when it didn't touch it.
    ///
    /// - Complexity: O(1); O(*r*) on the first call, for *r* records.
    subscript(key: ObjectKey) -> DeliveryContext.ObjectUpdate? {
        updates.withLock { updates in
            if updates == nil {
                var gathered: [ObjectKey: DeliveryContext.ObjectUpdate] = [:]
                for record in records {
                    let key = ObjectKey(type: record.objectType, rowID: record.objectID)
                    gathered[key] = DeliveryContext.ObjectUpdate(
                        deleted: record.kind == .deleted, contentChanged: record.contentChanged || gathered[key]?.contentChanged == true)
                }
                updates = gathered
            }
            return updates![key]
        }
    }
}

/// An object's identity across types.
struct ObjectKey: Hashable, Sendable {
    let type: ObjectType
    let rowID: Int64

    /// One word hashed, not two (a delivery round hashes every key it reads).
    func hash(into hasher: inout Hasher) {
        hasher.combine(rowID &<< 2 | Int64(type.rawValue))
    }
}

extension FetchResultKeys {
    static func objectKey(of object: some LibraryObject) -> ObjectKey? {
        switch object {
        case let asset as Asset: ObjectKey(type: .asset, rowID: asset.rowID)
        case let collection as AssetCollection: collection.isTransient ? nil : ObjectKey(type: .assetCollection, rowID: collection.rowID)
        case let list as CollectionList: list.isTransient ? nil : ObjectKey(type: .collectionList, rowID: list.rowID)
        case let collection as PhotoCollection:
            switch collection {
            case .assetCollection(let inner): objectKey(of: inner)
            case .collectionList(let inner): objectKey(of: inner)
            }
        default: nil
        }
    }
}
