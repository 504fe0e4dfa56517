public import Foundation
import GRDB
import LibraryStorage

/// Creates, renames and deletes folders and edits their ordered children (albums and folders), inside
/// ``PhotoLibrary/performChanges(author:_:)``.
///
/// A collection has at most one parent folder: adding it to a folder takes it out of the one it was in.
/// A folder can never end up inside itself: such a request fails the block with
/// ``PhotoLibraryError/cyclicCollectionList(localIdentifier:parentIdentifier:)``. Deleting a folder deletes
/// the albums and folders inside it (their assets stay in the library).
public final class CollectionListChangeRequest {
    private let session: ChangeSession?
    private let rowID: Int64?

    /// The placeholder of the folder a creation request creates; nil for other requests.
    public let placeholderForCreatedCollectionList: ObjectPlaceholder?

    private init(session: ChangeSession?, rowID: Int64?, placeholder: ObjectPlaceholder?) {
        self.session = session
        self.rowID = rowID
        self.placeholderForCreatedCollectionList = placeholder
    }

    /// A request to edit a folder.
    public convenience init(for list: CollectionList) {
        let session = ChangeSession.admitted()
        var rowID: Int64?
        session?.perform {
            let row = try session!.listRow(for: list.localIdentifier)
            guard row.type == CollectionListType.folder.rawValue else {
                throw PhotoLibraryError.invalidRequest("\(list.localizedTitle ?? list.localIdentifier) is not a folder")
            }
            rowID = row.id
        }
        self.init(session: session, rowID: rowID, placeholder: nil)
    }

    /// Creates an empty folder with a title.
    public static func creationRequestForCollectionList(withTitle title: String) -> CollectionListChangeRequest {
        guard let session = ChangeSession.admitted() else {
            return CollectionListChangeRequest(session: nil, rowID: nil, placeholder: nil)
        }
        var rowID: Int64?
        var placeholder: ObjectPlaceholder?
        session.perform {
            var row = CollectionListRow(
                id: 0, localIdentifier: LocalIdentifier.make(.collectionList), type: CollectionListType.folder.rawValue,
                subtype: CollectionListSubtype.regularFolder.rawValue, title: title, createdAt: session.now)
            try session.insertList(&row)
            rowID = row.id
            placeholder = ObjectPlaceholder(localIdentifier: row.localIdentifier)
        }
        return CollectionListChangeRequest(session: session, rowID: rowID, placeholder: placeholder)
    }

    /// Deletes folders with everything inside them (albums and folders; assets stay in the library).
    public static func deleteCollectionLists(_ lists: some Sequence<CollectionList>) {
        guard let session = ChangeSession.admitted() else { return }
        for list in lists {
            session.perform {
                let row = try session.listRow(for: list.localIdentifier)
                guard row.type == CollectionListType.folder.rawValue else {
                    throw PhotoLibraryError.invalidRequest("\(row.title ?? row.localIdentifier) is not a folder")
                }
                try session.detach(.list(row.id))
                try deleteRecursively(row.id, session: session)
            }
        }
    }

    private static func deleteRecursively(_ list: Int64, session: ChangeSession) throws {
        try session.touchList(list)
        for child in try session.children(ofList: list) {
            switch child {
            case .collection(let id):
                try session.touchCollection(id)
                try session.db.execute(sql: "DELETE FROM asset_collection WHERE id = ?", arguments: [id])
            case .list(let id):
                try deleteRecursively(id, session: session)
            }
        }
        try session.db.execute(sql: "DELETE FROM collection_list WHERE id = ?", arguments: [list])
    }

    /// The folder's title.
    public var title: String {
        get {
            guard let session, let rowID else { return "" }
            return session.read(
                { try session.db.fetchValue(String.self, sql: "SELECT title FROM collection_list WHERE id = ?", arguments: [rowID]) }, default: "")
        }
        set {
            edit { session, id in
                try session.touchList(id)
                try session.db.execute(sql: "UPDATE collection_list SET title = ? WHERE id = ?", arguments: [newValue, id])
            }
        }
    }

    private func edit(_ body: (ChangeSession, Int64) throws -> Void) {
        guard let session, let rowID else { return }
        session.perform { try body(session, rowID) }
    }

    /// Resolves albums, folders or their placeholders to children, refusing moments, smart albums, year
    /// lists, the folder itself and its ancestors.
    private func resolve(_ session: ChangeSession, _ objects: [any LibraryObject], into folder: Int64) throws -> [ChangeSession.Child] {
        try objects.map { object in
            let identifier = object.localIdentifier
            if let collection = try session.collectionRowIfAny(localIdentifier: identifier) {
                guard collection.type == AssetCollectionType.album.rawValue else {
                    throw PhotoLibraryError.invalidRequest("only user albums and folders can be put in a folder")
                }
                return .collection(collection.id)
            }
            let list = try session.listRow(for: identifier)
            guard list.type == CollectionListType.folder.rawValue else {
                throw PhotoLibraryError.invalidRequest("only user albums and folders can be put in a folder")
            }
            // Never cyclic: the folder being filled must not be the child or lie inside it.
            var ancestor: Int64? = folder
            while let current = ancestor {
                if current == list.id {
                    let parent = try session.db.fetchValue(String.self, sql: "SELECT localIdentifier FROM collection_list WHERE id = ?", arguments: [folder]) ?? ""
                    throw PhotoLibraryError.cyclicCollectionList(localIdentifier: identifier, parentIdentifier: parent)
                }
                ancestor = try session.parent(of: .list(current))
            }
            return .list(list.id)
        }
    }

    /// Appends albums and folders (or their placeholders) at the end of the folder.
    public func addChildCollections(_ collections: [any LibraryObject]) {
        edit { session, folder in
            let children = try resolve(session, collections, into: folder)
            guard Set(children).count == children.count else {
                throw PhotoLibraryError.invalidRequest("the same collection is given twice")
            }
            for child in children { try session.detach(child) }
            let current = try session.children(ofList: folder)
            try session.setChildren(ofList: folder, from: current, to: current + children)
        }
    }

    /// Inserts albums and folders so that they end up at `indexes` (ascending, one per collection).
    public func insertChildCollections(_ collections: [any LibraryObject], at indexes: IndexSet) {
        edit { session, folder in
            let children = try resolve(session, collections, into: folder)
            guard children.count == indexes.count, Set(children).count == children.count else {
                throw PhotoLibraryError.invalidRequest("\(children.count) distinct collections are needed for \(indexes.count) indexes")
            }
            for child in children { try session.detach(child) }
            let current = try session.children(ofList: folder)
            var result = current
            for (child, index) in zip(children, indexes) {
                guard index >= 0, index <= result.count else {
                    throw PhotoLibraryError.indexOutOfRange(index: index, count: result.count)
                }
                result.insert(child, at: index)
            }
            try session.setChildren(ofList: folder, from: current, to: result)
        }
    }

    /// Takes these albums and folders out of the folder (to the top level). One that isn't a child fails the
    /// block.
    public func removeChildCollections(_ collections: [any LibraryObject]) {
        edit { session, folder in
            let children = try resolve(session, collections, into: folder)
            let current = try session.children(ofList: folder)
            let currentSet = Set(current)
            for (object, child) in zip(collections, children) where !currentSet.contains(child) {
                throw PhotoLibraryError.invalidRequest("\(object.localIdentifier) is not in the folder")
            }
            let removed = Set(children)
            try session.setChildren(ofList: folder, from: current, to: current.filter { !removed.contains($0) })
        }
    }

    /// Moves the children at `fromIndexes` so that they start at `toIndex` in the result, keeping their order.
    public func moveChildCollections(at fromIndexes: IndexSet, to toIndex: Int) {
        edit { session, folder in
            let current = try session.children(ofList: folder)
            if let bad = fromIndexes.first(where: { $0 < 0 || $0 >= current.count }) {
                throw PhotoLibraryError.indexOutOfRange(index: bad, count: current.count)
            }
            let moving = fromIndexes.map { current[$0] }
            var rest = current.enumerated().filter { !fromIndexes.contains($0.offset) }.map(\.element)
            guard toIndex >= 0, toIndex <= rest.count else {
                throw PhotoLibraryError.indexOutOfRange(index: toIndex, count: rest.count)
            }
            rest.insert(contentsOf: moving, at: toIndex)
            try session.setChildren(ofList: folder, from: current, to: rest)
        }
    }
}
