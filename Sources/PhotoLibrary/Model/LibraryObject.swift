/// The object types of a library, as the change history names them. Raw values are stored in the journal.
public enum ObjectType: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case asset = 1
    case assetCollection = 2
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
