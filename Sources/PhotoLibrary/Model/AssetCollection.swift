public import Foundation

/// The kinds of asset collection. Raw values are PhotoKit's.
public enum AssetCollectionType: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// A user album: members and their order are chosen by the user.
    case album = 1
    /// A smart album: members are the assets matching a rule, maintained on every change.
    case smartAlbum = 2
    /// A moment: the assets taken on one local calendar day, maintained on every change.
    case moment = 3

    public var description: String {
        switch self {
        case .album: "album"
        case .smartAlbum: "smartAlbum"
        case .moment: "moment"
        }
    }
}

/// Subtypes of asset collections. Raw values are PhotoKit's.
public enum AssetCollectionSubtype: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// A user album.
    case albumRegular = 2
    /// A smart album without a rule of its own here: it holds no assets.
    case smartAlbumGeneric = 200
    /// Panoramas (``AssetMediaSubtypes/photoPanorama``), hidden ones left out.
    case smartAlbumPanoramas = 201
    /// Videos, hidden ones left out.
    case smartAlbumVideos = 202
    /// Favorites, hidden ones left out.
    case smartAlbumFavorites = 203
    /// Every hidden asset, and only those.
    case smartAlbumAllHidden = 205
    /// Assets added in the last 30 days, hidden ones left out.
    case smartAlbumRecentlyAdded = 206
    /// Assets that belong to a burst, hidden ones left out.
    case smartAlbumBursts = 207
    /// Every asset that is not hidden.
    case smartAlbumUserLibrary = 209
    /// Screenshots (``AssetMediaSubtypes/photoScreenshot``), hidden ones left out.
    case smartAlbumScreenshots = 211
    /// Matches every subtype in fetches; moments have this subtype.
    case any = 2_147_483_647

    public var description: String {
        switch self {
        case .albumRegular: "albumRegular"
        case .smartAlbumGeneric: "smartAlbumGeneric"
        case .smartAlbumPanoramas: "smartAlbumPanoramas"
        case .smartAlbumVideos: "smartAlbumVideos"
        case .smartAlbumFavorites: "smartAlbumFavorites"
        case .smartAlbumAllHidden: "smartAlbumAllHidden"
        case .smartAlbumRecentlyAdded: "smartAlbumRecentlyAdded"
        case .smartAlbumBursts: "smartAlbumBursts"
        case .smartAlbumUserLibrary: "smartAlbumUserLibrary"
        case .smartAlbumScreenshots: "smartAlbumScreenshots"
        case .any: "any"
        }
    }
}

/// An album, smart album or moment: an immutable snapshot of the collection's own properties.
///
/// Membership is not part of the snapshot: fetch it with ``PhotoLibrary/fetchAssets(in:options:)``.
/// A *transient* collection (``transientAssetCollection(with:title:)``) is made from assets in memory and
/// never stored.
public struct AssetCollection: LibraryObject, Identifiable {
    /// The stable, opaque identifier, never reused; transient collections get a fresh one each time.
    public let localIdentifier: String
    public var id: String { localIdentifier }
    /// Album, smart album or moment.
    public let assetCollectionType: AssetCollectionType
    /// Which kind of album or smart album; ``AssetCollectionSubtype/any`` for moments.
    public let assetCollectionSubtype: AssetCollectionSubtype
    /// The album's title; a moment's title is its day (`2024-05-03`, or `Undated`).
    public let localizedTitle: String?
    /// The earliest creation date among the members (moments and albums), when known.
    public let startDate: Date?
    /// The latest creation date among the members (moments and albums), when known.
    public let endDate: Date?
    /// The number of members when this snapshot was taken (hidden assets included).
    public let estimatedAssetCount: Int
    /// The mean position of the members that have one (moments).
    public let approximateLocation: Location?
    /// Whether this collection exists only in memory.
    public var isTransient: Bool { transientMembers != nil }

    let rowID: Int64
    /// The members of a transient collection, in order.
    let transientMembers: [String]?

    init(row: AssetCollectionRow) {
        localIdentifier = row.localIdentifier
        assetCollectionType = AssetCollectionType(rawValue: row.type) ?? .album
        assetCollectionSubtype = AssetCollectionSubtype(rawValue: row.subtype) ?? .any
        localizedTitle = row.title
        startDate = row.startDate.map(Date.init(timeIntervalSince1970:))
        endDate = row.endDate.map(Date.init(timeIntervalSince1970:))
        estimatedAssetCount = row.assetCount
        if let latitude = row.latitude, let longitude = row.longitude {
            approximateLocation = Location(latitude: latitude, longitude: longitude)
        } else {
            approximateLocation = nil
        }
        rowID = row.id
        transientMembers = nil
    }

    private init(transientTitle: String?, members: [Asset]) {
        localIdentifier = "transient-" + UUID().uuidString + "/L0/040"
        assetCollectionType = .album
        assetCollectionSubtype = .albumRegular
        localizedTitle = transientTitle
        let dates = members.compactMap(\.creationDate)
        startDate = dates.min()
        endDate = dates.max()
        estimatedAssetCount = members.count
        approximateLocation = nil
        rowID = 0
        transientMembers = members.map(\.localIdentifier)
    }

    /// A collection that exists only in memory, holding these assets in this order. Never stored.
    public static func transientAssetCollection(with assets: [Asset], title: String?) -> AssetCollection {
        AssetCollection(transientTitle: title, members: assets)
    }

    /// A collection that exists only in memory, holding the assets of a fetch result. Never stored.
    ///
    /// - Complexity: O(*n*): the fetch result's objects are loaded.
    public static func transientAssetCollection(
        withAssetFetchResult fetchResult: FetchResult<Asset>, title: String?
    ) -> AssetCollection {
        AssetCollection(transientTitle: title, members: Array(fetchResult))
    }
}
