import Foundation
import PhotoLibrary
import SeededRandom
import Testing

@testable import SyncWorker

/// The oracle: what the folder holds, with a logical identity per file that must survive renames and moves.
struct FolderModel {
    struct File {
        var bytes: [UInt8]
        var identity: Int
        /// Created, or both edited and moved, since the last sync: the library may give it a new identifier.
        var fresh = true
        var editedThisRound = false
        var movedThisRound = false
    }

    var files: [String: File] = [:]
    var nextIdentity = 0
    var nextVariant = 1000

    mutating func newIdentity() -> Int {
        nextIdentity += 1
        return nextIdentity
    }

    /// The directories that exist (have a file below them), without the root.
    var directories: [String] { directoriesHolding(files.keys) }

    /// The album tree the rule gives, normalised as `Sandbox.normalisedTree` prints the library's.
    func expectedTree(rootName: String) -> Set<String> {
        var direct: [String: [String]] = [:]
        for path in files.keys { direct[FileSystem.parent(of: path), default: []].append(FileSystem.name(of: path)) }
        var lines = Set<String>()
        for directory in directories { lines.insert("F:" + directory) }
        for (directory, names) in direct {
            let members = names.sorted().joined(separator: " ")
            if directory.isEmpty {
                lines.insert("A:\(rootName): \(members)")
            } else if directories.contains(where: { $0.hasPrefix(directory + "/") }) {
                lines.insert("A:\(directory)/\(FileSystem.name(of: directory)): \(members)")
            } else {
                lines.insert("A:\(directory): \(members)")
            }
        }
        // Folders exist only for directories with media below them.
        return lines.filter { line in
            guard line.hasPrefix("F:") else { return true }
            let directory = String(line.dropFirst(2))
            return files.keys.contains { $0.hasPrefix(directory + "/") && FileSystem.parent(of: $0) != directory }
        }
    }
}

extension Sandbox {
    /// The library's user albums and folders: "F:path" per folder and "A:path: names" per album, where path
    /// is the chain of titles from the top.
    func normalisedTree() throws -> Set<String> {
        var lines = Set<String>()
        func visit(_ collections: FetchResult<PhotoCollection>, prefix: String) throws {
            for collection in collections {
                switch collection {
                case .assetCollection(let album):
                    let names = try library.fetchAssets(in: album, options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
                        .map(\.originalFilename).sorted().joined(separator: " ")
                    lines.insert("A:\(prefix)\(album.localizedTitle ?? "?"): \(names)")
                case .collectionList(let folder):
                    let path = prefix + (folder.localizedTitle ?? "?")
                    lines.insert("F:" + path)
                    try visit(try library.fetchCollections(in: folder), prefix: path + "/")
                }
            }
        }
        try visit(try library.fetchTopLevelUserCollections(), prefix: "")
        return lines
    }
}

@Suite("Sync worker: model-based")
struct ModelTests {
    static let directoryNames = ["Alpha", "Beta", "alpha", "Gamma"]

    /// One random operation on the folder, mirrored in the model.
    static func randomOperation(_ box: Sandbox, _ model: inout FolderModel, _ random: inout SplitMix64) {
        let paths = model.files.keys.filter { $0 != "keep.jpg" }.sorted()
        let directories = model.directories
        func randomDirectory() -> String {
            let base = random.chance(0.3) || directories.isEmpty ? "" : directories[random.int(in: 0...(directories.count - 1))]
            if random.chance(0.4) && base.split(separator: "/").count < 2 {
                return FileSystem.join(base, directoryNames[random.int(in: 0...(directoryNames.count - 1))])
            }
            return base
        }
        func freeName(in directory: String) -> String {
            while true {
                let name = "img\(random.int(in: 0...40))" + (random.chance(0.5) ? ".jpg" : ".JPG")
                let path = FileSystem.join(directory, name)
                if model.files[path] == nil && FileSystem.stamp(box.path(path)) == nil { return path }
            }
        }
        let choice = paths.isEmpty ? 0 : random.int(in: 0...9)
        switch choice {
        case 0, 1:  // create
            let path = freeName(in: randomDirectory())
            model.nextVariant += 1
            let bytes = random.chance(0.5) ? Media.jpeg(model.nextVariant) : Media.pngImage(model.nextVariant)
            box.write(path, bytes)
            model.files[path] = FolderModel.File(bytes: bytes, identity: model.newIdentity())
        case 2:  // duplicate content at a new path
            let source = paths[random.int(in: 0...(paths.count - 1))]
            let path = freeName(in: randomDirectory())
            let bytes = model.files[source]!.bytes
            box.write(path, bytes)
            model.files[path] = FolderModel.File(bytes: bytes, identity: model.newIdentity())
        case 3, 4:  // edit in place, or atomic save
            let path = paths[random.int(in: 0...(paths.count - 1))]
            var file = model.files[path]!
            model.nextVariant += 1
            let extra = Array("edit \(model.nextVariant)".utf8)
            if random.chance(0.5) {
                box.append(path, extra)
                file.bytes += extra
            } else {
                let temporary = FileSystem.join(FileSystem.parent(of: path), ".\(FileSystem.name(of: path)).tmp")
                file.bytes += extra
                box.write(temporary, file.bytes)
                box.move(temporary, path)
            }
            file.editedThisRound = true
            if file.movedThisRound { file.fresh = true }
            model.files[path] = file
        case 5, 6:  // rename or move a file (possibly case-only)
            let from = paths[random.int(in: 0...(paths.count - 1))]
            let to: String
            if random.chance(0.3) {
                let upper = FileSystem.join(FileSystem.parent(of: from), FileSystem.name(of: from).uppercased())
                to = model.files[upper] == nil && upper != from ? upper : freeName(in: randomDirectory())
            } else {
                to = freeName(in: random.chance(0.5) ? FileSystem.parent(of: from) : randomDirectory())
            }
            box.move(from, to)
            var file = model.files.removeValue(forKey: from)!
            file.movedThisRound = true
            if file.editedThisRound { file.fresh = true }
            model.files[to] = file
        case 7:  // rename or move a directory
            guard let directory = directories.randomElement(using: &random) else { return }
            let parent = random.chance(0.5) ? FileSystem.parent(of: directory) : ""
            let target = FileSystem.join(parent, directoryNames[random.int(in: 0...(directoryNames.count - 1))] + "\(random.int(in: 1...9))")
            guard FileSystem.stamp(box.path(target)) == nil, !FileSystem.isWithin(target, directory) else { return }
            box.move(directory, target)
            for path in model.files.keys.filter({ $0.hasPrefix(directory + "/") }) {
                var file = model.files.removeValue(forKey: path)!
                file.movedThisRound = true
                if file.editedThisRound { file.fresh = true }
                model.files[target + path.dropFirst(directory.count)] = file
            }
        case 8:  // delete a file
            let path = paths[random.int(in: 0...(paths.count - 1))]
            box.remove(path)
            model.files[path] = nil
        default:  // delete a directory
            guard let directory = directories.randomElement(using: &random) else { return }
            box.remove(directory)
            for path in model.files.keys where path.hasPrefix(directory + "/") { model.files[path] = nil }
        }
    }

    static func run(seed: UInt64, watching: Bool, engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        var random = SplitMix64(seed: seed)
        var model = FolderModel()
        box.write("keep.jpg", Media.jpeg(0))  // never touched: the root is never empty
        model.files["keep.jpg"] = FolderModel.File(bytes: Media.jpeg(0), identity: model.newIdentity())
        let mirror = try box.mirror {
            $0.allowMassDeletion = true
            $0.settleInterval = .milliseconds(100)
            $0.batchFileLimit = 7
        }
        var known: [Int: String] = [:]
        var saved: [LibraryState] = []
        func check(round: Int) throws {
            try box.expectMirrors(model.files.mapValues(\.bytes))
            let byPath = try box.assetsByPath()
            for (path, file) in model.files {
                let id = try #require(byPath[path]?.localIdentifier, "seed \(seed) round \(round): \(path)")
                if !file.fresh, let previous = known[file.identity] {
                    #expect(id == previous, "seed \(seed) round \(round): \(path) lost its identity")
                }
                known[file.identity] = id
            }
            for key in model.files.keys {
                model.files[key]!.fresh = false
                model.files[key]!.editedThisRound = false
                model.files[key]!.movedThisRound = false
            }
            #expect(try box.normalisedTree() == model.expectedTree(rootName: box.root.lastPathComponent), "seed \(seed) round \(round)")
            saved.append(try box.library.fetchCurrentState())
        }
        let rounds = 8
        if watching {
            try await whileWatching(mirror) {
                try await mirror.sync()
                try check(round: 0)
                for round in 1...rounds {
                    for _ in 0..<random.int(in: 1...8) { randomOperation(box, &model, &random) }
                    try await mirror.sync()
                    try check(round: round)
                }
            }
        } else {
            try await mirror.scan()
            try check(round: 0)
            for round in 1...rounds {
                for _ in 0..<random.int(in: 1...8) { randomOperation(box, &model, &random) }
                try await mirror.scan()
                try check(round: round)
            }
        }
        // The journal from each saved token replays onto that state's copy to the final identifier sets.
        let final = try box.library.fetchCurrentState()
        for state in saved {
            var assets = state.assetIdentifiers
            var collections = state.assetCollectionIdentifiers
            var lists = state.collectionListIdentifiers
            for change in try box.library.fetchPersistentChanges(since: state.changeToken) {
                for (type, set) in [(ObjectType.asset, 0), (.assetCollection, 1), (.collectionList, 2)] {
                    let details = try change.changeDetails(for: type)
                    switch set {
                    case 0: assets = assets.subtracting(details.deletedLocalIdentifiers).union(details.insertedLocalIdentifiers)
                    case 1: collections = collections.subtracting(details.deletedLocalIdentifiers).union(details.insertedLocalIdentifiers)
                    default: lists = lists.subtracting(details.deletedLocalIdentifiers).union(details.insertedLocalIdentifiers)
                    }
                }
            }
            #expect(assets == final.assetIdentifiers, "seed \(seed)")
            #expect(collections == final.assetCollectionIdentifiers, "seed \(seed)")
            #expect(lists == final.collectionListIdentifiers, "seed \(seed)")
        }
    }

    @Test("Random file operations, then a scan: library == folder, identities kept across renames, the journal replays", arguments: [1, 2, 3, 4, 5] as [UInt64], LibraryEngine.allCases)
    func scanning(seed: UInt64, engine: LibraryEngine) async throws {
        try await Self.run(seed: seed, watching: false, engine: engine)
    }

    @Test("Random file operations while watching, then the sync barrier: the same properties", arguments: [11, 12, 13] as [UInt64], LibraryEngine.both)
    func watching(seed: UInt64, engine: LibraryEngine) async throws {
        try await Self.run(seed: seed, watching: true, engine: engine)
    }
}
