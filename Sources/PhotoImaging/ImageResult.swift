public import Foundation

/// Decoded pixels: RGBA, 8 bits a channel, alpha not premultiplied, rows packed top to bottom
/// (`bytesPerRow == width * 4`).
public struct PixelBuffer: Sendable, Hashable {
    public let width: Int
    public let height: Int
    public let bytes: [UInt8]
    public var bytesPerRow: Int { width * 4 }

    public init(width: Int, height: Int, bytes: [UInt8]) {
        precondition(bytes.count == width * height * 4, "an RGBA8 buffer holds width × height × 4 bytes")
        self.width = width
        self.height = height
        self.bytes = bytes
    }

    /// The pixel at (x, y) as (r, g, b, a).
    public func pixel(x: Int, y: Int) -> (r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        let offset = y * bytesPerRow + x * 4
        return (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
    }
}

/// The image of one result: encoded bytes or pixels.
public enum ImageContent: Sendable, Hashable {
    /// Encoded bytes and their format.
    case encoded(Data, format: ImageOutputFormat)
    /// Decoded RGBA8 pixels.
    case pixels(PixelBuffer)

    /// The encoded bytes, or nil for pixels.
    public var data: Data? {
        if case .encoded(let data, _) = self { return data }
        return nil
    }

    /// The pixels, or nil for encoded bytes.
    public var pixelBuffer: PixelBuffer? {
        if case .pixels(let buffer) = self { return buffer }
        return nil
    }
}

/// Where a result's pixels came from.
public enum ImageResultSource: Sendable, Hashable {
    /// Rendered from the asset's file by this request (or by a concurrent request for the same rendition).
    case rendered
    /// Served from the rendition cache.
    case renditionCache
    /// The thumbnail embedded in the file (EXIF or HEIF).
    case embeddedThumbnail
}

/// One result of an image request (PhotoKit's image and its info dictionary, as typed fields).
public struct ImageResult: Sendable, Hashable {
    /// The image.
    public let content: ImageContent
    /// Its size in pixels, orientation applied.
    public let size: PixelSize
    /// Whether this is a degraded (smaller, faster) result that a final one follows.
    public let isDegraded: Bool
    /// The version of the asset the result shows.
    public let version: ImageVersion
    /// Where the pixels came from.
    public let source: ImageResultSource
    /// The asset the result is for.
    public let assetLocalIdentifier: String
    /// The content hash of the file the result was made from.
    public let sourceContentHash: String?
}

/// What an image request's sequence yields.
public enum ImageRequestEvent: Sendable, Hashable {
    /// Progress of the final result's decode, 0…1 (the share of the file read), for files large enough
    /// for it to matter. Always before the final result.
    case progress(Double)
    /// A result: degraded ones first, the final one last.
    case result(ImageResult)

    /// The result, or nil for progress.
    public var result: ImageResult? {
        if case .result(let result) = self { return result }
        return nil
    }
}
