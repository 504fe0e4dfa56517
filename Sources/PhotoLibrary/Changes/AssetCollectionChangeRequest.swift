public import Foundation
import GRDB
import LibraryStorage

/// Creates, renames and deletes albums and edits their ordered members, inside
/// ``PhotoLibrary/performChanges(author:_:)``.
///
/// Only user albums can be edited; a request for a smart album or a moment fails the block with
/// ``PhotoLibraryError/invalidRequest(_:)``. Members are given as ``Asset``s or as placeholders of assets
/// created in the same block. Indexes refer to the album's members as they are when the call is made in
/// the block. Problems (an unknown asset, an asset already in the album, an index out of range) fail the
/// whole block with a typed error.
public final class AssetCollectionChangeRequest {
    private let session: ChangeSession?
    private let rowID: Int64?

    /// The placeholder of the album a creation request creates; nil for other requests.
    public let placeholderForCreatedAssetCollection: ObjectPlaceholder?

    private init(session: ChangeSession?, rowID: Int64?, placeholder: ObjectPlaceholder?) {
        self.session = session
        self.rowID = rowID
        self.placeholderForCreatedAssetCollection = placeholder
    }

    /// A request to edit an album.
    public convenience init(for collection: AssetCollection) {
        let session = ChangeSession.admitted()
        var rowID: Int64?
        session?.perform {
            let row = try session!.collectionRow(for: collection.localIdentifier)
            guard row.type == AssetCollectionType.album.rawValue else {
                throw PhotoLibraryError.invalidRequest("\(collection.localizedTitle ?? collection.localIdentifier) is not a user album")
            }
            rowID = row.id
        }
        self.init(session: session, rowID: rowID, placeholder: nil)
    }

    /// Creates an empty album with a title.
    public static func creationRequestForAssetCollection(withTitle title: String) -> AssetCollectionChangeRequest {
        guard let session = ChangeSession.admitted() else {
            return AssetCollectionChangeRequest(session: nil, rowID: nil, placeholder: nil)
        }
        var rowID: Int64?
        var placeholder: ObjectPlaceholder?
        session.perform {
            var row = AssetCollectionRow(
                id: 0, localIdentifier: LocalIdentifier.make(.assetCollection), type: AssetCollectionType.album.rawValue,
                subtype: AssetCollectionSubtype.albumRegular.rawValue, title: title, createdAt: session.now)
            try session.insertCollection(&row)
            rowID = row.id
            placeholder = ObjectPlaceholder(localIdentifier: row.localIdentifier)
        }
        return AssetCollectionChangeRequest(session: session, rowID: rowID, placeholder: placeholder)
    }

    /// Deletes albums (their assets stay in the library).
    public static func deleteAssetCollections(_ collections: some Sequence<AssetCollection>) {
        guard let session = ChangeSession.admitted() else { return }
        for collection in collections {
            session.perform {
                let row = try session.collectionRow(for: collection.localIdentifier)
                guard row.type == AssetCollectionType.album.rawValue else {
                    throw PhotoLibraryError.invalidRequest("\(row.title ?? row.localIdentifier) is not a user album")
                }
                try session.touchCollection(row.id)
                try session.detach(.collection(row.id))
                try session.db.execute(sql: "DELETE FROM asset_collection WHERE id = ?", arguments: [row.id])
            }
        }
    }

    /// The album's title.
    public var title: String {
        get {
            guard let session, let rowID else { return "" }
            return session.read(
                { try session.db.fetchValue(String.self, sql: "SELECT title FROM asset_collection WHERE id = ?", arguments: [rowID]) }, default: "")
        }
        set {
            edit { session, id in
                try session.touchCollection(id)
                try session.db.execute(sql: "UPDATE asset_collection SET title = ? WHERE id = ?", arguments: [newValue, id])
            }
        }
    }

    private func edit(_ body: (ChangeSession, Int64) throws -> Void) {
        guard let session, let rowID else { return }
        session.perform { try body(session, rowID) }
    }

    private func resolve(_ session: ChangeSession, _ assets: [any LibraryObject]) throws -> [Int64] {
        try assets.map { try session.assetID(for: $0.localIdentifier) }
    }

    private func checkNew(_ session: ChangeSession, _ ids: [Int64], against members: [Int64], album: Int64) throws {
        var seen = Set(members)
        for id in ids where !seen.insert(id).inserted {
            let asset = try session.db.fetchValue(String.self, sql: "SELECT localIdentifier FROM asset WHERE id = ?", arguments: [id]) ?? "#\(id)"
            let collection = try session.db.fetchValue(String.self, sql: "SELECT localIdentifier FROM asset_collection WHERE id = ?", arguments: [album]) ?? "#\(album)"
            throw PhotoLibraryError.duplicateMembership(assetIdentifier: asset, collectionIdentifier: collection)
        }
    }

    /// Appends assets (or placeholders) at the end of the album.
    public func addAssets(_ assets: [any LibraryObject]) {
        edit { session, album in
            let members = try session.albumMembers(album)
            let ids = try resolve(session, assets)
            try checkNew(session, ids, against: members, album: album)
            try session.setAlbumMembers(album, from: members, to: members + ids)
        }
    }

    /// Inserts assets so that they end up at `indexes` (ascending, one per asset), like PhotoKit.
    public func insertAssets(_ assets: [any LibraryObject], at indexes: IndexSet) {
        edit { session, album in
            let members = try session.albumMembers(album)
            let ids = try resolve(session, assets)
            guard ids.count == indexes.count else {
                throw PhotoLibraryError.invalidRequest("\(ids.count) assets for \(indexes.count) indexes")
            }
            try checkNew(session, ids, against: members, album: album)
            var result = members
            for (id, index) in zip(ids, indexes) {
                guard index >= 0, index <= result.count else {
                    throw PhotoLibraryError.indexOutOfRange(index: index, count: result.count)
                }
                result.insert(id, at: index)
            }
            try session.setAlbumMembers(album, from: members, to: result)
        }
    }

    /// Removes these assets from the album. An asset that isn't a member fails the block.
    public func removeAssets(_ assets: [any LibraryObject]) {
        edit { session, album in
            let members = try session.albumMembers(album)
            let ids = try resolve(session, assets)
            let memberSet = Set(members)
            for (asset, id) in zip(assets, ids) where !memberSet.contains(id) {
                throw PhotoLibraryError.invalidRequest("\(asset.localIdentifier) is not in the album")
            }
            let removed = Set(ids)
            try session.setAlbumMembers(album, from: members, to: members.filter { !removed.contains($0) })
        }
    }

    /// Removes the members at these indexes.
    public func removeAssets(at indexes: IndexSet) {
        edit { session, album in
            let members = try session.albumMembers(album)
            if let bad = indexes.first(where: { $0 < 0 || $0 >= members.count }) {
                throw PhotoLibraryError.indexOutOfRange(index: bad, count: members.count)
            }
            let kept = members.enumerated().filter { !indexes.contains($0.offset) }.map(\.element)
            try session.setAlbumMembers(album, from: members, to: kept)
        }
    }

    /// Moves the members at `fromIndexes` so that they start at `toIndex` in the result, keeping their
    /// relative order (PhotoKit's semantics).
    public func moveAssets(at fromIndexes: IndexSet, to toIndex: Int) {
        edit { session, album in
            let members = try session.albumMembers(album)
            if let bad = fromIndexes.first(where: { $0 < 0 || $0 >= members.count }) {
                throw PhotoLibraryError.indexOutOfRange(index: bad, count: members.count)
            }
            let moving = fromIndexes.map { members[$0] }
            var rest = members.enumerated().filter { !fromIndexes.contains($0.offset) }.map(\.element)
            guard toIndex >= 0, toIndex <= rest.count else {
                throw PhotoLibraryError.indexOutOfRange(index: toIndex, count: rest.count)
            }
            rest.insert(contentsOf: moving, at: toIndex)
            try session.setAlbumMembers(album, from: members, to: rest)
        }
    }

    /// Replaces the members at `indexes` with `assets` (one per index).
    public func replaceAssets(at indexes: IndexSet, withAssets assets: [any LibraryObject]) {
        edit { session, album in
            let members = try session.albumMembers(album)
            let ids = try resolve(session, assets)
            guard ids.count == indexes.count else {
                throw PhotoLibraryError.invalidRequest("\(ids.count) assets for \(indexes.count) indexes")
            }
            if let bad = indexes.first(where: { $0 < 0 || $0 >= members.count }) {
                throw PhotoLibraryError.indexOutOfRange(index: bad, count: members.count)
            }
            var result = members
            for (id, index) in zip(ids, indexes) { result[index] = id }
            let kept = members.enumerated().filter { !indexes.contains($0.offset) }.map(\.element)
            try checkNew(session, ids, against: kept, album: album)
            try session.setAlbumMembers(album, from: members, to: result)
        }
    }
}
