import FetchPredicate
import Foundation
import PhotoLibrary
import SyncWorker
import PhotosyncWire

/// An album named on the command line: by local identifier, the path of the mirrored directory it stands
/// for (relative to the mirrored folder — `.` for the folder itself — or absolute), or a unique part of an
/// identifier: its start or any other run of it, such as its last digits (identifiers are time-ordered, so
/// those of albums created together share their start). Smart albums and moments are found by identifier too.
enum AlbumArgument {
    /// - Throws: ``CommandFailure`` `notFound` when nothing matches, or a part of an identifier matches several.
    static func resolve(_ text: String, in library: PhotoLibrary) throws -> AssetCollection {
        if let exact = try collections(FetchFilter(AssetCollection.localIdentifier == text), in: library).first { return exact }
        let paths = try MirrorPaths(library: library, includeDirectories: true)
        let directory = text.hasPrefix("/") ? URL(fileURLWithPath: text).standardizedFileURL.path : text
        if let identifier = paths.album(ofDirectory: directory),
            let album = try collections(FetchFilter(AssetCollection.localIdentifier == identifier), in: library).first
        {
            return album
        }
        let found = try IdentifierPart.unique(text, noun: "album") { part in
            let predicate = part == .start ? AssetCollection.localIdentifier.beginsWith(text) : AssetCollection.localIdentifier.contains(text)
            let matches = try collections(FetchFilter(predicate), in: library)
            return (matches, { matches.count })
        }
        if let found { return found }
        throw CommandFailure(code: "notFound", "no album with the identifier, part of an identifier or mirrored directory '\(text)' (`photosync albums` lists them)")
    }

    /// Albums, smart albums and moments matching `filter`.
    private static func collections(_ filter: FetchFilter, in library: PhotoLibrary) throws -> [AssetCollection] {
        var found: [AssetCollection] = []
        for type in [AssetCollectionType.album, .smartAlbum, .moment] {
            found += Array(try library.fetchAssetCollections(with: type, options: FetchOptions(predicate: filter)))
        }
        return found
    }
}
