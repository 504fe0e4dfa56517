/// A size in pixels.
public struct PixelSize: Sendable, Hashable, Codable, CustomStringConvertible {
    public var width: Int
    public var height: Int

    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// A square size.
    public init(square side: Int) { self.init(width: side, height: side) }

    public var description: String { "\(width)×\(height)" }
}

/// How the image is sized into the target size. Raw values are PhotoKit's.
public enum ContentMode: Int, Sendable, Hashable, Codable {
    /// Scaled to fit entirely inside the target size, keeping its aspect ratio.
    case aspectFit = 0
    /// Scaled to fill the target size, keeping its aspect ratio, then cut to it (centred).
    case aspectFill = 1
}

/// What a request delivers, and when. Raw values are PhotoKit's.
public enum DeliveryMode: Int, Sendable, Hashable, Codable {
    /// A degraded result first, as fast as possible (the file's embedded thumbnail, or a smaller cached
    /// rendition), then the final one. When the final one is ready first, only it is delivered.
    case opportunistic = 0
    /// One result, the final one.
    case highQualityFormat = 1
    /// One result, as fast as possible: the final one when it is cached, else a degraded one when there is
    /// one (then marked ``ImageResult/isDegraded``, and no final result follows), else the final one. The
    /// main image is not decoded when a degraded result is served, so a damaged file with an intact embedded
    /// thumbnail delivers that thumbnail rather than an error.
    case fastFormat = 2
}

/// How exactly the result matches the target size. Raw values are PhotoKit's.
public enum ResizeMode: Int, Sendable, Hashable, Codable {
    /// No resizing: the whole image (or the crop) at its full size; the target size only chooses nothing.
    case none = 0
    /// A result close to the exact size: a cached rendition whose sides are within 1–2× of the exact
    /// size is served as it is; otherwise the exact result is rendered.
    case fast = 1
    /// Exactly the size given by the pixel rule (see ``ImageManager``).
    case exact = 2
}

/// Which version of an edited asset a request reads. Raw values are PhotoKit's.
public enum ImageVersion: Int, Sendable, Hashable, Codable {
    /// With the asset's adjustments (its rendered edit), when it has any.
    case current = 0
    /// Before any adjustment.
    case unadjusted = 1
    /// The original file, as imported or mirrored.
    case original = 2
}

/// The encoding of a result.
public enum ImageOutputFormat: Sendable, Hashable, Codable {
    /// JPEG, quality 1–100. Alpha is flattened on white.
    case jpeg(quality: Int)
    /// WebP (lossy), quality 1–100, alpha kept.
    case webp(quality: Int)
    /// PNG, alpha kept.
    case png
    /// AVIF (AV1 in HEIF), quality 1–100, alpha kept.
    case avif(quality: Int)
    /// Decoded pixels: RGBA, 8 bits a channel, alpha not premultiplied, rows packed top to bottom.
    case rgba8

    /// The file name extension of the encoding (`rgba` for pixels).
    public var fileExtension: String {
        switch self {
        case .jpeg: "jpg"
        case .webp: "webp"
        case .png: "png"
        case .avif: "avif"
        case .rgba8: "rgba"
        }
    }

    /// The uniform type identifier of the encoding; nil for pixels.
    public var uniformTypeIdentifier: String? {
        switch self {
        case .jpeg: "public.jpeg"
        case .webp: "org.webmproject.webp"
        case .png: "public.png"
        case .avif: "public.avif"
        case .rgba8: nil
        }
    }
}

/// A rectangle in unit coordinates of the image as displayed (orientation applied): origin top-left, x to
/// the right, y down, each of `x`, `y`, `width`, `height` in 0…1 with `x + width ≤ 1` and `y + height ≤ 1`.
public struct NormalizedRect: Sendable, Hashable, Codable {
    public var x: Double
    public var y: Double
    public var width: Double
    public var height: Double

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The whole image.
    public static let unit = NormalizedRect(x: 0, y: 0, width: 1, height: 1)
}

/// Options of one image request (PhotoKit's `PHImageRequestOptions`, without the callbacks: results and
/// progress arrive through the request's async sequence).
public struct ImageRequestOptions: Sendable, Hashable {
    /// Default ``DeliveryMode/opportunistic``, as PhotoKit.
    public var deliveryMode: DeliveryMode
    /// Default ``ResizeMode/fast``, as PhotoKit.
    public var resizeMode: ResizeMode
    /// The part of the image to deliver; nil for all of it. Honoured in every resize mode (PhotoKit
    /// honours it only with `.exact`, and ignores it silently otherwise).
    public var normalizedCropRect: NormalizedRect?
    /// Default ``ImageVersion/current``.
    public var version: ImageVersion
    /// Default JPEG at quality 85.
    public var outputFormat: ImageOutputFormat
    /// Whether the final result is kept in (and served from) the rendition cache. Default true.
    public var allowsCaching: Bool

    public init(
        deliveryMode: DeliveryMode = .opportunistic, resizeMode: ResizeMode = .fast,
        normalizedCropRect: NormalizedRect? = nil, version: ImageVersion = .current,
        outputFormat: ImageOutputFormat = .jpeg(quality: 85), allowsCaching: Bool = true
    ) {
        self.deliveryMode = deliveryMode
        self.resizeMode = resizeMode
        self.normalizedCropRect = normalizedCropRect
        self.version = version
        self.outputFormat = outputFormat
        self.allowsCaching = allowsCaching
    }
}
