// Embedding: change, fetch and follow a library — and recover when a stored change token has expired.
import Foundation
import PhotoLibrary

// A library and a photo in a temporary directory; an app opens `PhotoLibrary(url: PhotoLibrary.defaultURL)`.
let directory = FileManager.default.temporaryDirectory.appending(path: "photosync-example-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
let photoURL = directory.appending(path: "IMG_0001.jpg")
try Data("a photo's bytes".utf8).write(to: photoURL)
let library = try PhotoLibrary(url: directory.appending(path: "Library.photosync"))

// Change: every request of a block commits in one SQLite transaction, or none does. What the block returns
// is the call's result, once committed.
let albumID = try await library.performChanges(author: "my-app") {
    let asset = AssetChangeRequest.creationRequestForAsset(fromFileAt: photoURL)  // copied into originals/
    asset.isFavorite = true
    asset.creationDate = Date(timeIntervalSince1970: 1_717_243_200)  // 2024-06-01
    let album = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
    album.addAssets([asset.placeholderForCreatedAsset!])
    return album.placeholderForCreatedAssetCollection!.localIdentifier
}

// Fetch: lazy, immutable snapshots. `object(at:)` throws where the subscript would trap on a read error.
let recent = try library.fetchAssets(options: FetchOptions(
    predicate: "mediaType == image AND creationDate >= \"2024-01-01\" AND NOT isHidden",
    sortDescriptors: [FetchSort(key: "creationDate", ascending: false)]))
let trip = try library.fetchAssetCollections(with: .album).object(at: 0)
print(recent.count, try recent.object(at: 0).originalFilename, trip.localizedTitle ?? "-")
precondition(recent.count == 1 && trip.localIdentifier == albumID && trip.estimatedAssetCount == 1)

// Follow: what changed since the token I stored? Returns the token to store next.
func follow(_ library: PhotoLibrary, since token: ChangeToken) async throws -> (next: ChangeToken, resynced: Bool) {
    do throws(PhotoLibraryError) {
        let result = try library.fetchPersistentChanges(since: token)
        var changes = result.makeThrowingIterator()
        while let change = try changes.next() {
            let assets = try change.changeDetails(for: .asset)
            print(change.author, assets.insertedLocalIdentifiers, assets.updatedLocalIdentifiers, assets.deletedLocalIdentifiers)
        }
        return (result.endToken, false)
    } catch {
        // Test the error here: `catch PhotoLibraryError.persistentChangeTokenExpired(let oldest)` crashes
        // swiftc 6.3.1 in async functions like this one.
        guard error.requiresResync else { throw error }  // expired, another library's, ahead, undecodable
        let state = try library.fetchCurrentState()  // the one recovery call: every identifier, and its token
        print("resynced:", state.assetIdentifiers.count, "assets")
        return (state.changeToken, true)
    }
}

let stored = try library.currentChangeToken  // store stored.stringValue
let photo = try recent.object(at: 0)
try await library.performChanges(author: "my-app") { AssetChangeRequest(for: photo).isHidden = true }
let followed = try await follow(library, since: stored)
let current = try library.currentChangeToken
precondition(followed.next == current && !followed.resynced)

// History is kept 30 days by default; a token older than what is kept needs a full resync.
try library.expireHistory(before: current)
let recovered = try await follow(library, since: stored)
precondition(recovered.resynced && recovered.next == current)
try FileManager.default.removeItem(at: directory)
