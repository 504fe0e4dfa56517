public import Foundation
public import PhotoLibrary

extension Wire {
    /// An album, smart album or moment (`photosync albums --json`).
    ///
    /// Field names are the collection predicate keys. Decoding also accepts `id`, `title`, `type`, `subtype`
    /// and `count`, the names earlier versions wrote.
    public struct Album: Sendable, Hashable, Codable {
        public var localIdentifier: String
        @Nullable public var localizedTitle: String?
        /// `album`, `smartAlbum` or `moment`.
        public var assetCollectionType: String
        /// `albumRegular`, `smartAlbumFavorites`, …
        public var assetCollectionSubtype: String
        /// Members, hidden assets included.
        public var estimatedAssetCount: Int
        @Nullable public var startDate: Timestamp?
        @Nullable public var endDate: Timestamp?
        /// The mirrored directory the album stands for, relative to its folder (`""` for the folder itself);
        /// nil for an album of no mirrored directory.
        @Nullable public var path: String?
        /// The local identifier of the folder (collection list) holding it, or nil.
        @Nullable public var parent: String?

        /// A value with these fields.
        public init(
            localIdentifier: String, localizedTitle: String?, assetCollectionType: String, assetCollectionSubtype: String,
            estimatedAssetCount: Int, startDate: Timestamp?, endDate: Timestamp?, path: String?, parent: String?
        ) {
            self.localIdentifier = localIdentifier
            self.localizedTitle = localizedTitle
            self.assetCollectionType = assetCollectionType
            self.assetCollectionSubtype = assetCollectionSubtype
            self.estimatedAssetCount = estimatedAssetCount
            self.startDate = startDate
            self.endDate = endDate
            self.path = path
            self.parent = parent
        }

        /// The fields, and the names of earlier versions (read only).
        private enum DecodingKeys: String, CodingKey {
            case localIdentifier, localizedTitle, assetCollectionType, assetCollectionSubtype, estimatedAssetCount, startDate,
                endDate, path, parent
            case id, title, type, subtype, count
        }

        /// Decodes the JSON form, accepting what the type says it accepts.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: DecodingKeys.self)
            localIdentifier = try c.decodeRequired(String.self, .localIdentifier, .id)
            localizedTitle = try c.decodeFirst(String.self, .localizedTitle, .title)
            assetCollectionType = try c.decodeRequired(String.self, .assetCollectionType, .type)
            assetCollectionSubtype = try c.decodeRequired(String.self, .assetCollectionSubtype, .subtype)
            estimatedAssetCount = try c.decodeFirst(Int.self, .estimatedAssetCount, .count) ?? 0
            startDate = try c.decodeIfPresent(Timestamp.self, forKey: .startDate)
            endDate = try c.decodeIfPresent(Timestamp.self, forKey: .endDate)
            path = try c.decodeIfPresent(String.self, forKey: .path)
            parent = try c.decodeIfPresent(String.self, forKey: .parent)
        }
    }
}

extension Wire.Album {
    /// The wire form of `collection`.
    ///
    /// - Parameters:
    ///   - path: the mirrored directory it stands for (see ``MirrorPaths``).
    ///   - parent: the identifier of the folder holding it.
    ///   - timeZone: the library's time zone, for its dates.
    public init(_ collection: AssetCollection, path: String?, parent: String?, timeZone: TimeZone) {
        self.init(
            localIdentifier: collection.localIdentifier, localizedTitle: collection.localizedTitle,
            assetCollectionType: collection.assetCollectionType.description,
            assetCollectionSubtype: collection.assetCollectionSubtype.description,
            estimatedAssetCount: collection.estimatedAssetCount,
            startDate: collection.startDate.map { Wire.Timestamp($0, timeZone: timeZone) },
            endDate: collection.endDate.map { Wire.Timestamp($0, timeZone: timeZone) }, path: path, parent: parent)
    }
}
