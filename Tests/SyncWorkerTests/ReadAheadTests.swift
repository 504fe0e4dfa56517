import Foundation
import MediaProbe
import PhotoLibrary
import SeededRandom
import Synchronization
import Testing

@testable import SyncWorker

/// One library mirroring a folder, as seen from outside: what each of its transactions did, and every
/// asset's state, with assets named by where they were born (the round and the path they were inserted at)
/// rather than by their identifiers, which differ from one library to another.
struct MirrorTranscript {
    /// Birth names of the assets seen so far, by local identifier.
    private var births: [String: String] = [:]
    private var lastToken: ChangeToken

    init(_ library: PhotoLibrary) throws {
        lastToken = try library.currentChangeToken
    }
    /// Per transaction: its author, and the birth names it inserted, updated and deleted, each sorted; then
    /// the albums and folders it inserted, updated and deleted (by count: their identifiers differ too).
    private(set) var transactions: [String] = []
    /// Per round: each current path with its asset's birth name, content and metadata; the album tree.
    private(set) var states: [String] = []

    mutating func record(round: Int, _ box: Sandbox, library: PhotoLibrary) throws {
        let assets = Array(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)))
        var pathOf: [String: String] = [:]
        for asset in assets {
            pathOf[asset.localIdentifier] = String(try #require(asset.filePath).dropFirst(box.root.path.count + 1))
        }
        for change in Array(try library.fetchPersistentChanges(since: lastToken)) {
            let details = try change.changeDetails(for: .asset)
            for id in details.insertedLocalIdentifiers where births[id] == nil {
                births[id] = "r\(round):" + (pathOf[id] ?? "gone")
            }
            let births = self.births
            let name = { (ids: Set<String>) in ids.map { births[$0] ?? "?" }.sorted().joined(separator: ",") }
            var line = "\(change.author) +[\(name(details.insertedLocalIdentifiers))] ~[\(name(details.updatedLocalIdentifiers))] -[\(name(details.deletedLocalIdentifiers))]"
            for type in [ObjectType.assetCollection, .collectionList] {
                let collections = try change.changeDetails(for: type)
                line += " \(type):\(collections.insertedLocalIdentifiers.count)/\(collections.updatedLocalIdentifiers.count)/\(collections.deletedLocalIdentifiers.count)"
            }
            transactions.append(line)
        }
        lastToken = try library.currentChangeToken
        var lines: [String] = []
        for asset in assets {
            let path = pathOf[asset.localIdentifier]!
            lines.append(
                "\(path) \(births[asset.localIdentifier] ?? "?") \(asset.contentHash ?? "-") \(asset.mediaType) "
                    + "\(asset.pixelWidth)x\(asset.pixelHeight) \(asset.creationDate.map { "\($0.timeIntervalSince1970)" } ?? "-")")
        }
        states.append(lines.sorted().joined(separator: "\n") + "\n" + (try box.normalisedTree(of: library)).sorted().joined(separator: "\n"))
    }
}

extension Sandbox {
    /// ``normalisedTree()`` of another library mirroring the same folder.
    func normalisedTree(of other: PhotoLibrary) throws -> Set<String> {
        var lines = Set<String>()
        func visit(_ collections: FetchResult<PhotoCollection>, prefix: String) throws {
            for collection in collections {
                switch collection {
                case .assetCollection(let album):
                    // In album order: the order in which the files were mirrored.
                    let names = try other.fetchAssets(in: album, options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
                        .map(\.originalFilename).joined(separator: " ")
                    lines.insert("A:\(prefix)\(album.localizedTitle ?? "?"): \(names)")
                case .collectionList(let folder):
                    let path = prefix + (folder.localizedTitle ?? "?")
                    lines.insert("F:" + path)
                    try visit(try other.fetchCollections(in: folder), prefix: path + "/")
                }
            }
        }
        try visit(try other.fetchTopLevelUserCollections(), prefix: "")
        return lines
    }
}

// SQLite only: the subject is how the folder's files are read (ahead, in parallel); the library's storage
// plays no part that the scan, model-based and watch suites don't run on both engines.
@Suite("Sync worker: files read ahead")
struct ReadAheadTests {
    /// A random tree: media of two kinds, duplicates, files that are not media, empty files and hidden ones,
    /// in nested directories.
    static func randomTree(_ box: Sandbox, _ model: inout FolderModel, _ random: inout SplitMix64) {
        let directories = ["", "Alpha", "Alpha/Beta", "Gamma", "Gamma/Delta/Epsilon"]
        for index in 0..<random.int(in: 10...60) {
            let path = FileSystem.join(random.pick(directories), "file\(index)" + random.pick([".jpg", ".png", ".txt", ".JPG"]))
            let bytes: [UInt8]
            switch random.int(in: 0...9) {
            case 0: bytes = Array("not a photo \(index)".utf8)
            case 1: bytes = []
            case 2 where !model.files.isEmpty: bytes = model.files.values.first!.bytes
            case 3...5: bytes = Media.pngImage(index)
            default: bytes = Media.jpeg(index)
            }
            box.write(path, bytes)
            if bytes.starts(with: Media.camera.prefix(4)) || bytes.starts(with: Media.png.prefix(4)) {
                model.files[path] = FolderModel.File(bytes: bytes, identity: model.newIdentity())
            }
        }
        box.write("Alpha/.hidden.jpg", Media.jpeg(9999))
    }

    /// Mirrors one random folder into two libraries, reading its files one by one in one and with `readers`
    /// readers in the other, over rounds of random changes; every round, both must have committed the same
    /// transactions in the same order and hold the same assets, identities and albums.
    static func compare(seed: UInt64, readers: Int) async throws {
        let box = try Sandbox()
        var random = SplitMix64(seed: seed)
        var model = FolderModel()
        box.write("keep.jpg", Media.jpeg(0))  // never touched: the root is never empty
        model.files["keep.jpg"] = FolderModel.File(bytes: Media.jpeg(0), identity: model.newIdentity())
        randomTree(box, &model, &random)
        let batchFileLimit = random.int(in: 1...9)
        func options(_ readers: Int) -> (inout FolderMirrorOptions) -> Void {
            { options in
                options.fileReaders = readers
                options.batchFileLimit = batchFileLimit
                options.batchTimeLimit = .seconds(3600)  // Batches by count only: the same in both libraries.
                options.allowMassDeletion = true
            }
        }
        let serial = try box.mirror(options(1))
        let other = try PhotoLibrary(url: box.base.appending(path: "Parallel.photosync"))
        var parallelOptions = FolderMirrorOptions()
        options(readers)(&parallelOptions)
        let parallel = try FolderMirror(library: other, root: box.root, options: parallelOptions)
        var expected = try MirrorTranscript(box.library)
        var actual = try MirrorTranscript(other)
        for round in 0..<4 {
            if round > 0 {
                for _ in 0..<random.int(in: 1...12) { ModelTests.randomOperation(box, &model, &random) }
            }
            var one = try await serial.scan()
            var two = try await parallel.scan()
            (one.duration, two.duration) = (0, 0)
            #expect(one == two, "seed \(seed) round \(round): the summaries differ")
            try expected.record(round: round, box, library: box.library)
            try actual.record(round: round, box, library: other)
            #expect(actual.transactions == expected.transactions, "seed \(seed) round \(round), batches of \(batchFileLimit)")
            #expect(actual.states == expected.states, "seed \(seed) round \(round)")
        }
        #expect(expected.transactions.count > 4, "seed \(seed): a pass of several batches")
    }

    @Test("A pass cancelled while readers are ahead commits exactly the files it decided — its current batch included — and none read ahead; the next pass converges")
    func cancelledWhileAhead() async throws {
        let box = try Sandbox()
        for index in 0..<80 { box.write("a/\(index).jpg", Media.jpeg(index)) }
        let mirror = try box.mirror {
            $0.fileReaders = 3
            $0.batchFileLimit = 6
        }
        let decided = Mutex<[String]>([])
        let task = Task { () async throws(SyncError) -> ScanSummary in
            try await mirror.scan { progress in
                guard progress.phase == .hashing, let path = progress.currentPath else { return }
                let count = decided.withLock { decided in
                    decided.append(path)
                    return decided.count
                }
                if count == 20 { withUnsafeCurrentTask { $0?.cancel() } }
            }
        }
        let summary = try await task.value
        #expect(summary.interrupted)
        let committed = Set(try box.assetsByPath().keys)
        #expect(committed == Set(decided.withLock { $0 }))
        #expect(committed.count == 20)
        let finished = try await mirror.scan()
        #expect(!finished.interrupted && finished.inserted == 60)
        #expect(try box.assets().count == 80)
    }

    @Test("Random trees and changes: files read ahead commit exactly what files read one by one do — same batches in the same order, same assets, identities and albums", arguments: [1, 2, 3, 4, 5, 6] as [UInt64])
    func sameCommitsAsSerial(seed: UInt64) async throws {
        try await Self.compare(seed: seed, readers: Int(seed % 3) + 2)
    }
}

@Suite("Read-ahead: order, bounds, stopping")
struct ReadAheadUnitTests {
    /// Files of random sizes, some past the 1 MiB a probe reads at once, and some that are not media.
    static func files(_ box: Sandbox, count: Int, seed: UInt64) -> [ReadAhead.Candidate] {
        var random = SplitMix64(seed: seed)
        var files: [ReadAhead.Candidate] = []
        for index in 0..<count {
            var bytes = random.chance(0.2) ? Array("text \(index)".utf8) : Media.jpeg(index)
            if random.chance(0.1) { bytes += [UInt8](repeating: UInt8(index % 251), count: random.int(in: 1...(3 << 20))) }
            box.write("f\(index).jpg", bytes)
            files.append(("f\(index).jpg", FileSystem.stamp(box.path("f\(index).jpg"))!.0))
        }
        return files
    }

    static func serial(_ box: Sandbox, _ file: ReadAhead.Candidate, buffer: ProbeBuffer) -> String {
        describe(FileHasher.hash(root: box.root.path, path: file.path, stamp: file.stamp, timeZone: .gmt, buffer: buffer))
    }

    static func describe(_ outcome: FileHasher.Outcome?) -> String {
        switch outcome {
        case .hashed(let hashed)?: "\(hashed.path) \(hashed.hash) \(hashed.probe.metadata.pixelWidth ?? 0)"
        case .notMedia?: "not media"
        case .stillBeingWritten?: "still being written"
        case .vanished?: "vanished"
        case .unreadable(let reason)?: "unreadable \(reason)"
        case nil: "end"
        }
    }

    @Test("Outcomes come in the order of the list, each what reading the file alone gives", arguments: [(1, 1), (2, 3), (3, 8), (4, 64)])
    func inOrder(readers: Int, window: Int) throws {
        let box = try Sandbox()
        let files = Self.files(box, count: 80, seed: UInt64(readers * 100 + window))
        let buffer = ProbeBuffer()
        let expected = files.map { Self.serial(box, $0, buffer: buffer) } + ["end"]
        let readAhead = ReadAhead(files: files, root: box.root.path, timeZone: .gmt, openFileQuiet: nil, readers: readers, window: max(window, readers))
        defer { readAhead.stop() }
        var outcomes: [String] = []
        for _ in 0...files.count { outcomes.append(Self.describe(readAhead.next())) }
        #expect(outcomes == expected)
    }

    @Test("Readers never start a file more than the window ahead of the one taken next")
    func bounded() async throws {
        let box = try Sandbox()
        let files = Self.files(box, count: 40, seed: 7)
        let window = 5
        let readAhead = ReadAhead(files: files, root: box.root.path, timeZone: .gmt, openFileQuiet: nil, readers: 3, window: window)
        defer { readAhead.stop() }
        for taken in 0..<files.count {
            // Wait until the readers have filled the window (or reached the end), then check they went no further.
            let deadline = ContinuousClock.now + .seconds(60)
            while readAhead.filesStarted < min(taken + window, files.count) {
                #expect(ContinuousClock.now < deadline, "the readers stopped short of the window")
                try await Task.sleep(for: .milliseconds(1))
            }
            #expect(readAhead.filesStarted <= taken + window)
            _ = readAhead.next()
        }
        #expect(Self.describe(readAhead.next()) == "end")
    }

    @Test("Stopping early ends every reader (a cancelled pass); stopping twice, or after the end, is harmless")
    func stopping() throws {
        let box = try Sandbox()
        let files = Self.files(box, count: 60, seed: 9)
        for taken in [0, 3, 60] {
            let readAhead = ReadAhead(files: files, root: box.root.path, timeZone: .gmt, openFileQuiet: nil, readers: 3, window: 8)
            for _ in 0..<taken { _ = readAhead.next() }
            readAhead.stop()
            readAhead.stop()
            #expect(readAhead.filesStarted <= min(taken + 8, files.count))
        }
    }

    @Test("A reader makes the stat checks: a file changed since the walk is still being written, a file removed vanished")
    func statChecks() throws {
        let box = try Sandbox()
        var files: [ReadAhead.Candidate] = []
        for index in 0..<6 {
            box.write("\(index).jpg", Media.jpeg(index))
            files.append(("\(index).jpg", FileSystem.stamp(box.path("\(index).jpg"))!.0))
        }
        box.append("1.jpg", [1, 2, 3])
        box.remove("3.jpg")
        files[4].stamp.mtimeNs -= 1_000_000_000  // The walk saw an older version.
        let readAhead = ReadAhead(files: files, root: box.root.path, timeZone: .gmt, openFileQuiet: nil, readers: 2, window: 4)
        defer { readAhead.stop() }
        let outcomes = files.map { _ in Self.describe(readAhead.next()) }
        #expect(outcomes[1] == "still being written")
        #expect(outcomes[3] == "vanished")
        #expect(outcomes[4] == "still being written")
        #expect(outcomes[0].hasPrefix("0.jpg ") && outcomes[2].hasPrefix("2.jpg ") && outcomes[5].hasPrefix("5.jpg "))
    }
}
