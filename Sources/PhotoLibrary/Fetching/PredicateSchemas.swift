public import FetchPredicate
public import Foundation

extension AssetMediaType: PredicateEnumeration {}

extension AssetMediaSubtypes: PredicateOptionSet {
    /// The flags predicates can name (`mediaSubtypes CONTAINS photoPanorama`): ``named``.
    public static var predicateFlags: [(name: String, value: AssetMediaSubtypes)] { named }
}

extension AssetCollectionType: PredicateEnumeration {}
extension AssetCollectionSubtype: PredicateEnumeration {}

/// Typed keys for building asset predicates and sort orders in Swift:
/// `FetchOptions(predicate: .init(Asset.mediaType == .image && !Asset.isHidden), sortDescriptors: [Asset.creationDate.descending])`.
extension Asset {
    /// ``Asset/localIdentifier``: the asset's stable identifier.
    public static let localIdentifier = PredicateKeyPath<Asset, String>("localIdentifier")
    /// ``Asset/mediaType``: image, video, audio or unknown, compared by name (`mediaType == video`).
    public static let mediaType = PredicateKeyPath<Asset, AssetMediaType>("mediaType")
    /// ``Asset/mediaSubtypes``: the subtype flags, tested with `CONTAINS` (`mediaSubtypes CONTAINS photoHDR`).
    public static let mediaSubtypes = PredicateKeyPath<Asset, AssetMediaSubtypes>("mediaSubtypes")
    /// ``Asset/pixelWidth``: width in pixels as displayed; 0 when unknown.
    public static let pixelWidth = PredicateKeyPath<Asset, Int>("pixelWidth")
    /// ``Asset/pixelHeight``: height in pixels as displayed; 0 when unknown.
    public static let pixelHeight = PredicateKeyPath<Asset, Int>("pixelHeight")
    /// ``Asset/creationDate``: when the photo or video was taken; nil when unknown.
    public static let creationDate = PredicateKeyPath<Asset, Date?>("creationDate")
    /// ``Asset/modificationDate``: when the content was last modified; nil when unknown.
    public static let modificationDate = PredicateKeyPath<Asset, Date?>("modificationDate")
    /// ``Asset/addedDate``: when the asset was added to the library; never nil.
    public static let addedDate = PredicateKeyPath<Asset, Date>("addedDate")
    /// ``Asset/duration``: length in seconds; 0 for still images.
    public static let duration = PredicateKeyPath<Asset, Double>("duration")
    /// ``Asset/isFavorite``: whether the asset is a favorite.
    public static let isFavorite = PredicateKeyPath<Asset, Bool>("isFavorite")
    /// ``Asset/isHidden``: whether the asset is hidden (fetches leave hidden assets out unless asked for them).
    public static let isHidden = PredicateKeyPath<Asset, Bool>("isHidden")
    /// ``Asset/burstIdentifier``: the burst the asset belongs to; nil when it is not in one.
    public static let burstIdentifier = PredicateKeyPath<Asset, String?>("burstIdentifier")
    /// ``Asset/representsBurst``: whether the asset is its burst's representative; false outside bursts.
    public static let representsBurst = PredicateKeyPath<Asset, Bool>("representsBurst")
    /// ``Asset/hasAdjustments``: whether the asset is marked as edited.
    public static let hasAdjustments = PredicateKeyPath<Asset, Bool>("hasAdjustments")
    /// ``Asset/originalFilename``: the name of the file the asset was made from.
    public static let originalFilename = PredicateKeyPath<Asset, String>("originalFilename")
    /// ``Asset/uniformTypeIdentifier``: the file's type identifier (`public.jpeg`); nil when unknown.
    public static let uniformTypeIdentifier = PredicateKeyPath<Asset, String?>("uniformTypeIdentifier")
    /// ``Asset/fileSize``: the original file's size in bytes.
    public static let fileSize = PredicateKeyPath<Asset, Int64>("fileSize")
    /// ``Asset/contentHash``: the original's XXH3-128, 32 lowercase hexadecimal digits; nil when not known.
    public static let contentHash = PredicateKeyPath<Asset, String?>("contentHash")
    /// The latitude of ``Asset/location`` in degrees (negative: south); nil when the asset has no location.
    public static let latitude = PredicateKeyPath<Asset, Double?>("latitude")
    /// The longitude of ``Asset/location`` in degrees (negative: west); nil when the asset has no location.
    public static let longitude = PredicateKeyPath<Asset, Double?>("longitude")
    /// The altitude of ``Asset/location`` in metres above sea level; nil when unknown.
    public static let altitude = PredicateKeyPath<Asset, Double?>("altitude")
    /// The asset's file path relative to the root of asset paths holding it (`2023/IMG_0001.jpg`,
    /// `/`-separated); nil for an asset under no root (a copied original). Clients of the library register the
    /// roots (``LibraryTransaction/addAssetPathRoot(_:client:)``): the folders whose files they keep in the library.
    ///
    /// The path depends on the library's roots, which an ``Asset`` value does not carry: it is evaluated by
    /// the library's query (`path BEGINSWITH "2023/"`), and an in-memory evaluation of a predicate on an
    /// ``Asset`` value sees nil. An asset under roots nested in one another is relative to the innermost one.
    public static let path = PredicateKeyPath<Asset, String?>("path")

    /// The SQL of ``path``: the referenced file's path after the longest root of asset paths
    /// (Schema/0007_client_schema.sql) that is a prefix of it. The roots are few, so scanning them per asset
    /// row costs little next to reading the row; `substr` and `length` count characters on both sides, so the
    /// cut is right for any UTF-8 path.
    static let pathSQL = """
        SELECT substr(asset.filePath, length(asset_path_root.path) + 2) FROM asset_path_root
        WHERE substr(asset.filePath, 1, length(asset_path_root.path) + 1) = asset_path_root.path || '/'
        ORDER BY length(asset_path_root.path) DESC LIMIT 1
        """

    /// Other names of keys, accepted in predicates and sort descriptors: the names JSON clients of earlier
    /// versions knew (`filename`, `id`).
    static let aliases: [PredicateKey<Asset>] = [
        PredicateKey(name: "filename", type: .string, isOptional: false, sql: "asset.originalFilename") {
            .string($0.originalFilename)
        },
        PredicateKey(name: "id", type: .string, isOptional: false, sql: "asset.localIdentifier") { .string($0.localIdentifier) },
    ]

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
        PredicateKey(altitude, sql: "asset.altitude") { $0.location?.altitude },
        PredicateKey(path, sql: pathSQL) { _ in nil },
    ] + aliases)
}

/// Typed keys for collection predicates.
extension AssetCollection {
    /// ``AssetCollection/localIdentifier``: the collection's stable identifier.
    public static let localIdentifier = PredicateKeyPath<AssetCollection, String>("localIdentifier")
    /// ``AssetCollection/localizedTitle``: the album's title, or a moment's day; nil when untitled.
    public static let localizedTitle = PredicateKeyPath<AssetCollection, String?>("localizedTitle")
    /// ``AssetCollection/startDate``: the earliest creation date among the members; nil when none is known.
    public static let startDate = PredicateKeyPath<AssetCollection, Date?>("startDate")
    /// ``AssetCollection/endDate``: the latest creation date among the members; nil when none is known.
    public static let endDate = PredicateKeyPath<AssetCollection, Date?>("endDate")
    /// ``AssetCollection/estimatedAssetCount``: the number of members, hidden assets included.
    public static let estimatedAssetCount = PredicateKeyPath<AssetCollection, Int>("estimatedAssetCount")
    /// ``AssetCollection/assetCollectionType``: album, smartAlbum or moment, compared by name.
    public static let assetCollectionType = PredicateKeyPath<AssetCollection, AssetCollectionType>("assetCollectionType")
    /// ``AssetCollection/assetCollectionSubtype``: the album or smart album kind, compared by name.
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
    /// ``CollectionList/localIdentifier``: the list's stable identifier.
    public static let localIdentifier = PredicateKeyPath<CollectionList, String>("localIdentifier")
    /// ``CollectionList/localizedTitle``: the folder's title, or a year list's year; nil when untitled.
    public static let localizedTitle = PredicateKeyPath<CollectionList, String?>("localizedTitle")
    /// ``CollectionList/startDate``: a year list's earliest moment date; nil for folders.
    public static let startDate = PredicateKeyPath<CollectionList, Date?>("startDate")
    /// ``CollectionList/endDate``: a year list's latest moment date; nil for folders.
    public static let endDate = PredicateKeyPath<CollectionList, Date?>("endDate")

    /// The keys of collection list predicates (`l` is the list table's alias).
    public static let predicateSchema = PredicateSchema<CollectionList>([
        PredicateKey(localIdentifier, sql: "l.localIdentifier") { $0.localIdentifier },
        PredicateKey(localizedTitle, sql: "l.title") { $0.localizedTitle },
        PredicateKey(startDate, sql: "l.startDate") { $0.startDate },
        PredicateKey(endDate, sql: "l.endDate") { $0.endDate },
    ])
}
