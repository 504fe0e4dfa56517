// Observing: an actor and a class holding a Mutex, told of every transaction once, in commit order.
import Foundation
import PhotoLibrary
import Synchronization

/// An actor observer keeps a fetch result of albums up to date with each change's details.
actor AlbumList: PhotoLibraryChangeObserver {
    private(set) var albums: FetchResult<AssetCollection>

    init(_ albums: FetchResult<AssetCollection>) { self.albums = albums }

    func photoLibraryDidChange(_ change: Change) {
        guard let details = change.changeDetails(for: albums) else { return }
        albums = details.fetchResultAfterChanges  // a UI would apply removed/inserted/moved/changed indexes
    }

    var titles: [String] { albums.map { $0.localizedTitle ?? "" } }
}

/// A final class observer: its state in a Mutex makes it Sendable, no `@unchecked` needed.
final class ChangeLog: PhotoLibraryChangeObserver {
    let authors = Mutex<[String]>([])

    func photoLibraryDidChange(_ change: Change) {
        authors.withLock { $0.append(change.author) }
    }
}

let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-example-\(UUID().uuidString)")
let library = try PhotoLibrary(url: directory.appending(path: "Library.photosync"))
let albumList = AlbumList(try library.fetchAssetCollections(with: .album))
let log = ChangeLog()
try library.register(albumList)  // held weakly: keep your observers alive
try library.register(log)

// Another handle on the same library stands for another process: its commits are observed too.
let otherProcess = try PhotoLibrary(url: library.url)
for (handle, title) in [(library, "Trip"), (otherProcess, "Family"), (library, "Work")] {
    try await handle.performChanges(author: title) {
        _ = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
    }
}

// Deliveries are asynchronous: wait until both observers have seen the three transactions.
let deadline = ContinuousClock.now + .seconds(30)
while await albumList.titles.count < 3 || log.authors.withLock({ $0.count }) < 3 {
    precondition(ContinuousClock.now < deadline, "the observers were not told of every change")
    try await Task.sleep(for: .milliseconds(10))
}
let titles = await albumList.titles
let authors = log.authors.withLock { $0 }
print(titles, authors)
precondition(titles == ["Trip", "Family", "Work"] && authors == ["Trip", "Family", "Work"])
try FileManager.default.removeItem(at: directory)
