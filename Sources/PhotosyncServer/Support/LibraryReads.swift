import Foundation
import PhotoLibrary
import PhotosyncWire
import SyncWorker

/// The reads the routes share: objects by identifier (404 when unknown), and their wire forms.
struct LibraryReads: Sendable {
    let library: PhotoLibrary

    /// The asset with this identifier, hidden or not.
    ///
    /// - Throws: ``APIError``: 404 for an unknown identifier.
    func asset(_ identifier: String) throws(APIError) -> Asset {
        let found: Asset?
        do throws(PhotoLibraryError) { found = try library.asset(withLocalIdentifier: identifier) } catch { throw APIError(error) }
        guard let found else { throw .notFound("no asset with identifier \(identifier)") }
        return found
    }

    /// The assets with these identifiers, in that order.
    ///
    /// - Throws: ``APIError``: 400 naming the first identifier of no asset (the identifiers come from a
    ///   request's body).
    func assets(_ identifiers: [String]) throws(APIError) -> [Asset] {
        guard !identifiers.isEmpty else { return [] }
        do {
            let result = try library.fetchAssets(withLocalIdentifiers: identifiers)
            let found = try result.objects(in: 0..<result.count)
            let known = Set(found.map(\.localIdentifier))
            if let missing = identifiers.first(where: { !known.contains($0) }) {
                throw APIError.invalidRequest("no asset with identifier \(missing)")
            }
            return found
        } catch let error as APIError {
            throw error
        } catch {
            throw APIError(error as? PhotoLibraryError ?? .database(code: 0, message: "\(error)"))
        }
    }

    /// The album, smart album or moment with this identifier.
    ///
    /// - Throws: ``APIError``: 404 for an unknown identifier.
    func collection(_ identifier: String) throws(APIError) -> AssetCollection {
        do {
            for type in [AssetCollectionType.album, .smartAlbum, .moment] {
                let result = try library.fetchAssetCollections(
                    with: type, options: FetchOptions(predicate: FetchFilter(AssetCollection.localIdentifier == identifier)))
                if result.count > 0 { return try result.object(at: 0) }
            }
        } catch {
            throw APIError(error)
        }
        throw .notFound("no album with identifier \(identifier)")
    }

    /// The wire form of an album: its mirrored directory and its parent folder.
    func wire(_ collection: AssetCollection, paths: MirrorPaths) throws(APIError) -> Wire.Album {
        do {
            let parent = try library.fetchCollectionLists(containing: collection)
            return Wire.Album(
                collection, path: paths.directoryPath(ofAlbum: collection.localIdentifier),
                parent: parent.count > 0 ? try parent.object(at: 0).localIdentifier : nil, timeZone: library.momentTimeZone)
        } catch {
            throw APIError(error)
        }
    }

    /// The wire form of an asset.
    func wire(_ asset: Asset, paths: MirrorPaths) -> Wire.Asset {
        Wire.Asset(asset, path: paths.relativePath(of: asset), timeZone: library.momentTimeZone)
    }

    /// The mirrored folders (and, with `directories`, their albums' directories).
    func mirrorPaths(directories: Bool = false) throws(APIError) -> MirrorPaths {
        do { return try MirrorPaths(library: library, includeDirectories: directories) } catch { throw APIError(error) }
    }

    /// The current change token.
    func currentToken() throws(APIError) -> ChangeToken {
        do { return try library.currentChangeToken } catch { throw APIError(error) }
    }
}
