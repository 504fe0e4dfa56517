// Mirroring a folder: the sync worker keeps a library in step with a folder of photos, by content.
import Foundation
import PhotoLibrary
import SyncWorker

/// A JPEG skeleton, without pixels: start of image, a comment holding `text` (so that each file's content
/// differs), a frame header (64 × 48), a token scan, end of image. Media are recognised by their content,
/// never by name; a camera's photos mirror the same way.
func jpeg(_ text: String) -> Data {
    let comment = Array(text.utf8)  // under 250 bytes
    return Data(
        [0xFF, 0xD8, 0xFF, 0xFE, 0, UInt8(comment.count + 2)] + comment + [0xFF, 0xC0, 0, 11, 8, 0, 48, 0, 64, 1, 1, 0x11, 0]
            + [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 0x3F, 0, 0x12, 0x34, 0xFF, 0xD9])
}

/// One pass over the folder. Every failure is a `SyncError`; a failure of the library itself carries its
/// `PhotoLibraryError` as `underlying`.
func scan(_ mirror: FolderMirror) async -> ScanSummary {
    do {
        return try await mirror.scan()
    } catch {
        if let libraryError = error.underlying {
            print("the library failed:", libraryError, libraryError.code)
        } else {
            print("the folder was refused:", error.kind, error.message)  // missing, unmounted, mass deletion…
        }
        exit(1)
    }
}

let base = FileManager.default.temporaryDirectory.appending(path: "photosync-example-\(UUID().uuidString)")
let folder = base.appending(path: "Pictures")
try FileManager.default.createDirectory(at: folder.appending(path: "2024/Trip"), withIntermediateDirectories: true)
for path in ["2024/Trip/IMG_0001.jpg", "2024/Trip/IMG_0002.jpg", "2024/IMG_0003.jpg"] {
    try jpeg(path).write(to: folder.appending(path: path))
}
let library = try PhotoLibrary(url: base.appending(path: "Library.photosync"))  // not inside the folder
let mirror = try FolderMirror(library: library, root: folder)

let first = await scan(mirror)
print("inserted", first.inserted)
let sunrise = try library.fetchAssets(options: FetchOptions(predicate: "originalFilename == \"IMG_0001.jpg\"")).object(at: 0)

// A renamed file keeps its asset: same identifier, same albums.
try FileManager.default.moveItem(at: folder.appending(path: "2024/Trip/IMG_0001.jpg"), to: folder.appending(path: "2024/Trip/Sunrise.jpg"))
let second = await scan(mirror)
let renamed = try library.fetchAssets(withLocalIdentifiers: [sunrise.localIdentifier]).object(at: 0)
print("moved", second.moved, renamed.originalFilename)

// Directories became albums (a directory with media) and folders (a directory with media below it).
let albums = try library.fetchAssetCollections(with: .album)
let titles = try albums.objects(in: 0..<albums.count).compactMap(\.localizedTitle).sorted()
print(titles)
precondition(first.inserted == 3 && second.moved == 1 && second.inserted == 0 && second.deleted == 0)
precondition(renamed.originalFilename == "Sunrise.jpg" && renamed.pixelWidth == 64 && titles == ["2024", "Trip"])
try FileManager.default.removeItem(at: base)
