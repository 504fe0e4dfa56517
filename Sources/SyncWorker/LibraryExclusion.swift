import Foundation
import PhotoLibrary

/// Leaves photosync libraries out of a mirrored tree.
///
/// A library kept inside the folder it mirrors (`photosync --library ~/Pictures/Library.photosync scan
/// ~/Pictures`), or any other photosync library found there, is not a folder of photos: its `originals/`
/// are copies already in a library, and its database changes with every commit. A directory is left out
/// when ``PhotoLibrary/isLibraryDirectory(atPath:)`` says it is a library (its `Photos.sqlite` carries
/// photosync's mark), or when it is the mirror's own library directory (left out even before its database
/// exists). Everything below it is left out: the walk never enters it, the watcher neither watches nor
/// reports it, and a library that appears in the tree later (copied, moved or created there) takes what
/// was mirrored from its directory with it — those assets are deleted like any files gone, by the same
/// rules (mass-deletion safety included).
///
/// A library on PostgreSQL has no database file in its directory (only `originals/` and its renditions): its
/// directory is left out when it is the mirror's own, by path; another PostgreSQL library's directory in
/// the tree is not recognisable as a library, and its originals are mirrored as photos.
struct LibraryExclusion: Sendable {
    /// The mirrored root (absolute, symbolic links resolved).
    let root: String
    /// The mirror's own library directory (absolute, symbolic links resolved).
    let ownLibrary: String

    init(root: String, library: URL) {
        self.root = root
        self.ownLibrary = library.standardizedFileURL.resolvingSymlinksInPath().path
    }

    /// Whether the directory at `relative` (relative to the root; "" for the root itself) is a library.
    ///
    /// - Complexity: one `stat` for an ordinary directory.
    func isLibrary(_ relative: String) -> Bool {
        let absolute = relative.isEmpty ? root : root + "/" + relative
        return absolute == ownLibrary || PhotoLibrary.isLibraryDirectory(atPath: absolute)
    }

    /// The outermost library directory holding `relative` or being it (a directory at `relative` counts;
    /// so does the root), or nil when `relative` is in no library.
    ///
    /// - Complexity: one `stat` per component of the path (plus one for the root).
    func enclosingLibrary(of relative: String) -> String? {
        if isLibrary("") { return "" }
        var end = relative.startIndex
        while end < relative.endIndex {
            end = relative[relative.index(after: end)...].firstIndex(of: "/") ?? relative.endIndex
            let directory = String(relative[..<end])
            if isLibrary(directory) { return directory }
        }
        return nil
    }

    /// The watcher's question: whether a path lies in a library (the path itself, or one of its ancestors) —
    /// except the library's database itself: its arrival is what turns a mirrored folder into a library (a
    /// library copied in, its database last), and the mirror must hear of it to let go of what it mirrored
    /// there.
    func isExcluded(_ relative: String) -> Bool {
        guard let library = enclosingLibrary(of: relative) else { return false }
        return relative != FileSystem.join(library, PhotoLibrary.databaseFileName)
    }
}
