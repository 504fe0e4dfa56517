public import PhotoLibrary

/// Where mirrored objects are in their folders: an asset's path and an album's directory, relative to the
/// mirrored folder (the wire's `path`).
public struct MirrorPaths: Sendable {
    /// The mirrored folders, longest first, so that a folder nested in another one wins.
    private let roots: [String]
    private var albumDirectories: [String: String] = [:]
    private var directoryAlbums: [String: String] = [:]

    /// Reads the library's mirrored folders.
    ///
    /// - Parameter includeDirectories: also read every folder's directories (for album paths).
    /// - Throws: ``PhotoLibraryError`` when the library can't be read.
    /// - Complexity: O(*r*), plus O(*d*) in the mirrored directories with `includeDirectories`.
    public init(library: PhotoLibrary, includeDirectories: Bool) throws(PhotoLibraryError) {
        let roots = try library.fetchMirrorRoots()
        self.roots = roots.map(\.path).sorted { $0.count > $1.count }
        guard includeDirectories else { return }
        for root in roots {
            for directory in try library.fetchMirroredDirectories(root: root) {
                guard let album = directory.albumIdentifier else { continue }
                albumDirectories[album] = directory.relativePath
                directoryAlbums[root.path + "\u{0}" + directory.relativePath] = album
            }
        }
    }

    /// Whether the library mirrors any folder.
    public var hasRoots: Bool { !roots.isEmpty }

    /// The absolute paths of the mirrored folders, longest first.
    public var rootPaths: [String] { roots }

    /// The asset's path relative to the folder it is mirrored from; nil for an asset of no mirrored folder.
    public func relativePath(of asset: Asset) -> String? {
        guard let file = asset.filePath else { return nil }
        return relativePath(ofFile: file)
    }

    /// `path` (absolute) relative to the innermost mirrored folder holding it; nil when none does.
    public func relativePath(ofFile path: String) -> String? {
        for root in roots where path.hasPrefix(root + "/") { return String(path.dropFirst(root.count + 1)) }
        return nil
    }

    /// The directory (relative to its folder) a mirrored album stands for.
    public func directoryPath(ofAlbum identifier: String) -> String? { albumDirectories[identifier] }

    /// The album of a mirrored directory, given as an absolute path or relative to a mirrored folder (`""` or
    /// `.` for the folder itself); nil when no mirrored directory has that path, or it became no album.
    /// A relative path found under several mirrored folders is ambiguous: nil.
    public func album(ofDirectory path: String) -> String? {
        let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        if trimmed.hasPrefix("/") {
            for root in roots {
                if trimmed == root { return directoryAlbums[root + "\u{0}"] }
                if trimmed.hasPrefix(root + "/") { return directoryAlbums[root + "\u{0}" + trimmed.dropFirst(root.count + 1)] }
            }
            return nil
        }
        let relative = trimmed == "." ? "" : trimmed
        let matches = roots.compactMap { directoryAlbums[$0 + "\u{0}" + relative] }
        return matches.count == 1 ? matches[0] : nil
    }
}
