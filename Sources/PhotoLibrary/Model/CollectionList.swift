public import Foundation

/// The kinds of collection list. Raw values are PhotoKit's.
public enum CollectionListType: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// A list of moments: the moments of one year.
    case momentList = 1
    /// A user folder holding albums and folders.
    case folder = 2

    public var description: String {
        switch self {
        case .momentList: "momentList"
        case .folder: "folder"
        }
    }
}

/// Subtypes of collection lists. Raw values are PhotoKit's.
public enum CollectionListSubtype: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// A moment list holding one year's moments.
    case momentListYear = 2
    /// A user folder.
    case regularFolder = 100
    /// Matches every subtype in fetches.
    case any = 2_147_483_647

    public var description: String {
        switch self {
        case .momentListYear: "momentListYear"
        case .regularFolder: "regularFolder"
        case .any: "any"
        }
    }
}

/// A folder (holding albums and folders, ordered, nestable, never cyclic) or a moment year list: an
/// immutable snapshot of the list's own properties. Children: ``PhotoLibrary/fetchCollections(in:options:)``.
public struct CollectionList: LibraryObject, Identifiable {
    /// The stable, opaque identifier, never reused; transient lists get a fresh one each time.
    public let localIdentifier: String
    public var id: String { localIdentifier }
    /// Moment year list or folder.
    public let collectionListType: CollectionListType
    /// ``CollectionListSubtype/momentListYear`` for year lists, ``CollectionListSubtype/regularFolder`` for folders.
    public let collectionListSubtype: CollectionListSubtype
    /// The folder's title; a year list's title is its year.
    public let localizedTitle: String?
    /// A year list's earliest moment start date; nil for folders.
    public let startDate: Date?
    /// A year list's latest moment end date; nil for folders.
    public let endDate: Date?
    /// Whether this list exists only in memory.
    public var isTransient: Bool { transientChildren != nil }

    let rowID: Int64
    let transientChildren: [PhotoCollection]?

    init(row: CollectionListRow) {
        localIdentifier = row.localIdentifier
        collectionListType = CollectionListType(rawValue: row.type) ?? .folder
        collectionListSubtype = CollectionListSubtype(rawValue: row.subtype) ?? .any
        localizedTitle = row.title
        startDate = row.startDate.map(Date.init(timeIntervalSince1970:))
        endDate = row.endDate.map(Date.init(timeIntervalSince1970:))
        rowID = row.id
        transientChildren = nil
    }

    private init(transientTitle: String?, children: [PhotoCollection]) {
        localIdentifier = "transient-" + UUID().uuidString + "/L0/050"
        collectionListType = .folder
        collectionListSubtype = .regularFolder
        localizedTitle = transientTitle
        startDate = nil
        endDate = nil
        rowID = 0
        transientChildren = children
    }

    /// A list that exists only in memory, holding these collections in this order. Never stored.
    public static func transientCollectionList(with collections: [AssetCollection], title: String?) -> CollectionList {
        CollectionList(transientTitle: title, children: collections.map(PhotoCollection.assetCollection))
    }

    /// A list that exists only in memory, holding the collections of a fetch result. Never stored.
    public static func transientCollectionList(
        withCollectionsFetchResult fetchResult: FetchResult<AssetCollection>, title: String?
    ) -> CollectionList {
        CollectionList(transientTitle: title, children: fetchResult.map(PhotoCollection.assetCollection))
    }
}

/// An album, smart album, moment or collection list: the members of a folder or of the top level.
/// (PhotoKit's `PHCollection`; named `PhotoCollection` because `Collection` is the standard library's protocol.)
public enum PhotoCollection: LibraryObject, Identifiable {
    /// An album, smart album or moment.
    case assetCollection(AssetCollection)
    /// A folder or moment year list.
    case collectionList(CollectionList)

    /// The identifier of the album, moment or list it wraps.
    public var localIdentifier: String {
        switch self {
        case .assetCollection(let collection): collection.localIdentifier
        case .collectionList(let list): list.localIdentifier
        }
    }
    public var id: String { localIdentifier }

    /// The title of the album or folder.
    public var localizedTitle: String? {
        switch self {
        case .assetCollection(let collection): collection.localizedTitle
        case .collectionList(let list): list.localizedTitle
        }
    }
}
