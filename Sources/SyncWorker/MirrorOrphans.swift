import Foundation
import PhotoLibrary

/// The albums and folders a second mirror writer made for a directory that the records no longer name — the
/// collection side of the race ``MirrorRepair`` repairs: two writers seeing a new directory each made an
/// album (and folders for its parents) and the directory's record kept the second one's, so the first
/// one's are left beside it, holding the same photos.
///
/// ## The rule
/// A collection no mirror record of the library names is an orphan of a recorded directory *D* when it
/// stands where *D*'s own collection stands — at the top level for the root and its subdirectories, else in
/// the folder of *D*'s parent, or inside an orphan folder of that parent — has *D*'s title (the root's name
/// for the root), and:
/// - an album: holds only assets of files directly in *D*, at least one outside an orphan folder (an empty
///   album of the user's is never taken for one);
/// - a folder: holds only orphans of *D* and of *D*'s subdirectories.
///
/// Such a collection is indistinguishable from the mirror's own, which holds the same photos once
/// ``MirrorPlacement`` has put the orphans' assets in their directories' recorded albums: it is deleted with
/// what it holds; the assets stay.
struct MirrorOrphans {
    /// Orphans at the top of their tree (deleting a folder deletes what it holds).
    var albums: [AssetCollection] = []
    var folders: [CollectionList] = []
    /// The assets the orphans hold (in their albums, and in the albums of their folders): the only assets
    /// whose album membership a repair restores (``MirrorPlacement``).
    var members: Set<String> = []

    var count: Int { albums.count + folders.count }

    private let library: PhotoLibrary
    private let root: String
    private let named: Set<String>

    private init(library: PhotoLibrary, root: String, named: Set<String>) {
        self.library = library
        self.root = root
        self.named = named
    }

    /// Finds the orphans of a root's recorded directories.
    ///
    /// - Throws: ``PhotoLibraryError`` when the library can't be read.
    /// - Complexity: one fetch of the children of each recorded directory's container, and one of the members
    ///   of each candidate album.
    static func find(library: PhotoLibrary, root: String, rootName: String, directories: [MirroredDirectory]) throws -> MirrorOrphans {
        var named = Set<String>()
        for record in try library.fetchMirrorRoots() {
            for directory in try library.fetchMirroredDirectories(root: record) {
                if let album = directory.albumIdentifier { named.insert(album) }
                if let folder = directory.folderIdentifier { named.insert(folder) }
            }
        }
        var orphans = MirrorOrphans(library: library, root: root, named: named)
        let byPath = Dictionary(directories.map { ($0.relativePath, $0) }, uniquingKeysWith: { a, _ in a })
        let containers = try library.fetchMirroredCollections(
            albumIdentifiers: [], folderIdentifiers: directories.compactMap(\.folderIdentifier)).folders
        for directory in directories {
            let path = directory.relativePath
            let children: FetchResult<PhotoCollection>
            if path.isEmpty || FileSystem.parent(of: path).isEmpty {
                children = try library.fetchTopLevelUserCollections()
            } else if let parent = byPath[FileSystem.parent(of: path)]?.folderIdentifier, let folder = containers[parent] {
                children = try library.fetchCollections(in: folder)
            } else {
                continue
            }
            let title = path.isEmpty ? rootName : FileSystem.name(of: path)
            for child in children where !orphans.named.contains(child.localIdentifier) {
                switch child {
                case .assetCollection(let album) where album.localizedTitle == title && album.assetCollectionType == .album:
                    if let members = try orphans.members(ifOrphan: album, of: path, emptyAllowed: false) {
                        orphans.albums.append(album)
                        orphans.members.formUnion(members.map(\.localIdentifier))
                    }
                case .collectionList(let folder) where folder.localizedTitle == title && !path.isEmpty:
                    if let members = try orphans.members(ifOrphan: folder, of: path) {
                        orphans.folders.append(folder)
                        orphans.members.formUnion(members)
                    }
                default:
                    continue
                }
            }
        }
        return orphans
    }

    /// The members of an album not named by any record when they are all assets of files directly in
    /// `directory`, else nil.
    private func members(ifOrphan album: AssetCollection, of directory: String, emptyAllowed: Bool) throws -> [Asset]? {
        let prefix = directory.isEmpty ? root + "/" : root + "/" + directory + "/"
        let members = Array(try library.fetchAssets(in: album, options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)))
        if members.isEmpty { return emptyAllowed ? [] : nil }
        let inDirectory = members.allSatisfy { asset in
            guard let path = asset.filePath, path.hasPrefix(prefix) else { return false }
            return !path.dropFirst(prefix.count).contains("/")
        }
        return inDirectory ? members : nil
    }

    /// The assets a folder not named by any record holds when it holds only orphans of `directory` and its
    /// subdirectories, else nil.
    private func members(ifOrphan folder: CollectionList, of directory: String) throws -> Set<String>? {
        var all = Set<String>()
        for child in try library.fetchCollections(in: folder) {
            guard !named.contains(child.localIdentifier) else { return nil }
            switch child {
            case .assetCollection(let album):
                guard album.assetCollectionType == .album, let title = album.localizedTitle else { return nil }
                // An album of the directory itself, or of a subdirectory (whose own folder was not made).
                let candidates = title == FileSystem.name(of: directory) ? [directory, FileSystem.join(directory, title)] : [FileSystem.join(directory, title)]
                var found: [Asset]?
                for candidate in candidates where found == nil { found = try members(ifOrphan: album, of: candidate, emptyAllowed: true) }
                guard let found else { return nil }
                all.formUnion(found.map(\.localIdentifier))
            case .collectionList(let list):
                guard let title = list.localizedTitle, let members = try members(ifOrphan: list, of: FileSystem.join(directory, title)) else { return nil }
                all.formUnion(members)
            }
        }
        return all
    }
}
