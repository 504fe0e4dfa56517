public import Foundation
public import PhotoLibrary

/// An asset's file as stored: PhotoKit's `requestImageDataAndOrientation` result.
public struct ImageData: Sendable, Hashable {
    /// The file's bytes.
    public let data: Data
    /// Its type identifier (`public.jpeg`, `public.heic`…), when known.
    public let uniformTypeIdentifier: String?
    /// The EXIF orientation (1–8) a viewer must apply; 1 when the file records none.
    public let orientation: Int
    /// The version the bytes are.
    public let version: ImageVersion
}

extension ImageManager {
    /// The bytes of an asset's file, its type identifier and orientation (the largest representation,
    /// unmodified).
    ///
    /// - Throws: ``ImageError/fileMissing(path:)``, ``ImageError/fileUnreadable(path:reason:)``,
    ///   ``ImageError/library(_:)``, ``ImageError/cancelled``.
    public func requestImageDataAndOrientation(
        for asset: Asset, version: ImageVersion = .current
    ) async throws(ImageError) -> ImageData {
        let source = try resolveSource(of: asset, version: version)
        let control = RenderControl()
        return try await pool.perform(priority: .userInitiated, control: control) { () throws(ImageError) in
            let file = try ImageFile(path: source.path)
            control.attach(fd: file.descriptor, size: file.byteCount)
            let orientation = (try? ImageHeader.read(file, control: control))?.orientation ?? 1
            let data: Data
            do { data = try Data(contentsOf: URL(fileURLWithPath: source.path), options: .uncached) } catch {
                throw .fileUnreadable(path: source.path, reason: "\(error.localizedDescription)")
            }
            try control.check()
            return ImageData(
                data: data, uniformTypeIdentifier: source.uniformTypeIdentifier, orientation: orientation,
                version: source.version)
        }
    }

    /// The file to play a video from (PhotoKit's `requestPlayerItem`/`requestAVAsset` on Linux): the
    /// original in the library's store or the mirrored file in place.
    ///
    /// - Throws: ``ImageError/noImage(localIdentifier:)`` when the asset is not a video,
    ///   ``ImageError/fileMissing(path:)`` when the file is gone, ``ImageError/library(_:)``.
    public func playbackURL(for asset: Asset) throws(ImageError) -> URL {
        let source = try resolveSource(of: asset, version: .current)
        guard source.isVideo else { throw .noImage(localIdentifier: asset.localIdentifier) }
        guard FileManager.default.fileExists(atPath: source.path) else { throw .fileMissing(path: source.path) }
        return URL(fileURLWithPath: source.path)
    }
}
