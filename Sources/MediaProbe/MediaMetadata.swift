public import Foundation

/// The EXIF orientation of an image: how the stored pixels must be transformed to be displayed upright.
public enum ImageOrientation: UInt8, Sendable, Hashable, CaseIterable {
    /// Stored upright.
    case up = 1
    /// Mirrored left to right.
    case upMirrored = 2
    /// Rotated 180°.
    case down = 3
    /// Mirrored top to bottom.
    case downMirrored = 4
    /// Mirrored, then rotated 270° clockwise (transposed).
    case leftMirrored = 5
    /// Must be rotated 90° clockwise to display (a portrait photo taken with the camera held upright).
    case right = 6
    /// Mirrored, then rotated 90° clockwise (transversed).
    case rightMirrored = 7
    /// Must be rotated 270° clockwise (90° counter-clockwise) to display.
    case left = 8

    /// Whether displaying the image swaps its stored width and height (orientations 5 to 8).
    public var swapsDimensions: Bool { rawValue >= 5 }
}

/// A geographic position, validated: latitude in −90…90, longitude in −180…180, both finite.
public struct GeoLocation: Sendable, Hashable {
    /// Degrees north (negative: south).
    public var latitude: Double
    /// Degrees east (negative: west).
    public var longitude: Double
    /// Metres above sea level (negative: below), when recorded and plausible.
    public var altitude: Double?

    /// Creates a location (no validation: the probe validates what it reads).
    public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }
}

/// Subtype flags mirroring PhotoKit's `PHAssetMediaSubtype` raw values for photos.
public struct MediaSubtypes: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// A panorama (`PHAssetMediaSubtype.photoPanorama`).
    public static let photoPanorama = MediaSubtypes(rawValue: 1 << 0)
    /// A high-dynamic-range photo merged from several exposures (`photoHDR`).
    public static let photoHDR = MediaSubtypes(rawValue: 1 << 1)
    /// A screenshot (`photoScreenshot`).
    public static let photoScreenshot = MediaSubtypes(rawValue: 1 << 2)
    /// The still of a Live Photo (`photoLive`).
    public static let photoLive = MediaSubtypes(rawValue: 1 << 3)
}

/// Where ``MediaMetadata/creationDate`` came from, most trustworthy first.
public enum CreationDateSource: String, Sendable, Hashable {
    /// EXIF `DateTimeOriginal` (with `OffsetTimeOriginal`, or `OffsetTime`).
    case exifDateTimeOriginal
    /// EXIF `DateTimeDigitized` (with `OffsetTimeDigitized`), when there is no `DateTimeOriginal`.
    case exifDateTimeDigitized
    /// EXIF `DateTime` (IFD0, with `OffsetTime`), the last resort among EXIF dates.
    case exifDateTime
    /// QuickTime metadata key `com.apple.quicktime.creationdate` (ISO 8601, usually with an offset).
    case quickTimeCreationDate
    /// The `©day` user data or iTunes-style item (ISO 8601).
    case quickTimeUserData
    /// The movie header's (`mvhd`) creation time: an instant in UTC, no offset.
    case movieHeader
    /// XMP `exif:DateTimeOriginal`, for a file whose EXIF has no usable date.
    case xmpDateTimeOriginal
    /// XMP `photoshop:DateCreated`, for a file whose EXIF has no usable date.
    case xmpDateCreated
    /// XMP `xmp:CreateDate`, for a file whose EXIF has no usable date.
    case xmpCreateDate
}

/// Something in a file's metadata that could not be read, or that was read and not believed.
///
/// A problem never makes a probe fail: the value concerned is left out (nil) and the rest is still reported.
public struct MetadataProblem: Sendable, Hashable, CustomStringConvertible {
    /// The kinds of problems.
    public enum Kind: String, Sendable, Hashable {
        /// The container (box, chunk, segment, IFD) is cut short: it claims more bytes than the file has.
        case truncated
        /// The container structure is malformed (impossible sizes, unknown versions, missing mandatory parts).
        case malformed
        /// The EXIF block is present but libexif could not make sense of it.
        case unreadableEXIF
        /// The EXIF block lies beyond what can be handed to libexif (it reads at most 64 KiB).
        case exifOutOfReach
        /// A date that cannot be parsed.
        case unparseableDate
        /// A date outside the plausible range (before 1826, or more than a day after "now").
        case implausibleDate
        /// A time-zone offset that cannot be parsed or is beyond ±18 hours.
        case invalidTimeZoneOffset
        /// GPS values that cannot be read (missing parts, zero denominators, unknown references).
        case malformedLocation
        /// GPS coordinates outside the globe (|lat| > 90, |lon| > 180, not finite) or exactly 0,0.
        case implausibleLocation
        /// An altitude beyond −12 km…+100 km.
        case implausibleAltitude
        /// Zero, negative or absurd pixel dimensions.
        case implausibleDimensions
        /// An EXIF orientation outside 1…8.
        case invalidOrientation
        /// A duration that is zero-timescale, negative or beyond a week.
        case implausibleDuration
        /// A movie without a video track.
        case noVideoTrack
        /// Two sources of the same value disagree (for instance EXIF pixel size vs. the container's).
        case inconsistent
        /// The probe stopped at one of its safety limits (bytes, reads, boxes, segments).
        case limitReached
    }

    /// What went wrong.
    public var kind: Kind
    /// Which value or structure it concerns (e.g. `DateTimeOriginal`, `GPSLatitude`, `moov/trak`).
    public var field: String
    /// Human-readable details, such as the rejected raw value.
    public var detail: String

    /// Creates a problem.
    public init(_ kind: Kind, field: String, detail: String = "") {
        self.kind = kind
        self.field = field
        self.detail = detail
    }

    public var description: String {
        detail.isEmpty ? "\(kind.rawValue) \(field)" : "\(kind.rawValue) \(field): \(detail)"
    }
}

/// What a file says about itself, validated. Every value is optional: what is missing, unreadable or
/// implausible is nil, with a ``MetadataProblem`` in ``problems`` when something was there but not believed.
public struct MediaMetadata: Sendable, Hashable {
    /// Width in pixels as displayed: already swapped for EXIF orientations 5–8, HEIF `irot` of 90°/270° and
    /// movie track matrices rotating by 90°/270°.
    public var pixelWidth: Int?
    /// Height in pixels as displayed (see ``pixelWidth``).
    public var pixelHeight: Int?
    /// The image's orientation: EXIF `Orientation` for JPEG/TIFF/PNG/WebP/raw files; for HEIF/AVIF the one
    /// equivalent to its `irot`/`imir` transforms. Nil for movies and when absent.
    public var orientation: ImageOrientation?
    /// When the photo or video was taken. See ``creationDateSource``. EXIF wall-clock times without an offset
    /// tag are interpreted in the time zone given to the probe.
    public var creationDate: Date?
    /// The offset from UTC, in seconds east, that the file recorded with ``creationDate`` (EXIF
    /// `OffsetTimeOriginal`, `OffsetTime`, or an ISO 8601 offset). Nil when the file recorded none: then the
    /// date was either interpreted in the caller's time zone (EXIF) or is an absolute instant (`mvhd`).
    public var creationDateOffset: Int?
    /// Which field ``creationDate`` was taken from.
    public var creationDateSource: CreationDateSource?
    /// Where the photo or video was taken.
    public var location: GeoLocation?
    /// The camera or phone maker (EXIF `Make`, QuickTime `com.apple.quicktime.make`).
    public var make: String?
    /// The camera or phone model (EXIF `Model`, QuickTime `com.apple.quicktime.model`).
    public var model: String?
    /// A movie's duration in seconds.
    public var duration: Double?
    /// Subtypes inferred from strong evidence (see ``MediaProbe`` for the rules).
    public var mediaSubtypes: MediaSubtypes = []
    /// Subtypes suggested only by weak evidence, such as a screenshot-like file name; not in ``mediaSubtypes``.
    public var mediaSubtypeHints: MediaSubtypes = []
    /// An identifier shared by the photos of one burst, when the file or its name carries one.
    public var burstIdentifier: String?
    /// The Live Photo pairing identifier (QuickTime `com.apple.quicktime.content.identifier`; Apple maker
    /// note tag 0x11 in stills), shared by a Live Photo's still and its movie.
    public var contentIdentifier: String?
    /// What could not be read or was not believed.
    public var problems: [MetadataProblem] = []

    /// Creates empty metadata.
    public init() {}

    /// Whether a problem of the given kind was recorded.
    public func hasProblem(_ kind: MetadataProblem.Kind) -> Bool {
        problems.contains { $0.kind == kind }
    }
}
