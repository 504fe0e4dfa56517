public import FetchPredicate
public import Foundation

extension AssetMediaType: PredicateEnumeration {}

extension AssetMediaSubtypes: PredicateOptionSet {
    public static var predicateFlags: [(name: String, value: AssetMediaSubtypes)] { named }
}

extension AssetCollectionType: PredicateEnumeration {}
extension AssetCollectionSubtype: PredicateEnumeration {}

/// Typed keys for building asset predicates and sort orders in Swift:
/// `FetchOptions(predicate: .init(Asset.mediaType == .image && !Asset.isHidden), sortDescriptors: [Asset.creationDate.descending])`.
extension Asset {
    public static let localIdentifier = PredicateKeyPath<Asset, String>("localIdentifier")
    public static let mediaType = PredicateKeyPath<Asset, AssetMediaType>("mediaType")
    public static let mediaSubtypes = PredicateKeyPath<Asset, AssetMediaSubtypes>("mediaSubtypes")
    public static let pixelWidth = PredicateKeyPath<Asset, Int>("pixelWidth")
    public static let pixelHeight = PredicateKeyPath<Asset, Int>("pixelHeight")
    public static let creationDate = PredicateKeyPath<Asset, Date?>("creationDate")
    public static let modificationDate = PredicateKeyPath<Asset, Date?>("modificationDate")
    public static let addedDate = PredicateKeyPath<Asset, Date>("addedDate")
    public static let duration = PredicateKeyPath<Asset, Double>("duration")
    public static let isFavorite = PredicateKeyPath<Asset, Bool>("isFavorite")
    public static let isHidden = PredicateKeyPath<Asset, Bool>("isHidden")
    public static let burstIdentifier = PredicateKeyPath<Asset, String?>("burstIdentifier")
    public static let representsBurst = PredicateKeyPath<Asset, Bool>("representsBurst")
    public static let hasAdjustments = PredicateKeyPath<Asset, Bool>("hasAdjustments")
    public static let originalFilename = PredicateKeyPath<Asset, String>("originalFilename")
    public static let uniformTypeIdentifier = PredicateKeyPath<Asset, String?>("uniformTypeIdentifier")
    public static let fileSize = PredicateKeyPath<Asset, Int64>("fileSize")
    public static let contentHash = PredicateKeyPath<Asset, String?>("contentHash")
    public static let latitude = PredicateKeyPath<Asset, Double?>("latitude")
    public static let longitude = PredicateKeyPath<Asset, Double?>("longitude")

    /// The keys of asset predicates and sort descriptors, with the SQL they compile to.
    public static let predicateSchema = PredicateSchema<Asset>([
        PredicateKey(localIdentifier, sql: "asset.localIdentifier") { $0.localIdentifier },
        PredicateKey(mediaType, sql: "asset.mediaType") { $0.mediaType },
        PredicateKey(mediaSubtypes, sql: "asset.mediaSubtypes") { $0.mediaSubtypes },
        PredicateKey(pixelWidth, sql: "asset.pixelWidth") { $0.pixelWidth },
        PredicateKey(pixelHeight, sql: "asset.pixelHeight") { $0.pixelHeight },
        PredicateKey(creationDate, sql: "asset.creationDate") { $0.creationDate },
        PredicateKey(modificationDate, sql: "asset.modificationDate") { $0.modificationDate },
        PredicateKey(addedDate, sql: "asset.addedDate") { $0.addedDate },
        PredicateKey(duration, sql: "asset.duration") { $0.duration },
        PredicateKey(isFavorite, sql: "asset.isFavorite") { $0.isFavorite },
        PredicateKey(isHidden, sql: "asset.isHidden") { $0.isHidden },
        PredicateKey(burstIdentifier, sql: "asset.burstIdentifier") { $0.burstIdentifier },
        PredicateKey(representsBurst, sql: "asset.representsBurst") { $0.representsBurst },
        PredicateKey(hasAdjustments, sql: "asset.hasAdjustments") { $0.hasAdjustments },
        PredicateKey(originalFilename, sql: "asset.originalFilename") { $0.originalFilename },
        PredicateKey(uniformTypeIdentifier, sql: "asset.uniformTypeIdentifier") { $0.uniformTypeIdentifier },
        PredicateKey(fileSize, sql: "asset.fileSize") { $0.fileSize },
        PredicateKey(contentHash, sql: "asset.contentHash") { $0.contentHash },
        PredicateKey(latitude, sql: "asset.latitude") { $0.location?.latitude },
        PredicateKey(longitude, sql: "asset.longitude") { $0.location?.longitude },
    ])
}

/// Typed keys for collection predicates.
extension AssetCollection {
    public static let localIdentifier = PredicateKeyPath<AssetCollection, String>("localIdentifier")
    public static let localizedTitle = PredicateKeyPath<AssetCollection, String?>("localizedTitle")
    public static let startDate = PredicateKeyPath<AssetCollection, Date?>("startDate")
    public static let endDate = PredicateKeyPath<AssetCollection, Date?>("endDate")
    public static let estimatedAssetCount = PredicateKeyPath<AssetCollection, Int>("estimatedAssetCount")
    public static let assetCollectionType = PredicateKeyPath<AssetCollection, AssetCollectionType>("assetCollectionType")
    public static let assetCollectionSubtype = PredicateKeyPath<AssetCollection, AssetCollectionSubtype>("assetCollectionSubtype")

    /// The keys of collection predicates (`c` is the collection table's alias).
    public static let predicateSchema = PredicateSchema<AssetCollection>([
        PredicateKey(localIdentifier, sql: "c.localIdentifier") { $0.localIdentifier },
        PredicateKey(localizedTitle, sql: "c.title") { $0.localizedTitle },
        PredicateKey(startDate, sql: "c.startDate") { $0.startDate },
        PredicateKey(endDate, sql: "c.endDate") { $0.endDate },
        PredicateKey(estimatedAssetCount, sql: "c.assetCount") { $0.estimatedAssetCount },
        PredicateKey(assetCollectionType, sql: "c.type") { $0.assetCollectionType },
        PredicateKey(assetCollectionSubtype, sql: "c.subtype") { $0.assetCollectionSubtype },
    ])
}

/// Typed keys for collection list predicates.
extension CollectionList {
    public static let localIdentifier = PredicateKeyPath<CollectionList, String>("localIdentifier")
    public static let localizedTitle = PredicateKeyPath<CollectionList, String?>("localizedTitle")
    public static let startDate = PredicateKeyPath<CollectionList, Date?>("startDate")
    public static let endDate = PredicateKeyPath<CollectionList, Date?>("endDate")

    /// The keys of collection list predicates (`l` is the list table's alias).
    public static let predicateSchema = PredicateSchema<CollectionList>([
        PredicateKey(localIdentifier, sql: "l.localIdentifier") { $0.localIdentifier },
        PredicateKey(localizedTitle, sql: "l.title") { $0.localizedTitle },
        PredicateKey(startDate, sql: "l.startDate") { $0.startDate },
        PredicateKey(endDate, sql: "l.endDate") { $0.endDate },
    ])
}
