public import PhotoLibrary

/// Every error PhotoImaging throws: what went wrong, with what a caller needs to act. A request that fails
/// leaves nothing behind (no partial rendition, no open file).
public enum ImageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The asset's file is not where the library says (a referenced file deleted or unmounted, a copied
    /// original removed).
    case fileMissing(path: String)
    /// The file exists but can't be read.
    case fileUnreadable(path: String, reason: String)
    /// No loader recognises the file (or it is a kind of file this module refuses, such as a PDF).
    case unsupportedFormat(path: String, reason: String)
    /// The file is damaged: truncated, corrupt, or its decoder failed.
    case corruptImage(path: String, reason: String)
    /// The image declares more pixels than ``ImageManager/Configuration/maximumPixelCount``: a
    /// decompression bomb or an absurd size. Nothing was decoded.
    case imageTooLarge(width: Int, height: Int, limit: Int)
    /// The request itself is invalid (a target size of zero, a crop rectangle outside the unit square…).
    case invalidRequest(String)
    /// The asset has no image (audio, or a type that could not be told).
    case noImage(localIdentifier: String)
    /// The rendition cache directory can't be written.
    case cacheUnavailable(path: String, reason: String)
    /// Encoding the result failed (for example AVIF without an encoder).
    case encodingFailed(reason: String)
    /// The library failed (the asset is gone, the database is unreadable…).
    case library(PhotoLibraryError)
    /// The request was cancelled. Requests ended by cancelling their task end quietly instead; this is
    /// thrown by calls that can't end quietly (pre-rendering, synchronous requests on a cancelled manager).
    case cancelled

    public var description: String {
        switch self {
        case .fileMissing(let path): "file missing: \(path)"
        case .fileUnreadable(let path, let reason): "can't read \(path): \(reason)"
        case .unsupportedFormat(let path, let reason): "unsupported image \(path): \(reason)"
        case .corruptImage(let path, let reason): "damaged image \(path): \(reason)"
        case .imageTooLarge(let width, let height, let limit):
            "image too large: \(width)×\(height) is over the limit of \(limit) pixels"
        case .invalidRequest(let message): "invalid request: \(message)"
        case .noImage(let identifier): "asset \(identifier) has no image"
        case .cacheUnavailable(let path, let reason): "rendition cache unavailable at \(path): \(reason)"
        case .encodingFailed(let reason): "encoding failed: \(reason)"
        case .library(let error): error.description
        case .cancelled: "cancelled"
        }
    }
}
