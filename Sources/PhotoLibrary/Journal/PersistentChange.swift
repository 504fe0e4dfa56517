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

    /// Makes details from the three sets as given; the net rules are not applied here.
    public init(objectType: ObjectType, inserted: Set<String> = [], updated: Set<String> = [], deleted: Set<String> = []) {
        self.objectType = objectType
        insertedLocalIdentifiers = inserted
        updatedLocalIdentifiers = updated
        deletedLocalIdentifiers = deleted
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

    mutating func add(_ type: ObjectType, _ identifier: String, _ kind: ChangeKind) {
        if first[type]?[identifier] == nil { first[type, default: [:]][identifier] = kind }
        last[type, default: [:]][identifier] = kind
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
            let details = PersistentObjectChangeDetails(objectType: type, inserted: inserted, updated: updated, deleted: deleted)
            if !details.isEmpty { result[type] = details }
        }
        return result
    }
}
