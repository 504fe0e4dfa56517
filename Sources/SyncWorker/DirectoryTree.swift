import Foundation
import PhotoLibrary

/// Keeps albums and folders in the shape of the tree, inside one change block.
///
/// ## The rule
/// - A directory holding media files directly is an **album** titled with the directory's name, holding
///   those files' assets (in the order they were mirrored).
/// - A directory (other than the root) with media in its subdirectories is a **folder** of the same name,
///   holding — first — its own album when it has one, then its subdirectories' albums and folders.
/// - The root's own album (titled with the root's name) and the collections of its subdirectories are at
///   the top level.
/// - A renamed or moved directory (recognised by its device and inode) keeps its album and folder: they are
///   renamed and moved, identifiers kept. A directory left without media loses its album and folder.
struct DirectoryTree {
    let root: String
    let rootName: String
    /// The directories' albums and folders; updated as the block goes.
    var directories: [String: MirroredDirectory]
    /// What each directory concerned needs after this batch's file changes (see ``MirrorModel/needs(_:)``).
    let needs: [String: (album: Bool, folder: Bool)]
    /// The albums and folders read so far: those of the directories the batch concerns, read before the
    /// block; any other one (a directory renamed from one the batch doesn't otherwise touch) through
    /// ``fetch`` when first asked for.
    private var albums: [String: AssetCollection]
    private var folders: [String: CollectionList]
    /// Reads albums and folders by identifier (those that exist).
    private let fetch: Fetch
    /// Identifiers ``fetch`` found no album or folder for.
    private var absent = Set<String>()
    /// The first error of ``fetch``: ``checkReads()`` throws it.
    private var readError: (any Error)?

    typealias Fetch = (_ albums: [String], _ folders: [String]) throws -> (albums: [String: AssetCollection], folders: [String: CollectionList])
    /// Directories whose record changed.
    private(set) var changed = Set<String>()

    private var albumRequests: [String: AssetCollectionChangeRequest] = [:]
    private var folderRequests: [String: CollectionListChangeRequest] = [:]
    /// Directories transferred from another path, with the folder that held their top collection before.
    private var transferred: [(path: String, oldContainer: String?)] = []
    /// Collections this batch already moved to another folder (or to the top level).
    private var rehomed = Set<String>()
    private let original: [String: MirroredDirectory]
    /// New assets waiting to be appended to their album, by album, in the order they were added: appended with
    /// one request per album (a request reads the album's members once), before any other change of album
    /// membership (``flushAdditions()``).
    private var additions: [String: [ObjectReference]] = [:]
    /// The albums of ``additions`` in the order they were first added to.
    private var additionOrder: [String] = []

    /// - Parameters:
    ///   - albums, folders: the collections read before the block (at least those of the directories
    ///     concerned); `fetch` reads any other one asked for.
    init(
        root: String, rootName: String, directories: [String: MirroredDirectory], needs: [String: (album: Bool, folder: Bool)],
        albums: [String: AssetCollection], folders: [String: CollectionList], fetch: @escaping Fetch
    ) {
        self.root = root
        self.rootName = rootName
        self.directories = directories
        self.original = directories
        self.needs = needs
        self.albums = albums
        self.folders = folders
        self.fetch = fetch
    }

    /// Throws the first error met reading an album or folder the batch hadn't read before its block (the
    /// requests that needed it were left out: the block must not commit).
    func checkReads() throws {
        if let readError { throw readError }
    }

    private func absolute(_ path: String) -> String { path.isEmpty ? root : root + "/" + path }

    /// The album, from those read or else read now; nil when it no longer exists (or can't be read).
    private mutating func album(_ id: String) -> AssetCollection? {
        if let album = albums[id] { return album }
        read(albums: [id], folders: [])
        return albums[id]
    }

    private mutating func folder(_ id: String) -> CollectionList? {
        if let folder = folders[id] { return folder }
        read(albums: [], folders: [id])
        return folders[id]
    }

    private mutating func read(albums albumIDs: [String], folders folderIDs: [String]) {
        guard readError == nil, !(albumIDs + folderIDs).allSatisfy(absent.contains) else { return }
        do {
            let read = try fetch(albumIDs, folderIDs)
            albums.merge(read.albums) { old, _ in old }
            folders.merge(read.folders) { old, _ in old }
            absent.formUnion(albumIDs.filter { read.albums[$0] == nil } + folderIDs.filter { read.folders[$0] == nil })
        } catch {
            readError = error
        }
    }

    private mutating func albumRequest(_ id: String) -> AssetCollectionChangeRequest? {
        if let request = albumRequests[id] { return request }
        guard let album = album(id) else { return nil }
        let request = AssetCollectionChangeRequest(for: album)
        albumRequests[id] = request
        return request
    }

    private mutating func folderRequest(_ id: String) -> CollectionListChangeRequest? {
        if let request = folderRequests[id] { return request }
        guard let folder = folder(id) else { return nil }
        let request = CollectionListChangeRequest(for: folder)
        folderRequests[id] = request
        return request
    }

    private func parentFolder(of path: String) -> String? {
        path.isEmpty ? nil : directories[FileSystem.parent(of: path)]?.folderIdentifier
    }

    /// Before the file changes: renamed directories take over their album and folder; missing albums and
    /// folders are created (parents first). `ordered`: the directories concerned, shallowest first.
    mutating func prepare(_ ordered: [String]) {
        // Renames: a directory needing collections, without any, whose inode was another recorded directory.
        for path in ordered where !path.isEmpty && directories[path] == nil {
            let need = needs[path] ?? (false, false)
            guard need.album || need.folder, let (stamp, mode) = FileSystem.stamp(absolute(path)), mode == S_IFDIR else { continue }
            let source = directories.first { other in
                guard other.key != path, other.value.device == stamp.device, other.value.inode == stamp.inode else { return false }
                // The old path must be gone (or be another directory now).
                if let (now, _) = FileSystem.stamp(absolute(other.key)), now.inode == stamp.inode, now.device == stamp.device {
                    return false
                }
                return true
            }
            guard let (oldPath, entry) = source else { continue }
            let oldContainer = oldPath.isEmpty ? nil : original[FileSystem.parent(of: oldPath)]?.folderIdentifier
            var moved = entry
            moved.relativePath = path
            directories[oldPath] = nil
            directories[path] = moved
            changed.insert(oldPath)
            changed.insert(path)
            let name = FileSystem.name(of: path)
            if FileSystem.name(of: oldPath) != name {
                if let album = moved.albumIdentifier { albumRequest(album)?.title = name }
                if let folder = moved.folderIdentifier { folderRequest(folder)?.title = name }
            }
            transferred.append((path, oldContainer))
        }
        // Creations, parents first. A directory no longer on disk gets none, even while the mirror still
        // lists files in it: those are moved or deleted by this pass's later batches (a directory renamed in
        // the middle of a pass; a pass interrupted after some of a renamed directory's files).
        for path in ordered {
            let need = needs[path] ?? (false, false)
            guard need.album || need.folder else { continue }
            guard path.isEmpty || FileSystem.stamp(absolute(path)) != nil else { continue }
            var entry = directories[path] ?? MirroredDirectory(relativePath: path)
            if entry.device == nil, let (stamp, _) = FileSystem.stamp(absolute(path)) {
                entry.device = stamp.device
                entry.inode = stamp.inode
            }
            let container = parentFolder(of: path)
            let title = path.isEmpty ? rootName : FileSystem.name(of: path)
            if need.folder && entry.folderIdentifier == nil {
                let request = CollectionListChangeRequest.creationRequestForCollectionList(withTitle: title)
                if let placeholder = request.placeholderForCreatedCollectionList {
                    folderRequests[placeholder.localIdentifier] = request
                    if let container { folderRequest(container)?.addChildCollections([placeholder]) }
                    if let album = entry.albumIdentifier { request.addChildCollections([ObjectReference(localIdentifier: album)]) }
                    entry.folderIdentifier = placeholder.localIdentifier
                }
            }
            if need.album && entry.albumIdentifier == nil {
                let request = AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
                if let placeholder = request.placeholderForCreatedAssetCollection {
                    albumRequests[placeholder.localIdentifier] = request
                    if let folder = entry.folderIdentifier {
                        folderRequest(folder)?.insertChildCollections([placeholder], at: IndexSet(integer: 0))
                    } else if let container {
                        folderRequest(container)?.addChildCollections([placeholder])
                    }
                    entry.albumIdentifier = placeholder.localIdentifier
                }
            }
            if directories[path] != entry {
                directories[path] = entry
                changed.insert(path)
            }
        }
        // Renamed directories that changed parent follow into their new parent's folder.
        for (path, oldContainer) in transferred {
            guard let entry = directories[path], let top = entry.folderIdentifier ?? entry.albumIdentifier else { continue }
            let desired = parentFolder(of: path)
            guard desired != oldContainer else { continue }
            rehomed.insert(top)
            if let desired {
                folderRequest(desired)?.addChildCollections([ObjectReference(localIdentifier: top)])
            } else if let oldContainer {
                folderRequest(oldContainer)?.removeChildCollections([ObjectReference(localIdentifier: top)])
            }
        }
    }

    /// Puts a new asset into its directory's album (at the end of it, after the assets added before).
    ///
    /// The additions of a batch are appended together, one request per album (``flushAdditions()``): an
    /// album's members are read once per batch, not once per file.
    mutating func add(_ asset: String, to directory: String) {
        guard let album = directories[directory]?.albumIdentifier else { return }
        if additions[album] == nil { additionOrder.append(album) }
        additions[album, default: []].append(ObjectReference(localIdentifier: asset))
    }

    /// Appends the assets ``add(_:to:)`` gathered to their albums. Done before any other change of album
    /// membership, so that every album ends as if each asset had been appended when it was added.
    mutating func flushAdditions() {
        guard !additionOrder.isEmpty else { return }
        for album in additionOrder {
            guard let assets = additions[album] else { continue }
            albumRequest(album)?.addAssets(assets)
        }
        additions = [:]
        additionOrder = []
    }

    /// Moves an asset from the album it was in to its new directory's album (nothing when it is the same
    /// album, as for a file in a renamed directory).
    ///
    /// - Parameter memberOf: the albums the asset is in now, when its old directory has no album any more
    ///   (its album went with a directory renamed earlier in the same pass): membership is then taken from
    ///   the library rather than from the directory.
    mutating func move(_ asset: String, fromAlbum oldAlbum: String?, memberOf current: Set<String>? = nil, to directory: String) {
        flushAdditions()
        let newAlbum = directories[directory]?.albumIdentifier
        if let current {
            let reference = ObjectReference(localIdentifier: asset)
            for album in current where album != newAlbum && directories.values.contains(where: { $0.albumIdentifier == album }) {
                albumRequest(album)?.removeAssets([reference])
            }
            if let newAlbum, !current.contains(newAlbum) { albumRequest(newAlbum)?.addAssets([reference]) }
            return
        }
        guard oldAlbum != newAlbum else { return }
        if let oldAlbum, directories.values.contains(where: { $0.albumIdentifier == oldAlbum }) {
            albumRequest(oldAlbum)?.removeAssets([ObjectReference(localIdentifier: asset)])
        }
        if let newAlbum { albumRequest(newAlbum)?.addAssets([ObjectReference(localIdentifier: asset)]) }
    }

    /// After the file changes: albums and folders no longer needed are deleted, deepest first. A folder
    /// going away while its directory keeps its album hands the album to its parent first, and so does it
    /// with every other collection in it that a directory still uses (deleting a folder deletes what it
    /// holds): between the batches of one pass, a subdirectory's album can still be in the folder of a
    /// directory renamed away.
    ///
    /// - Parameter children: the collections a folder holds (as committed before this batch).
    mutating func finish(_ deepestFirst: some Sequence<String>, children: (CollectionList) -> [String] = { _ in [] }) {
        flushAdditions()
        var deadAlbums: [AssetCollection] = []
        var deadFolders: [CollectionList] = []
        for path in deepestFirst {
            guard var entry = directories[path] else { continue }
            let need = needs[path] ?? (false, false)
            if let album = entry.albumIdentifier, !need.album {
                if let object = self.album(album) { deadAlbums.append(object) }
                entry.albumIdentifier = nil
            }
            if let folder = entry.folderIdentifier, !need.folder {
                if let object = self.folder(folder) {
                    let inUse = Set(directories.values.flatMap { [$0.albumIdentifier, $0.folderIdentifier].compactMap { $0 } })
                    for child in children(object)
                    where child != entry.albumIdentifier && inUse.contains(child) && !rehomed.contains(child) {
                        let reference = ObjectReference(localIdentifier: child)
                        if let container = parentFolder(of: path) {
                            folderRequest(container)?.addChildCollections([reference])
                        } else {
                            folderRequest(folder)?.removeChildCollections([reference])
                        }
                    }
                }
                if let album = entry.albumIdentifier {
                    let reference = ObjectReference(localIdentifier: album)
                    if let container = parentFolder(of: path) {
                        folderRequest(container)?.addChildCollections([reference])
                    } else {
                        folderRequest(folder)?.removeChildCollections([reference])
                    }
                }
                if let object = self.folder(folder) { deadFolders.append(object) }
                entry.folderIdentifier = nil
            }
            if entry.albumIdentifier == nil && entry.folderIdentifier == nil {
                directories[path] = nil
                changed.insert(path)
            } else if directories[path] != entry {
                directories[path] = entry
                changed.insert(path)
            }
        }
        if !deadAlbums.isEmpty { AssetCollectionChangeRequest.deleteAssetCollections(deadAlbums) }
        if !deadFolders.isEmpty { CollectionListChangeRequest.deleteCollectionLists(deadFolders) }
    }
}
