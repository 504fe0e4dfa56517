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
        public var path: String?
        public var originalFilename: String
        /// `image`, `video`, `audio` or `unknown`.
        public var mediaType: String
        /// Subtype names (`photoPanorama`, `photoLive`, …).
        public var mediaSubtypes: [String]
        public var pixelWidth: Int
        public var pixelHeight: Int
        /// In the capture's own offset when the file recorded one, else in the library's time zone.
        public var creationDate: Timestamp?
        public var modificationDate: Timestamp?
        public var addedDate: Timestamp
        public var duration: Double
        public var latitude: Double?
        public var longitude: Double?
        public var altitude: Double?
        public var isFavorite: Bool
        public var isHidden: Bool
        public var burstIdentifier: String?
        public var representsBurst: Bool
        public var hasAdjustments: Bool
        public var uniformTypeIdentifier: String?
        /// XXH3-128 of the original, as `xxhsum -H2` prints it.
        public var contentHash: String?
        public var fileSize: Int64

        enum CodingKeys: String, CodingKey {
            case localIdentifier, path, originalFilename, mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate,
                modificationDate, addedDate, duration, latitude, longitude, altitude, isFavorite, isHidden, burstIdentifier,
                representsBurst, hasAdjustments, uniformTypeIdentifier, contentHash, fileSize
            // Aliases, read only.
            case id, filename, location
        }

        struct LocationAlias: Decodable {
            var latitude: Double
            var longitude: Double
            var altitude: Double?
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
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

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(localIdentifier, forKey: .localIdentifier)
            try c.encode(path, forKey: .path)
            try c.encode(originalFilename, forKey: .originalFilename)
            try c.encode(mediaType, forKey: .mediaType)
            try c.encode(mediaSubtypes, forKey: .mediaSubtypes)
            try c.encode(pixelWidth, forKey: .pixelWidth)
            try c.encode(pixelHeight, forKey: .pixelHeight)
            try c.encode(creationDate, forKey: .creationDate)
            try c.encode(modificationDate, forKey: .modificationDate)
            try c.encode(addedDate, forKey: .addedDate)
            try c.encode(duration, forKey: .duration)
            try c.encode(latitude, forKey: .latitude)
            try c.encode(longitude, forKey: .longitude)
            try c.encode(altitude, forKey: .altitude)
            try c.encode(isFavorite, forKey: .isFavorite)
            try c.encode(isHidden, forKey: .isHidden)
            try c.encode(burstIdentifier, forKey: .burstIdentifier)
            try c.encode(representsBurst, forKey: .representsBurst)
            try c.encode(hasAdjustments, forKey: .hasAdjustments)
            try c.encode(uniformTypeIdentifier, forKey: .uniformTypeIdentifier)
            try c.encode(contentHash, forKey: .contentHash)
            try c.encode(fileSize, forKey: .fileSize)
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
