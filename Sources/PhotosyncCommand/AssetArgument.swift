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
        if let found = try unique(Asset.localIdentifier.beginsWith(text), "the start", text, in: library) { return found }
        if let found = try unique(Asset.localIdentifier.contains(text), "part", text, in: library) { return found }
        throw CommandFailure(code: "notFound", "no asset with the identifier, part of an identifier or mirrored path '\(text)'")
    }

    /// The one asset whose identifier `predicate` matches; nil when none does.
    ///
    /// - Throws: ``CommandFailure`` `notFound` when several do (`what` the text is of them: "the start", "part").
    private static func unique(_ predicate: some PredicateConvertible, _ what: String, _ text: String, in library: PhotoLibrary) throws -> Asset? {
        let matches = try library.fetchAssets(options: options(predicate, limit: 2))
        guard matches.count > 1 else { return matches.firstObject }
        let count = try library.fetchAssets(options: options(predicate, limit: nil)).count
        throw CommandFailure(code: "notFound", "'\(text)' is \(what) of \(count) asset identifiers: give more of it (their last digits tell apart assets created together)")
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
