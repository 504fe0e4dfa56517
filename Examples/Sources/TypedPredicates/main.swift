// Typed predicates: filters and sort orders built from typed keys, checked by the compiler.
import Foundation
import PhotoLibrary  // brings the typed keys and their operators: no other import

let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-example-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let library = try PhotoLibrary(url: directory.appending(path: "Library.photosync"))
let photos: [(name: String, width: Int, favourite: Bool)] = [("small.jpg", 800, true), ("wide.jpg", 4000, true), ("large.jpg", 3000, false)]
for photo in photos {
    try Data(photo.name.utf8).write(to: directory.appending(path: photo.name))
}
try await library.performChanges {
    for photo in photos {
        let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: directory.appending(path: photo.name))
        request.pixelWidth = photo.width
        request.isFavorite = photo.favourite
    }
}

// Large favourite images, widest first: the typed form…
let typed = try library.fetchAssets(options: FetchOptions(
    predicate: FetchFilter(Asset.isFavorite && Asset.pixelWidth > 2000 && Asset.mediaType == .image),
    sortDescriptors: [FetchSort(Asset.pixelWidth, ascending: false)]))
// …and the same in text, parsed and checked against the asset keys when the fetch runs.
let text = try library.fetchAssets(options: FetchOptions(
    predicate: "isFavorite AND pixelWidth > 2000 AND mediaType == image", sortDescriptors: try FetchSort.parseList("-pixelWidth")))

let found = try typed.objects(in: 0..<typed.count)
print(found.map(\.originalFilename))
precondition(found.map(\.originalFilename) == ["wide.jpg"])
let foundByText = try text.objects(in: 0..<text.count)
precondition(foundByText.map(\.localIdentifier) == found.map(\.localIdentifier))
try FileManager.default.removeItem(at: directory)
