import Foundation
import PhotoLibrary

/// The file a request reads for an asset, as the library knows it now.
struct AssetSource: Sendable {
    let localIdentifier: String
    let path: String
    /// XXH3-128 of the file, when the library knows it: the rendition cache's key.
    let contentHash: String?
    let fileSize: Int64
    let mediaType: AssetMediaType
    /// The size as displayed, when the library knows it (0×0 otherwise).
    let displayedSize: PixelSize
    /// The version the file shows.
    let version: ImageVersion
    let uniformTypeIdentifier: String?

    var isVideo: Bool { mediaType == .video }
}

extension ImageManager {
    /// Reads the asset's current state (the snapshot given may be stale: a file renamed or edited since)
    /// and picks the file of `version`: for ``ImageVersion/current`` the rendered edit when the asset has
    /// one, else (and for ``ImageVersion/unadjusted`` and ``ImageVersion/original``, which are the same file
    /// here: photosync keeps no RAW+JPEG pairs) the original.
    ///
    /// - Throws: ``ImageError/library(_:)`` when the asset is gone, ``ImageError/noImage(localIdentifier:)``
    ///   for audio, ``ImageError/fileMissing(path:)`` when the library knows no file for it.
    func resolveSource(of asset: Asset, version: ImageVersion) throws(ImageError) -> AssetSource {
        let found: Asset?
        do { found = try library.fetchAsset(withLocalIdentifier: asset.localIdentifier) } catch { throw .library(error) }
        guard let current = found else { throw .library(.objectNotFound(localIdentifier: asset.localIdentifier)) }
        guard current.mediaType != .audio else { throw .noImage(localIdentifier: current.localIdentifier) }
        if version == .current, current.hasAdjustments, let edit = try adjustment(of: current) {
            return AssetSource(
                localIdentifier: current.localIdentifier, path: edit.renderedFileURL.path,
                contentHash: edit.renderedContentHash, fileSize: edit.renderedFileSize, mediaType: .image,
                displayedSize: PixelSize(width: 0, height: 0), version: .current,
                uniformTypeIdentifier: edit.renderedUniformTypeIdentifier)
        }
        guard let url = current.fileURL(in: library) else { throw .fileMissing(path: current.originalFilename) }
        return AssetSource(
            localIdentifier: current.localIdentifier, path: url.path, contentHash: current.contentHash,
            fileSize: current.fileSize, mediaType: current.mediaType,
            displayedSize: PixelSize(width: current.pixelWidth, height: current.pixelHeight), version: version,
            uniformTypeIdentifier: current.uniformTypeIdentifier)
    }

    /// The asset's edit, read from the library.
    private func adjustment(of asset: Asset) throws(ImageError) -> AssetAdjustment? {
        do { return try library.fetchAdjustment(for: asset) } catch { throw .library(error) }
    }
}
