public import Foundation

/// The identifiers of one object type that a change inserted, updated and deleted (PhotoKit's
/// `PHPersistentObjectChangeDetails`).
///
/// Net rules apply inside a transaction and across coalesced changes: insert + update = insert,
/// insert + delete = nothing, update + delete = delete. Membership changes of albums, smart albums, moments
/// and folders appear as updates of those collections.
public struct PersistentObjectChangeDetails: Sendable, Hashable {
    /// The type of the objects these identifiers name.
    public let objectType: ObjectType
    /// Objects created by the change (and still there at its end).
    public let insertedLocalIdentifiers: Set<String>
    /// Objects that existed before the change, changed by it and still there at its end; collections whose
    /// membership changed are here too.
    public let updatedLocalIdentifiers: Set<String>
    /// Objects that existed before the change and were deleted by it.
    public let deletedLocalIdentifiers: Set<String>
    /// Per updated object, the raw bit set of the public properties the journal recorded as changed (the
    /// union over the updates of a coalesced change): ``AssetProperties`` for assets, ``CollectionProperties``
    /// for collections and lists.
    let updatedProperties: [String: Int]

    /// Makes details from the three sets as given; the net rules are not applied here.
    public init(objectType: ObjectType, inserted: Set<String> = [], updated: Set<String> = [], deleted: Set<String> = []) {
        self.init(objectType: objectType, inserted: inserted, updated: updated, deleted: deleted, updatedProperties: [:])
    }

    init(objectType: ObjectType, inserted: Set<String>, updated: Set<String>, deleted: Set<String>, updatedProperties: [String: Int]) {
        self.objectType = objectType
        insertedLocalIdentifiers = inserted
        updatedLocalIdentifiers = updated
        deletedLocalIdentifiers = deleted
        self.updatedProperties = updatedProperties
    }

    /// The properties an updated asset changed, as the journal recorded them (for a coalesced change, the
    /// union over its updates); nil when `identifier` is not an updated asset of these details.
    ///
    /// - Complexity: O(1) on average.
    public func changedAssetProperties(for identifier: String) -> AssetProperties? {
        guard objectType == .asset, updatedLocalIdentifiers.contains(identifier) else { return nil }
        return AssetProperties(rawValue: updatedProperties[identifier] ?? 0)
    }

    /// The properties an updated collection or collection list changed, its membership included, as the
    /// journal recorded them (for a coalesced change, the union over its updates); nil when `identifier` is
    /// not an updated collection or list of these details.
    ///
    /// - Complexity: O(1) on average.
    public func changedCollectionProperties(for identifier: String) -> CollectionProperties? {
        guard objectType != .asset, updatedLocalIdentifiers.contains(identifier) else { return nil }
        return CollectionProperties(rawValue: updatedProperties[identifier] ?? 0)
    }

    /// Whether nothing of this type changed.
    public var isEmpty: Bool {
        insertedLocalIdentifiers.isEmpty && updatedLocalIdentifiers.isEmpty && deletedLocalIdentifiers.isEmpty
    }
}

/// One committed transaction of the history (PhotoKit's `PHPersistentChange`), or, for a coalesced fetch,
/// the net change of many.
public struct PersistentChange: Sendable {
    /// The token just after this change: store it to resume from here.
    public let changeToken: ChangeToken
    /// Who committed the change (for a coalesced change, the last transaction's author).
    public let author: String
    /// When the change was committed.
    public let date: Date
    let details: [ObjectType: PersistentObjectChangeDetails]
    /// Left out of iteration (its author is excluded); it still moves the end token.
    let skipped: Bool

    /// What this change did to objects of one type.
    ///
    /// - Throws: ``PhotoLibraryError/persistentChangeDetailsUnavailable`` when the details are no longer
    ///   held (never for a change read from a live history; kept for PhotoKit parity).
    public func changeDetails(for objectType: ObjectType) throws(PhotoLibraryError) -> PersistentObjectChangeDetails {
        details[objectType] ?? PersistentObjectChangeDetails(objectType: objectType)
    }
}

/// Accumulates journal records with the net rules.
struct NetChangeAccumulator {
    /// Per object: the first kind seen and the last kind seen.
    private var first: [ObjectType: [String: ChangeKind]] = [:]
    private var last: [ObjectType: [String: ChangeKind]] = [:]
    /// Per object: the union of the changed-property bits of its records.
    private var properties: [ObjectType: [String: Int]] = [:]

    mutating func add(_ type: ObjectType, _ identifier: String, _ kind: ChangeKind, changedProperties: Int = 0) {
        if first[type]?[identifier] == nil { first[type, default: [:]][identifier] = kind }
        last[type, default: [:]][identifier] = kind
        if changedProperties != 0 { properties[type, default: [:]][identifier, default: 0] |= changedProperties }
    }

    var isEmpty: Bool { first.isEmpty }

    func details() -> [ObjectType: PersistentObjectChangeDetails] {
        var result: [ObjectType: PersistentObjectChangeDetails] = [:]
        for (type, firsts) in first {
            var inserted: Set<String> = [], updated: Set<String> = [], deleted: Set<String> = []
            for (identifier, firstKind) in firsts {
                let lastKind = last[type]![identifier]!
                switch (firstKind, lastKind) {
                case (.inserted, .deleted): continue
                case (.inserted, _): inserted.insert(identifier)
                case (_, .deleted): deleted.insert(identifier)
                default: updated.insert(identifier)
                }
            }
            let bits = properties[type]?.filter { updated.contains($0.key) } ?? [:]
            let details = PersistentObjectChangeDetails(
                objectType: type, inserted: inserted, updated: updated, deleted: deleted, updatedProperties: bits)
            if !details.isEmpty { result[type] = details }
        }
        return result
    }
}
