public import Foundation

/// The kind of media an asset holds. Raw values are PhotoKit's.
public enum AssetMediaType: Int, Sendable, Hashable, CaseIterable, Codable, CustomStringConvertible {
    case unknown = 0
    case image = 1
    case video = 2
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

    public static let photoPanorama = AssetMediaSubtypes(rawValue: 1 << 0)
    public static let photoHDR = AssetMediaSubtypes(rawValue: 1 << 1)
    public static let photoScreenshot = AssetMediaSubtypes(rawValue: 1 << 2)
    public static let photoLive = AssetMediaSubtypes(rawValue: 1 << 3)
    public static let photoDepthEffect = AssetMediaSubtypes(rawValue: 1 << 4)
    public static let videoStreamed = AssetMediaSubtypes(rawValue: 1 << 16)
    public static let videoHighFrameRate = AssetMediaSubtypes(rawValue: 1 << 17)
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
    public static let autoPick = AssetBurstSelectionType(rawValue: 1 << 0)
    public static let userPick = AssetBurstSelectionType(rawValue: 1 << 1)
}

/// Where an asset comes from. Raw values are PhotoKit's.
public struct AssetSourceType: OptionSet, Sendable, Hashable, Codable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public static let typeUserLibrary = AssetSourceType(rawValue: 1 << 0)
    public static let typeCloudShared = AssetSourceType(rawValue: 1 << 1)
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

    public let mediaType: AssetMediaType
    public let mediaSubtypes: AssetMediaSubtypes
    public let pixelWidth: Int
    public let pixelHeight: Int
    public let creationDate: Date?
    /// The capture's offset from UTC in seconds, when the file recorded it.
    public let creationTimeZoneOffset: Int?
    public let modificationDate: Date?
    public let location: Location?
    /// Seconds; 0 for still images.
    public let duration: Double
    public let isFavorite: Bool
    public let isHidden: Bool
    public let burstIdentifier: String?
    /// Whether this asset is its burst's representative (the one shown when bursts are collapsed).
    public let representsBurst: Bool
    public let burstSelectionTypes: AssetBurstSelectionType
    public let sourceType: AssetSourceType
    public let hasAdjustments: Bool

    // Resource facts.
    public let originalFilename: String
    public let uniformTypeIdentifier: String?
    public let fileSize: Int64
    /// XXH3-128 of the original file: 32 lowercase hexadecimal digits, as `xxhsum -H2` prints.
    public let contentHash: String?
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
        if let latitude = row.latitude, let longitude = row.longitude {
            location = Location(latitude: latitude, longitude: longitude, altitude: row.altitude)
        } else {
            location = nil
        }
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
