import FetchPredicate
import Foundation
import PhotoLibrary
import SyncWorker
import PhotosyncWire

/// An asset named on the command line: by local identifier, its mirrored path (relative to the mirrored
/// folder, or the file's own path, absolute or relative to the current directory), or a unique prefix of
/// an identifier. Hidden assets and every member of a burst are found.
enum AssetArgument {
    static let everything = FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)

    /// - Throws: ``CommandFailure`` `notFound` when nothing matches, or a prefix matches several.
    static func resolve(_ text: String, in library: PhotoLibrary, paths: MirrorPaths) throws -> Asset {
        if let exact = try library.fetchAssets(withLocalIdentifiers: [text], options: everything).firstObject { return exact }
        if let mirrored = try byPath(text, in: library, paths: paths) { return mirrored }
        let matches = try library.fetchAssets(options: options(Asset.localIdentifier.beginsWith(text), limit: 2))
        if matches.count == 1, let asset = matches.firstObject { return asset }
        if matches.count > 1 {
            let count = try library.fetchAssets(options: options(Asset.localIdentifier.beginsWith(text), limit: nil)).count
            throw CommandFailure(code: "notFound", "'\(text)' is the start of \(count) asset identifiers: give more of it")
        }
        throw CommandFailure(code: "notFound", "no asset with the identifier, identifier prefix or mirrored path '\(text)'")
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
