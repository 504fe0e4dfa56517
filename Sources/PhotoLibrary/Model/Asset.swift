public import Foundation

/// The kind of media an asset holds. Raw values are PhotoKit's.
public enum AssetMediaType: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    /// The type could not be told (from the file's content or name).
    case unknown = 0
    /// A still image.
    case image = 1
    /// A video.
    case video = 2
    /// An audio file.
    case audio = 3

    /// The name used in predicates, on the command line and in JSON: `image`, `video`, `audio`, `unknown`.
    public var description: String {
        switch self {
        case .unknown: "unknown"
        case .image: "image"
        case .video: "video"
        case .audio: "audio"
        }
    }

    /// Parses ``description``.
    public init?(name: String) {
        guard let match = Self.allCases.first(where: { $0.description == name }) else { return nil }
        self = match
    }
}

/// Variants of photos and videos. Raw values are PhotoKit's.
public struct AssetMediaSubtypes: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// A panorama. The media probe sets it from Apple's or Google's panorama tags, or for a camera photo at
    /// least twice as long as it is high; the Panoramas smart album holds these assets.
    public static let photoPanorama = AssetMediaSubtypes(rawValue: 1 << 0)
    /// A high-dynamic-range photo, merged from several exposures (set by the media probe from Apple's tags).
    public static let photoHDR = AssetMediaSubtypes(rawValue: 1 << 1)
    /// A screenshot (set by the media probe from the EXIF or XMP user comment); the Screenshots smart album
    /// holds these assets.
    public static let photoScreenshot = AssetMediaSubtypes(rawValue: 1 << 2)
    /// The still of a Live Photo. The sync worker sets it when the still's paired movie is beside it, and
    /// clears it when the movie goes.
    public static let photoLive = AssetMediaSubtypes(rawValue: 1 << 3)
    /// A photo with a depth effect (portrait mode). Kept for PhotoKit's values: nothing in this package sets it.
    public static let photoDepthEffect = AssetMediaSubtypes(rawValue: 1 << 4)
    /// A streamed video. Kept for PhotoKit's values: nothing in this package sets it.
    public static let videoStreamed = AssetMediaSubtypes(rawValue: 1 << 16)
    /// A high-frame-rate (slow-motion) video. Kept for PhotoKit's values: nothing in this package sets it.
    public static let videoHighFrameRate = AssetMediaSubtypes(rawValue: 1 << 17)
    /// A time-lapse video. Kept for PhotoKit's values: nothing in this package sets it.
    public static let videoTimelapse = AssetMediaSubtypes(rawValue: 1 << 18)

    /// Every named subtype with its name, in a fixed order.
    public static let named: [(name: String, value: AssetMediaSubtypes)] = [
        ("photoPanorama", .photoPanorama), ("photoHDR", .photoHDR), ("photoScreenshot", .photoScreenshot),
        ("photoLive", .photoLive), ("photoDepthEffect", .photoDepthEffect), ("videoStreamed", .videoStreamed),
        ("videoHighFrameRate", .videoHighFrameRate), ("videoTimelapse", .videoTimelapse),
    ]

    /// The names of the subtypes in this set, in ``named`` order.
    public var names: [String] { Self.named.filter { contains($0.value) }.map(\.name) }

    /// The subtype with this name, or nil.
    public init?(name: String) {
        guard let match = Self.named.first(where: { $0.name == name }) else { return nil }
        self = match.value
    }
}

/// How an asset in a burst was selected. Raw values are PhotoKit's.
public struct AssetBurstSelectionType: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// Picked automatically as one of the burst's best shots. Ranks after a user pick when the library
    /// chooses the burst's representative.
    public static let autoPick = AssetBurstSelectionType(rawValue: 1 << 0)
    /// Picked by the user. A user pick is preferred when the library chooses the burst's representative.
    public static let userPick = AssetBurstSelectionType(rawValue: 1 << 1)
}

/// Where an asset comes from. Raw values are PhotoKit's.
public struct AssetSourceType: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    /// In the user's own library: the default, and what every asset created here gets.
    public static let typeUserLibrary = AssetSourceType(rawValue: 1 << 0)
    /// From a shared album. Kept for PhotoKit's values: nothing in this package sets it.
    public static let typeCloudShared = AssetSourceType(rawValue: 1 << 1)
    /// Synced from a computer by iTunes. Kept for PhotoKit's values: nothing in this package sets it.
    public static let typeiTunesSynced = AssetSourceType(rawValue: 1 << 2)
}

/// A geographic position.
public struct Location: Sendable, Hashable, Codable {
    /// Degrees, −90…90.
    public var latitude: Double
    /// Degrees, −180…180.
    public var longitude: Double
    /// Metres above sea level, when known.
    public var altitude: Double?

    /// Makes a location (degrees, and metres for the altitude). It is not validated here: see ``isValid``.
    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    /// Whether the coordinates are on Earth (and finite).
    public var isValid: Bool {
        latitude.isFinite && longitude.isFinite && (-90...90).contains(latitude)
            && (-180...180).contains(longitude) && (altitude?.isFinite ?? true)
    }
}

/// How an asset's bytes are kept.
public enum AssetStorage: Int, Sendable, Hashable, Codable {
    /// Copied into the library's `originals/` store, addressed by content hash.
    case copied = 0
    /// Referenced in place at ``Asset/filePath``.
    case referenced = 1
}

/// A photo, video or audio file in a library: an immutable snapshot of its metadata.
///
/// Assets are values: holding one never changes it. Fetch again, or follow change details, to see newer
/// states. Identity is ``localIdentifier``, stable for the asset's whole life.
public struct Asset: LibraryObject, Sendable, Hashable, Identifiable {
    /// The stable, opaque identifier, never reused.
    public let localIdentifier: String
    public var id: String { localIdentifier }

    /// Image, video or audio; ``AssetMediaType/unknown`` when the type could not be told.
    public let mediaType: AssetMediaType
    /// Variants such as panorama, HDR, screenshot or Live Photo; empty when none is known.
    public let mediaSubtypes: AssetMediaSubtypes
    /// Width in pixels, as displayed (orientation applied); 0 when unknown.
    public let pixelWidth: Int
    /// Height in pixels, as displayed (orientation applied); 0 when unknown.
    public let pixelHeight: Int
    /// When the photo or video was taken; nil when unknown.
    public let creationDate: Date?
    /// The capture's offset from UTC in seconds, when the file recorded it.
    public let creationTimeZoneOffset: Int?
    /// When the asset's content was last modified, as the request that created or changed the asset set it (a
    /// folder mirror sets the file's modification time); nil when unknown.
    public let modificationDate: Date?
    /// Where the photo or video was taken; nil when unknown.
    public let location: Location?
    /// Seconds; 0 for still images.
    public let duration: Double
    /// Whether the user marked the asset as a favorite.
    public let isFavorite: Bool
    /// Whether the asset is hidden: fetches leave it out unless ``FetchOptions/includeHiddenAssets`` is set.
    public let isHidden: Bool
    /// The identifier shared by the assets of one burst; nil when the asset is not part of a burst.
    public let burstIdentifier: String?
    /// Whether this asset is its burst's representative (the one shown when bursts are collapsed).
    public let representsBurst: Bool
    /// How the asset was picked within its burst; empty when it was not picked.
    public let burstSelectionTypes: AssetBurstSelectionType
    /// Where the asset comes from; ``AssetSourceType/typeUserLibrary`` unless a change request set otherwise.
    public let sourceType: AssetSourceType
    /// Whether the asset is marked as edited. Only change requests set it; the library never does.
    public let hasAdjustments: Bool

    // Resource facts.
    /// The name of the file the asset was made from (its last path component); follows renames of referenced files.
    public let originalFilename: String
    /// The file's type identifier, such as `public.jpeg`; nil when unknown.
    public let uniformTypeIdentifier: String?
    /// The size of the original file in bytes.
    public let fileSize: Int64
    /// XXH3-128 of the original file: 32 lowercase hexadecimal digits, as `xxhsum -H2` prints.
    public let contentHash: String?
    /// Whether the original is copied into the library's store or referenced in place.
    public let storage: AssetStorage
    /// The referenced file's absolute path (``AssetStorage/referenced``); nil for copied originals.
    public let filePath: String?
    /// When the asset was added to this library.
    public let addedDate: Date

    /// The internal row id. Not public API: identity is ``localIdentifier``.
    let rowID: Int64

    /// The file holding the original bytes, inside `library` for copied originals.
    public func fileURL(in library: PhotoLibrary) -> URL? {
        switch storage {
        case .referenced: filePath.map { URL(fileURLWithPath: $0) }
        case .copied: contentHash.map { library.originalsStore.url(forHash: $0) }
        }
    }

    init(row: AssetRow) {
        localIdentifier = row.localIdentifier
        mediaType = AssetMediaType(rawValue: row.mediaType) ?? .unknown
        mediaSubtypes = AssetMediaSubtypes(rawValue: row.mediaSubtypes)
        pixelWidth = row.pixelWidth
        pixelHeight = row.pixelHeight
        creationDate = row.creationDate.map(Date.init(timeIntervalSince1970:))
        creationTimeZoneOffset = row.creationTimeZoneOffset
        modificationDate = row.modificationDate.map(Date.init(timeIntervalSince1970:))
        location = row.location
        duration = row.duration
        isFavorite = row.isFavorite
        isHidden = row.isHidden
        burstIdentifier = row.burstIdentifier
        representsBurst = row.representsBurst
        burstSelectionTypes = AssetBurstSelectionType(rawValue: row.burstSelectionTypes)
        sourceType = AssetSourceType(rawValue: row.sourceType)
        hasAdjustments = row.hasAdjustments
        originalFilename = row.originalFilename
        uniformTypeIdentifier = row.uniformTypeIdentifier
        fileSize = row.fileSize
        contentHash = row.contentHash
        storage = AssetStorage(rawValue: row.storage) ?? .copied
        filePath = row.filePath
        addedDate = Date(timeIntervalSince1970: row.addedDate)
        rowID = row.id
    }
}
