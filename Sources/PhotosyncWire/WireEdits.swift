extension Wire {
    /// A field of an edit: left as it is (the key is absent), cleared (`null`) or set.
    public enum FieldEdit<Value: Codable & Sendable & Hashable>: Sendable, Hashable {
        case keep
        case clear
        case set(Value)

        /// The value set; nil for `keep` and `clear`.
        public var value: Value? {
            if case .set(let value) = self { return value }
            return nil
        }
    }

    /// A place: latitude and longitude in degrees, altitude in metres (or null).
    public struct Location: Sendable, Hashable, Codable {
        public var latitude: Double
        public var longitude: Double
        @Nullable public var altitude: Double?

        /// A value with these fields.
        public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case latitude, longitude, altitude
        }

        /// Decodes the JSON form; an unknown field is an error.
        public init(from decoder: any Decoder) throws {
            try StrictFields.check(decoder, allowed: CodingKeys.allCases.map(\.stringValue))
            let c = try decoder.container(keyedBy: CodingKeys.self)
            latitude = try c.decode(Double.self, forKey: .latitude)
            longitude = try c.decode(Double.self, forKey: .longitude)
            altitude = try c.decodeIfPresent(Double.self, forKey: .altitude)
        }
    }

    /// The body of `PATCH /v1/assets/{id}`: the properties to change; absent ones stay as they are.
    ///
    /// `creationDate` and `location` may be `null` to clear them. An unknown field is an error, so that a
    /// mistyped name never silently changes nothing.
    public struct AssetEdit: Sendable, Hashable, Codable {
        public var isFavorite: Bool?
        public var isHidden: Bool?
        public var creationDate: FieldEdit<Timestamp>
        public var location: FieldEdit<Location>

        /// An edit of these fields.
        public init(isFavorite: Bool? = nil, isHidden: Bool? = nil, creationDate: FieldEdit<Timestamp> = .keep,
                    location: FieldEdit<Location> = .keep) {
            self.isFavorite = isFavorite
            self.isHidden = isHidden
            self.creationDate = creationDate
            self.location = location
        }

        /// Whether the edit changes nothing.
        public var isEmpty: Bool { isFavorite == nil && isHidden == nil && creationDate == .keep && location == .keep }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case isFavorite, isHidden, creationDate, location
        }

        /// Decodes the JSON form; an unknown field is an error.
        public init(from decoder: any Decoder) throws {
            try StrictFields.check(decoder, allowed: CodingKeys.allCases.map(\.stringValue))
            let c = try decoder.container(keyedBy: CodingKeys.self)
            isFavorite = try c.decodeIfPresent(Bool.self, forKey: .isFavorite)
            isHidden = try c.decodeIfPresent(Bool.self, forKey: .isHidden)
            creationDate = try c.decodeEdit(Timestamp.self, forKey: .creationDate)
            location = try c.decodeEdit(Location.self, forKey: .location)
        }

        /// Encodes the JSON form: kept fields are left out, cleared ones are `null`.
        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encodeIfPresent(isFavorite, forKey: .isFavorite)
            try c.encodeIfPresent(isHidden, forKey: .isHidden)
            try c.encodeEdit(creationDate, forKey: .creationDate)
            try c.encodeEdit(location, forKey: .location)
        }
    }

    /// The body of `POST /v1/albums`: a new album's title, and the assets it starts with.
    public struct NewAlbum: Sendable, Hashable, Codable {
        public var title: String
        public var assets: [String]

        /// A value with these fields.
        public init(title: String, assets: [String] = []) {
            self.title = title
            self.assets = assets
        }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case title, assets
        }

        /// Decodes the JSON form; an unknown field is an error.
        public init(from decoder: any Decoder) throws {
            try StrictFields.check(decoder, allowed: CodingKeys.allCases.map(\.stringValue))
            let c = try decoder.container(keyedBy: CodingKeys.self)
            title = try c.decode(String.self, forKey: .title)
            assets = try c.decodeIfPresent([String].self, forKey: .assets) ?? []
        }
    }

    /// The body of `PATCH /v1/albums/{id}`: a new title, assets to add (appended, in order) and assets to
    /// remove — all in one transaction.
    public struct AlbumEdit: Sendable, Hashable, Codable {
        public var title: String?
        public var addAssets: [String]
        public var removeAssets: [String]

        /// A value with these fields.
        public init(title: String? = nil, addAssets: [String] = [], removeAssets: [String] = []) {
            self.title = title
            self.addAssets = addAssets
            self.removeAssets = removeAssets
        }

        /// Whether the edit changes nothing.
        public var isEmpty: Bool { title == nil && addAssets.isEmpty && removeAssets.isEmpty }

        private enum CodingKeys: String, CodingKey, CaseIterable {
            case title, addAssets, removeAssets
        }

        /// Decodes the JSON form; an unknown field is an error.
        public init(from decoder: any Decoder) throws {
            try StrictFields.check(decoder, allowed: CodingKeys.allCases.map(\.stringValue))
            let c = try decoder.container(keyedBy: CodingKeys.self)
            title = try c.decodeIfPresent(String.self, forKey: .title)
            addAssets = try c.decodeIfPresent([String].self, forKey: .addAssets) ?? []
            removeAssets = try c.decodeIfPresent([String].self, forKey: .removeAssets) ?? []
        }
    }
}

/// Rejects objects with fields a shape doesn't have.
enum StrictFields {
    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Throws `DecodingError.dataCorrupted` naming the first field of the object not in `allowed`.
    static func check(_ decoder: any Decoder, allowed: [String]) throws {
        let container = try decoder.container(keyedBy: AnyKey.self)
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue }) where !allowed.contains(key.stringValue) {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: decoder.codingPath + [key],
                debugDescription: "unknown field \"\(key.stringValue)\" (the fields are \(allowed.joined(separator: ", ")))"))
        }
    }
}

extension KeyedDecodingContainer {
    /// A field that may be absent (keep), `null` (clear) or a value (set).
    func decodeEdit<Value>(_ type: Value.Type, forKey key: Key) throws -> Wire.FieldEdit<Value> {
        guard contains(key) else { return .keep }
        if try decodeNil(forKey: key) { return .clear }
        return .set(try decode(Value.self, forKey: key))
    }
}

extension KeyedEncodingContainer {
    /// Writes an edit: nothing for keep, `null` for clear.
    mutating func encodeEdit<Value>(_ edit: Wire.FieldEdit<Value>, forKey key: Key) throws {
        switch edit {
        case .keep: break
        case .clear: try encodeNil(forKey: key)
        case .set(let value): try encode(value, forKey: key)
        }
    }
}
