import FetchPredicate
import Foundation
import PhotoLibrary
import SyncWorker
import PhotosyncWire

/// An asset named on the command line: by local identifier, its mirrored path (relative to the mirrored
/// folder, or the file's own path, absolute or relative to the current directory), or a unique part of an
/// identifier: its start or any other run of it, such as its last digits (identifiers are time-ordered, so
/// those of assets created together share their start). Hidden assets and every member of a burst are found.
enum AssetArgument {
    static let everything = FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)

    /// - Throws: ``CommandFailure`` `notFound` when nothing matches, or a part of an identifier matches several.
    static func resolve(_ text: String, in library: PhotoLibrary, paths: MirrorPaths) throws -> Asset {
        if let exact = try library.fetchAssets(withLocalIdentifiers: [text], options: everything).firstObject { return exact }
        if let mirrored = try byPath(text, in: library, paths: paths) { return mirrored }
        let found = try IdentifierPart.unique(text, noun: "asset") { part in
            let predicate = part == .start ? Asset.localIdentifier.beginsWith(text) : Asset.localIdentifier.contains(text)
            let some = try library.fetchAssets(options: options(predicate, limit: 2))
            return (Array(some), { try library.fetchAssets(options: options(predicate, limit: nil)).count })
        }
        if let found { return found }
        throw CommandFailure(code: "notFound", "no asset with the identifier, part of an identifier or mirrored path '\(text)'")
    }

    /// The asset mirrored at `text`: a path relative to a mirrored folder, or a file's path.
    private static func byPath(_ text: String, in library: PhotoLibrary, paths: MirrorPaths) throws -> Asset? {
        if let asset = try library.fetchAssets(options: options(Asset.path == text, limit: 2)).firstObject { return asset }
        let file = URL(fileURLWithPath: text).standardizedFileURL.resolvingSymlinksInPath().path
        guard let relative = paths.relativePath(ofFile: file) else { return nil }
        return try library.fetchAssets(options: options(Asset.path == relative, limit: 2)).firstObject
    }

    private static func options(_ predicate: some PredicateConvertible, limit: Int?) -> FetchOptions {
        FetchOptions(predicate: FetchFilter(predicate), fetchLimit: limit, includeHiddenAssets: true, includeAllBurstAssets: true)
    }
}
