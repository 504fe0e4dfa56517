import Foundation
import PhotoLibrary

/// The folder argument of the mirroring commands.
enum FolderArgument {
    /// The folder a command mirrors or imports, absolute and standardized, symlinks resolved. Checked before
    /// any library is opened, so that a call on a missing folder creates nothing.
    ///
    /// - Throws: ``CommandFailure`` (exit code 1) when it is not an existing folder.
    static func resolve(_ path: String) throws -> URL {
        let url = URL(fileURLWithPath: path).standardizedFileURL.resolvingSymlinksInPath()
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
            throw CommandFailure("\(url.path) does not exist (an unmounted disk?); nothing was changed")
        }
        guard isDirectory.boolValue else {
            throw CommandFailure("\(url.path) is not a folder; nothing was changed")
        }
        return url
    }

    /// Checks that `folder` is neither inside another folder `library` mirrors, nor holds one (the same files
    /// would become two assets each).
    ///
    /// - Throws: ``CommandFailure`` (exit code 1) naming the other folder.
    static func checkNotNested(_ folder: URL, in library: PhotoLibrary) throws {
        for root in try library.fetchMirrorRoots().map(\.path) where root != folder.path {
            if folder.path.hasPrefix(root + "/") || root.hasPrefix(folder.path + "/") {
                throw CommandFailure(
                    "\(folder.path) and \(root), which this library already mirrors, are nested: mirror one folder of a tree, not both (its files would be two assets each)")
            }
        }
    }

    /// Checks that `folder` neither holds a PostgreSQL library's files directory nor lies in it: its originals
    /// would be mirrored as photos of their own (a SQLite library in the tree is recognised by its database
    /// and left out by the mirror; a files directory has none).
    ///
    /// - Throws: ``CommandFailure`` (exit code 1) naming both, before anything is opened or changed.
    static func checkOutsideLibraryFiles(_ folder: URL, location: LibraryLocation) throws {
        guard case .postgres(_, let files) = location else { return }
        let filesPath = files.resolvingSymlinksInPath().path
        if filesPath == folder.path || filesPath.hasPrefix(folder.path + "/") || folder.path.hasPrefix(filesPath + "/") {
            throw CommandFailure(
                "\(folder.path) and the library's files directory \(filesPath) (--library-files) are nested: keep the library's files outside the folders it mirrors; nothing was changed")
        }
    }

    /// The folder `watch` follows when none is given: the one folder the library mirrors.
    ///
    /// - Throws: ``CommandFailure``: the library mirrors no folder, or several.
    static func onlyMirroredFolder(of library: PhotoLibrary) throws -> URL {
        let roots = try library.fetchMirrorRoots().map(\.path)
        guard roots.count == 1 else {
            throw CommandFailure(
                .usage, code: "usage",
                roots.isEmpty
                    ? "name the folder to watch: photosync watch DIR (this library mirrors no folder yet)"
                    : "this library mirrors \(roots.count) folders (\(roots.joined(separator: ", "))): name the one to watch, photosync watch DIR")
        }
        return try resolve(roots[0])
    }
}
