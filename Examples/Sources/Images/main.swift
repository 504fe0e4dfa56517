// Images of assets: PhotoKit's image manager over libvips — a thumbnail, a degraded image then the final one,
// pixels, the rendition cache, typed errors.
import Foundation
import PhotoImaging
import PhotoLibrary

let base = FileManager.default.temporaryDirectory.appending(path: "photosync-example-\(UUID().uuidString)")
let pictures = base.appending(path: "Pictures")
try FileManager.default.createDirectory(at: pictures, withIntermediateDirectories: true)
// A photo of the repository's samples (64 × 48), referenced in place, as a mirrored folder's files are.
let sample = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appending(path: "../../../Samples/Holidays/Beach/IMG_0101.jpg")
let photo = pictures.appending(path: "IMG_0101.jpg")
try FileManager.default.copyItem(at: sample.standardizedFileURL, to: photo)
let library = try PhotoLibrary(url: base.appending(path: "Library.photosync"))
let identifier = try await library.performChanges {
    let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: photo, options: AssetCreationOptions(storage: .referenced))
    return request.placeholderForCreatedAsset!.localIdentifier
}
let asset = try library.fetchAssets(withLocalIdentifiers: [identifier]).object(at: 0)

// One manager per library; its renditions are cached in the library directory, by content hash.
let manager = try ImageManager(library: library)
let target = PixelSize(square: 32)
let options = ImageRequestOptions(deliveryMode: .opportunistic, outputFormat: .webp(quality: 80))

// Opportunistic: a degraded result may come first (an EXIF thumbnail, a smaller cached rendition), the final
// one always comes last. Cancelling the task that iterates stops the render; nothing is delivered after.
var final: ImageResult?
for try await event in manager.requestImage(for: asset, targetSize: target, contentMode: .aspectFit, options: options) {
    guard let result = event.result else { continue }  // progress of a long decode
    print(result.isDegraded ? "degraded" : "final", result.size, result.source, result.content.data?.count ?? 0, "bytes")
    if !result.isDegraded { final = result }
}
// Its size is known before it arrives, from the image's size (orientation applied): the pixel rule.
let expected = try ImageManager.resultSize(
    forDisplayedSize: PixelSize(width: 64, height: 48), targetSize: target, contentMode: .aspectFit)

// The same request again is served from the rendition cache: one lookup, one file read.
var again: ImageResult?
for try await event in manager.requestImage(for: asset, targetSize: target, options: options) { again = event.result }

// Pixels: RGBA8, filling a square (the centre kept), rendered on the calling thread.
let square = try manager.requestImageSynchronously(
    for: asset, targetSize: PixelSize(square: 16), contentMode: .aspectFill,
    options: ImageRequestOptions(deliveryMode: .highQualityFormat, outputFormat: .rgba8))
let pixels = square.content.pixelBuffer!
print("centre pixel", pixels.pixel(x: 8, y: 8))

// Errors are typed: the file gone behind the library's back, and no rendition to fall back on.
try FileManager.default.removeItem(at: photo)
var missing = ""
do throws(ImageError) {
    for try await _ in manager.requestImage(for: asset, targetSize: PixelSize(square: 48), options: options) {}
} catch {
    guard case .fileMissing(let path) = error else { exit(1) }
    missing = path
}
print("file missing:", missing)

precondition(final?.size == expected && expected == PixelSize(width: 32, height: 24) && final?.source == .rendered)
precondition(again?.source == .renditionCache && again?.content == final?.content)
precondition(pixels.width == 16 && pixels.height == 16 && pixels.bytes.count == 16 * 16 * 4)
precondition(missing == photo.path)
try FileManager.default.removeItem(at: base)
