import FolderWatch
import Foundation
import SeededRandom
import Synchronization
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A consumer as the sync worker is one: it keeps the set of files under the root by applying each event the
/// moment it arrives, looking at the disk only where the event says to (stat a file, scan a directory).
final class MirrorConsumer: Sendable {
    let root: String
    let isIgnored: @Sendable (String, Bool) -> Bool
    private let files = Mutex(Set<String>())

    init(root: String, isIgnored: @escaping @Sendable (String, Bool) -> Bool) {
        self.root = root
        self.isIgnored = isIgnored
        files.withLock { $0 = Self.scan(root: root, below: "", isIgnored: isIgnored) }
    }

    var snapshot: Set<String> { files.withLock { $0 } }

    func apply(_ event: FolderWatchEvent) {
        files.withLock { files in
            switch event {
            case .fileChanged(let path), .fileWritten(let path), .fileClosed(let path):
                var info = stat()
                if lstat(root + "/" + path, &info) == 0 && info.st_mode & S_IFMT == S_IFREG {
                    files.insert(path)
                } else {
                    files.remove(path)
                }
            case .removed(let path):
                files = files.filter { !Self.isSameOrBelow($0, path) }
            case .moved(let from, let to, let isDirectory):
                // A consumer behind the watcher may look after `to` was renamed again, or before: it moves what
                // it knows and looks at `to` again (the sync worker matches the content by hash).
                files = files.filter { !Self.isSameOrBelow($0, from) }
                if isDirectory {
                    files = files.filter { !Self.isSameOrBelow($0, to) }
                    files.formUnion(Self.scan(root: root, below: to, isIgnored: isIgnored))
                } else {
                    var info = stat()
                    if lstat(root + "/" + to, &info) == 0 && info.st_mode & S_IFMT == S_IFREG { files.insert(to) }
                }
            case .directoryAppeared(let path), .rescanNeeded(let path, _):
                files = files.filter { !Self.isSameOrBelow($0, path) }
                files.formUnion(Self.scan(root: root, below: path, isIgnored: isIgnored))
            case .rootGone, .watchLimitReached, .marker:
                break
            }
        }
    }

    static func isSameOrBelow(_ path: String, _ directory: String) -> Bool {
        directory.isEmpty || path == directory || path.hasPrefix(directory + "/")
    }

    /// The regular files below `below` that the rules do not ignore (symbolic links are not followed).
    static func scan(root: String, below: String, isIgnored: (String, Bool) -> Bool) -> Set<String> {
        var result = Set<String>()
        var stack = [below]
        while let directory = stack.popLast() {
            let absolute = directory.isEmpty ? root : root + "/" + directory
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: absolute) else { continue }
            for name in names {
                let path = directory.isEmpty ? name : directory + "/" + name
                var info = stat()
                guard lstat(root + "/" + path, &info) == 0 else { continue }
                let isDirectory = info.st_mode & S_IFMT == S_IFDIR
                if isIgnored(path, isDirectory) { continue }
                if isDirectory {
                    stack.append(path)
                } else if info.st_mode & S_IFMT == S_IFREG {
                    result.insert(path)
                }
            }
        }
        return result
    }
}

/// Random file operations, made as fast as possible while the watcher runs; after a barrier, a consumer that
/// applied the events as they came must know exactly the files on disk.
@Suite struct MirrorModelTests {
    static let isIgnored: @Sendable (String, Bool) -> Bool = { path, isDirectory in
        path.split(separator: "/").contains("@eaDir") || (!isDirectory && path.hasSuffix(".tmp"))
    }

    /// With the normal read buffer, and with one so small that nearly every read holds one event, so that the
    /// halves of renames come in different reads.
    @Test(arguments: [1, 2, 3, 4] as [UInt64], [64 * 1024, 32])
    func consumerOfTheEventsMirrorsTheFolder(seed: UInt64, readBufferSize: Int) async throws {
        let tree = try TemporaryTree()
        let outside = try TemporaryTree()
        var random = SplitMix64(seed: seed)
        var directories = ["", "a", "a/b"]
        var files: [String] = ["a/one.jpg"]
        try tree.mkdir("a/b")
        try tree.write("a/one.jpg")
        var options = FolderWatchOptions(isIgnored: Self.isIgnored)
        options.readBufferSize = readBufferSize
        let watcher = try FolderWatcher(root: tree.path, options: options)
        let mirror = MirrorConsumer(root: tree.path, isIgnored: Self.isIgnored)
        let recorder = EventRecorder(watcher, consumer: { mirror.apply($0) })
        var outsideDirectories: [String] = []
        var counter = 0
        func fresh(_ prefix: String) -> String {
            counter += 1
            return "\(prefix)\(counter)"
        }
        func join(_ directory: String, _ name: String) -> String { directory.isEmpty ? name : directory + "/" + name }
        func dropBelow(_ path: String) {
            directories.removeAll { MirrorConsumer.isSameOrBelow($0, path) }
            files.removeAll { MirrorConsumer.isSameOrBelow($0, path) }
        }

        var log: [String] = []
        for _ in 0..<250 {
            let op = random.int(in: 0...11)
            log.append("op \(op) dirs \(directories) files \(files)")
            switch op {
            case 0, 1:
                let path = join(random.pick(directories), fresh("f") + ".jpg")
                try tree.write(path, "\(counter)")
                files.append(path)
            case 2:
                guard let path = random.anyElement(files) else { continue }
                try tree.write(path, "edit \(counter)")
            case 3:
                guard let path = random.anyElement(files) else { continue }
                let target = random.chance(0.3) ? (random.anyElement(files) ?? path) : join(random.pick(directories), fresh("r") + ".jpg")
                try tree.rename(path, target)
                files.removeAll { $0 == path || $0 == target }
                files.append(target)
            case 4:
                guard let path = random.anyElement(files) else { continue }
                try tree.remove(path)
                files.removeAll { $0 == path }
            case 5:
                var path = join(random.pick(directories), fresh("d"))
                try tree.mkdir(path)
                directories.append(path)
                for _ in 0..<random.int(in: 0...2) {
                    path = join(path, fresh("n"))
                    try tree.mkdir(path)
                    directories.append(path)
                }
                if random.chance(0.5) {
                    let file = join(path, fresh("g") + ".jpg")
                    try tree.write(file)
                    files.append(file)
                }
            case 6:
                let candidates = directories.filter { !$0.isEmpty }
                guard let source = random.anyElement(candidates) else { continue }
                let parent = random.pick(directories.filter { !MirrorConsumer.isSameOrBelow($0, source) })
                let target = join(parent, fresh("m"))
                try tree.rename(source, target)
                directories = directories.map { MirrorConsumer.isSameOrBelow($0, source) ? target + $0.dropFirst(source.count) : $0 }
                files = files.map { MirrorConsumer.isSameOrBelow($0, source) ? target + $0.dropFirst(source.count) : $0 }
            case 7:
                guard let source = random.anyElement(directories.filter { !$0.isEmpty }) else { continue }
                try tree.remove(source)
                dropBelow(source)
            case 8:
                guard let source = random.anyElement(directories.filter { !$0.isEmpty }) else { continue }
                let name = fresh("out")
                try TemporaryTree.check(Glibc.rename(tree.absolute(source), outside.absolute(name)), "rename out")
                dropBelow(source)
                outsideDirectories.append(name)
                if random.chance(0.5) { try outside.write(name + "/later.jpg") }
            case 9:
                guard let name = outsideDirectories.popLast() else { continue }
                let target = join(random.pick(directories), fresh("back"))
                try TemporaryTree.check(Glibc.rename(outside.absolute(name), tree.absolute(target)), "rename in")
                let inside = MirrorConsumer.scan(root: tree.path, below: target, isIgnored: { _, _ in false })
                files.append(contentsOf: inside)
                directories.append(target)
                var stack = [target]
                while let directory = stack.popLast() {
                    for name in (try? FileManager.default.contentsOfDirectory(atPath: tree.absolute(directory))) ?? [] where name != "@eaDir" {
                        var isDirectory: ObjCBool = false
                        if FileManager.default.fileExists(atPath: tree.absolute(directory + "/" + name), isDirectory: &isDirectory), isDirectory.boolValue {
                            directories.append(directory + "/" + name)
                            stack.append(directory + "/" + name)
                        }
                    }
                }
            case 10:
                // Atomic save through an ignored temporary file.
                let path = random.anyElement(files) ?? join(random.pick(directories), fresh("s") + ".jpg")
                try tree.write(path + ".tmp", "saved \(counter)")
                try tree.rename(path + ".tmp", path)
                if !files.contains(path) { files.append(path) }
            default:
                let directory = join(random.pick(directories), "@eaDir")
                try tree.mkdir(directory)
                try tree.write(directory + "/" + fresh("thumb") + ".jpg")
            }
        }
        _ = try await recorder.sync(tree)
        let expected = MirrorConsumer.scan(root: tree.path, below: "", isIgnored: Self.isIgnored)
            .filter { !$0.hasPrefix("sentinel-") }
        let mirrored = mirror.snapshot.filter { !$0.hasPrefix("sentinel-") }
        if mirrored != expected || watcher.watchedDirectoryCount != directories.count {
            print("seed \(seed), buffer \(readBufferSize), operations:\n\(log.joined(separator: "\n"))\nEVENTS:\n\(recorder.events.map { "\($0)" }.joined(separator: "\n"))")
        }
        #expect(mirrored == expected, "seed \(seed), buffer \(readBufferSize): missing \(expected.subtracting(mirrored).sorted()), extra \(mirrored.subtracting(expected).sorted())")
        #expect(Set(files.filter { !$0.contains("@eaDir") }) == expected, "the test's own bookkeeping")
        // Every directory that exists and is not ignored is watched.
        let directoryCount = directories.count
        #expect(watcher.watchedDirectoryCount == directoryCount, "seed \(seed), buffer \(readBufferSize)")
    }
}
