/// The object types of a library, as the change history names them. Raw values are stored in the journal.
public enum ObjectType: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// An ``Asset``.
    case asset = 1
    /// An ``AssetCollection``: album, smart album or moment.
    case assetCollection = 2
    /// A ``CollectionList``: folder or moment year list.
    case collectionList = 3

    public var description: String {
        switch self {
        case .asset: "asset"
        case .assetCollection: "assetCollection"
        case .collectionList: "collectionList"
        }
    }
}

/// What every library object has: a stable identifier. Objects are immutable value snapshots.
public protocol LibraryObject: Sendable, Hashable {
    /// The stable, opaque identifier, never reused.
    var localIdentifier: String { get }
}
