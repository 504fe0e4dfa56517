public import Foundation
public import PhotoLibrary

extension Wire {
    /// An asset (`photosync assets --json`, `show --json`).
    ///
    /// Field names are the asset predicate keys. Decoding also accepts `id` for `localIdentifier`,
    /// `filename` for `originalFilename`, and `location: {"latitude", "longitude", "altitude"}` for the three
    /// flat fields.
    public struct Asset: Sendable, Hashable, Codable {
        public var localIdentifier: String
        /// The path relative to the folder the asset is mirrored from; nil for an asset of no mirrored folder.
        @Nullable public var path: String?
        public var originalFilename: String
        /// `image`, `video`, `audio` or `unknown`.
        public var mediaType: String
        /// Subtype names (`photoPanorama`, `photoLive`, …).
        public var mediaSubtypes: [String]
        public var pixelWidth: Int
        public var pixelHeight: Int
        /// In the capture's own offset when the file recorded one, else in the library's time zone.
        @Nullable public var creationDate: Timestamp?
        @Nullable public var modificationDate: Timestamp?
        public var addedDate: Timestamp
        public var duration: Double
        @Nullable public var latitude: Double?
        @Nullable public var longitude: Double?
        @Nullable public var altitude: Double?
        public var isFavorite: Bool
        public var isHidden: Bool
        @Nullable public var burstIdentifier: String?
        public var representsBurst: Bool
        public var hasAdjustments: Bool
        @Nullable public var uniformTypeIdentifier: String?
        /// XXH3-128 of the original, as `xxhsum -H2` prints it.
        @Nullable public var contentHash: String?
        public var fileSize: Int64

        /// The fields, and the names of earlier versions (read only).
        private enum DecodingKeys: String, CodingKey {
            case localIdentifier, path, originalFilename, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate,
                modificationDate, addedDate, duration, latitude, longitude, altitude, isFavorite, isHidden, burstIdentifier,
                representsBurst, hasAdjustments, uniformTypeIdentifier, contentHash, fileSize
            case id, filename, location
        }

        struct LocationAlias: Decodable {
            var latitude: Double
            var longitude: Double
            var altitude: Double?
        }

        /// Decodes the JSON form, accepting what the type says it accepts.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: DecodingKeys.self)
            localIdentifier = try c.decodeRequired(String.self, .localIdentifier, .id)
            path = try c.decodeIfPresent(String.self, forKey: .path)
            originalFilename = try c.decodeRequired(String.self, .originalFilename, .filename)
            mediaType = try c.decode(String.self, forKey: .mediaType)
            mediaSubtypes = try c.decodeIfPresent([String].self, forKey: .mediaSubtypes) ?? []
            pixelWidth = try c.decodeIfPresent(Int.self, forKey: .pixelWidth) ?? 0
            pixelHeight = try c.decodeIfPresent(Int.self, forKey: .pixelHeight) ?? 0
            creationDate = try c.decodeIfPresent(Timestamp.self, forKey: .creationDate)
            modificationDate = try c.decodeIfPresent(Timestamp.self, forKey: .modificationDate)
            addedDate = try c.decode(Timestamp.self, forKey: .addedDate)
            duration = try c.decodeIfPresent(Double.self, forKey: .duration) ?? 0
            let location = try c.decodeIfPresent(LocationAlias.self, forKey: .location)
            latitude = try c.decodeIfPresent(Double.self, forKey: .latitude) ?? location?.latitude
            longitude = try c.decodeIfPresent(Double.self, forKey: .longitude) ?? location?.longitude
            altitude = try c.decodeIfPresent(Double.self, forKey: .altitude) ?? location?.altitude
            isFavorite = try c.decodeIfPresent(Bool.self, forKey: .isFavorite) ?? false
            isHidden = try c.decodeIfPresent(Bool.self, forKey: .isHidden) ?? false
            burstIdentifier = try c.decodeIfPresent(String.self, forKey: .burstIdentifier)
            representsBurst = try c.decodeIfPresent(Bool.self, forKey: .representsBurst) ?? false
            hasAdjustments = try c.decodeIfPresent(Bool.self, forKey: .hasAdjustments) ?? false
            uniformTypeIdentifier = try c.decodeIfPresent(String.self, forKey: .uniformTypeIdentifier)
            contentHash = try c.decodeIfPresent(String.self, forKey: .contentHash)
            fileSize = try c.decodeIfPresent(Int64.self, forKey: .fileSize) ?? 0
        }
    }
}

extension Wire.Asset {
    /// The wire form of `asset`.
    ///
    /// - Parameters:
    ///   - path: its path relative to the folder it is mirrored from (see ``MirrorPaths``).
    ///   - timeZone: the library's time zone (``PhotoLibrary/momentTimeZone``), for dates without an offset.
    public init(_ asset: Asset, path: String?, timeZone: TimeZone) {
        localIdentifier = asset.localIdentifier
        self.path = path
        originalFilename = asset.originalFilename
        mediaType = asset.mediaType.description
        mediaSubtypes = asset.mediaSubtypes.names
        pixelWidth = asset.pixelWidth
        pixelHeight = asset.pixelHeight
        creationDate = asset.creationDate.map { Wire.Timestamp(capture: $0, offset: asset.creationTimeZoneOffset, timeZone: timeZone) }
        modificationDate = asset.modificationDate.map { Wire.Timestamp($0, timeZone: timeZone) }
        addedDate = Wire.Timestamp(asset.addedDate, timeZone: timeZone)
        duration = asset.duration
        latitude = asset.location?.latitude
        longitude = asset.location?.longitude
        altitude = asset.location?.altitude
        isFavorite = asset.isFavorite
        isHidden = asset.isHidden
        burstIdentifier = asset.burstIdentifier
        representsBurst = asset.representsBurst
        hasAdjustments = asset.hasAdjustments
        uniformTypeIdentifier = asset.uniformTypeIdentifier
        contentHash = asset.contentHash
        fileSize = asset.fileSize
    }
}
