import Foundation
import GRDB

/// The stored form of an asset: one row of `asset`. Internal; the public face is ``Asset``.
struct AssetRow: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "asset"

    var id: Int64
    var localIdentifier: String
    var mediaType: Int = 0
    var mediaSubtypes: Int = 0
    var pixelWidth: Int = 0
    var pixelHeight: Int = 0
    var creationDate: Double?
    var creationTimeZoneOffset: Int?
    var modificationDate: Double?
    var latitude: Double?
    var longitude: Double?
    var altitude: Double?
    var duration: Double = 0
    var isFavorite: Bool = false
    var isHidden: Bool = false
    var burstIdentifier: String?
    var representsBurst: Bool = false
    var burstSelectionTypes: Int = 0
    var sourceType: Int = 1
    var hasAdjustments: Bool = false
    var originalFilename: String = ""
    var uniformTypeIdentifier: String?
    var fileSize: Int64 = 0
    var contentHash: String?
    var storage: Int = 0
    var filePath: String?
    var addedDate: Double
    var momentId: Int64?
    /// The rendered edit's content hash in the store (`Schema/0004_adjustments.sql`); nil when unedited.
    var adjustedContentHash: String?

    /// The public properties that differ between two states of one asset (bookkeeping columns excluded).
    func changedProperties(since old: AssetRow) -> AssetProperties {
        var changed: AssetProperties = []
        if mediaType != old.mediaType { changed.insert(.mediaType) }
        if mediaSubtypes != old.mediaSubtypes { changed.insert(.mediaSubtypes) }
        if pixelWidth != old.pixelWidth || pixelHeight != old.pixelHeight { changed.insert(.pixelSize) }
        if creationDate != old.creationDate || creationTimeZoneOffset != old.creationTimeZoneOffset {
            changed.insert(.creationDate)
        }
        if modificationDate != old.modificationDate { changed.insert(.modificationDate) }
        if latitude != old.latitude || longitude != old.longitude || altitude != old.altitude {
            changed.insert(.location)
        }
        if duration != old.duration { changed.insert(.duration) }
        if isFavorite != old.isFavorite { changed.insert(.isFavorite) }
        if isHidden != old.isHidden { changed.insert(.isHidden) }
        if burstIdentifier != old.burstIdentifier || representsBurst != old.representsBurst
            || burstSelectionTypes != old.burstSelectionTypes
        {
            changed.insert(.burst)
        }
        if sourceType != old.sourceType { changed.insert(.sourceType) }
        if hasAdjustments != old.hasAdjustments { changed.insert(.hasAdjustments) }
        if originalFilename != old.originalFilename || uniformTypeIdentifier != old.uniformTypeIdentifier
            || storage != old.storage || filePath != old.filePath
        {
            changed.insert(.resource)
        }
        if fileSize != old.fileSize || contentHash != old.contentHash || adjustedContentHash != old.adjustedContentHash {
            changed.insert(.content)
        }
        return changed
    }
}

/// The stored form of an album, smart album or moment: one row of `asset_collection`.
struct AssetCollectionRow: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "asset_collection"

    var id: Int64
    var localIdentifier: String
    var type: Int
    var subtype: Int
    var title: String?
    var startDate: Double?
    var endDate: Double?
    var assetCount: Int = 0
    var latitude: Double?
    var longitude: Double?
    var momentDay: String?
    var locatedCount: Int = 0
    var createdAt: Double

    func changedProperties(since old: AssetCollectionRow) -> CollectionProperties {
        var changed: CollectionProperties = []
        if title != old.title { changed.insert(.title) }
        if startDate != old.startDate || endDate != old.endDate { changed.insert(.dates) }
        if assetCount != old.assetCount { changed.insert(.count) }
        if latitude != old.latitude || longitude != old.longitude { changed.insert(.location) }
        return changed
    }
}

/// The stored form of a folder or moment year list: one row of `collection_list`.
struct CollectionListRow: Codable, Hashable, Sendable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "collection_list"

    var id: Int64
    var localIdentifier: String
    var type: Int
    var subtype: Int
    var title: String?
    var startDate: Double?
    var endDate: Double?
    var momentYear: Int?
    var createdAt: Double

    func changedProperties(since old: CollectionListRow) -> CollectionProperties {
        var changed: CollectionProperties = []
        if title != old.title { changed.insert(.title) }
        if startDate != old.startDate || endDate != old.endDate { changed.insert(.dates) }
        return changed
    }
}

/// The public properties of an asset, as a bit set: what the journal records as changed.
public struct AssetProperties: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// ``Asset/mediaType``.
    public static let mediaType = AssetProperties(rawValue: 1 << 0)
    /// ``Asset/mediaSubtypes``.
    public static let mediaSubtypes = AssetProperties(rawValue: 1 << 1)
    /// ``Asset/pixelWidth`` or ``Asset/pixelHeight``.
    public static let pixelSize = AssetProperties(rawValue: 1 << 2)
    /// ``Asset/creationDate`` or ``Asset/creationTimeZoneOffset``.
    public static let creationDate = AssetProperties(rawValue: 1 << 3)
    /// ``Asset/modificationDate``.
    public static let modificationDate = AssetProperties(rawValue: 1 << 4)
    /// ``Asset/location``: latitude, longitude or altitude.
    public static let location = AssetProperties(rawValue: 1 << 5)
    /// ``Asset/duration``.
    public static let duration = AssetProperties(rawValue: 1 << 6)
    /// ``Asset/isFavorite``.
    public static let isFavorite = AssetProperties(rawValue: 1 << 7)
    /// ``Asset/isHidden``.
    public static let isHidden = AssetProperties(rawValue: 1 << 8)
    /// Burst membership: ``Asset/burstIdentifier``, ``Asset/representsBurst`` or ``Asset/burstSelectionTypes``.
    public static let burst = AssetProperties(rawValue: 1 << 9)
    /// ``Asset/sourceType``.
    public static let sourceType = AssetProperties(rawValue: 1 << 10)
    /// ``Asset/hasAdjustments``.
    public static let hasAdjustments = AssetProperties(rawValue: 1 << 11)
    /// File name, type, storage or path.
    public static let resource = AssetProperties(rawValue: 1 << 12)
    /// The bytes: content hash or size.
    public static let content = AssetProperties(rawValue: 1 << 13)
}

/// The public properties of a collection or collection list, as a bit set.
public struct CollectionProperties: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// The title (``AssetCollection/localizedTitle``, ``CollectionList/localizedTitle``).
    public static let title = CollectionProperties(rawValue: 1 << 0)
    /// The start or end date.
    public static let dates = CollectionProperties(rawValue: 1 << 1)
    /// ``AssetCollection/estimatedAssetCount`` (collections only).
    public static let count = CollectionProperties(rawValue: 1 << 2)
    /// ``AssetCollection/approximateLocation`` (collections only).
    public static let location = CollectionProperties(rawValue: 1 << 3)
    /// The members (assets of an album, smart album or moment; children of a folder or year list).
    public static let membership = CollectionProperties(rawValue: 1 << 4)
}
