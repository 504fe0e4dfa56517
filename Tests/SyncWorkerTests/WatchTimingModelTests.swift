import Foundation
import Logging
import PhotoLibrary
import SeededRandom
import Testing

@testable import SyncWorker

/// The oracle of the random-timing test: the files of the folder, each with the identity it had when the run
/// started (nil for a file created during the run), and whether its identifier may change (edited and moved).
struct TimingOracle {
    struct File {
        var bytes: [UInt8]
        /// The asset identifier the file had at the start; nil for a file created during the run.
        var identifier: String?
        var edited = false
        var moved = false
        /// Edited and moved, in any order: the rules may see a new file (a new path with a new hash).
        var mayChangeIdentity: Bool { edited && moved }
        /// Edited, or moved, since the last identity change counted for it (``TimingOracle/identityChanges``).
        var editedSinceCounted = false
        var movedSinceCounted = false
    }

    var files: [String: File] = [:]
    /// Files created; files deleted or renamed over; files edited and moved (each may be re-inserted once).
    var created = 0
    var removed = 0
    /// The identity changes the rules allow: one each time a file has been both edited and moved since the last
    /// one counted for it. A file whose identity may have changed and that was removed later still counts: the
    /// mirror may have inserted it anew, and deleted what it had, before the removal.
    var identityChanges = 0

    /// Marks `file` edited and/or moved, counting an identity change when it has become both.
    mutating func record(_ file: inout File, edited: Bool = false, moved: Bool = false) {
        if edited { (file.edited, file.editedSinceCounted) = (true, true) }
        if moved { (file.moved, file.movedSinceCounted) = (true, true) }
        if file.editedSinceCounted && file.movedSinceCounted {
            identityChanges += 1
            (file.editedSinceCounted, file.movedSinceCounted) = (false, false)
        }
    }

    /// Marks the file at `path` edited.
    mutating func recordEdit(_ path: String) {
        var file = files[path]!
        record(&file, edited: true)
        files[path] = file
    }

    var directories: [String] { directoriesHolding(files.keys) }
}

/// Random renames, moves across folders, folder renames, touches, edits, deletes and creates, with random
/// gaps below and above the settle interval, against the live watcher; then the barrier. The library must
/// mirror the folder, and every file kept its identifier unless it was both edited and moved.
@Suite("Sync worker: identity under random timing")
struct WatchTimingModelTests {
    static let settle = Duration.milliseconds(300)
    static let names = ["p0.jpg", "p1.jpg", "p2.jpg", "p3.jpg", "P0.jpg"]
    static let folders = ["A", "B", "C", "Deep"]

    /// One operation on the folder and on the oracle; returns what it did, for the failure report.
    static func step(_ box: Sandbox, _ oracle: inout TimingOracle, _ random: inout SplitMix64, variant: Int) -> String {
        let paths = oracle.files.keys.sorted()
        let directories = oracle.directories
        func someDirectory() -> String { random.chance(0.2) ? "" : (random.anyElement(directories) ?? "") }
        func target(in directory: String) -> String { FileSystem.join(directory, random.pick(names)) }
        switch paths.isEmpty ? 0 : random.int(in: 0...11) {
        case 0:  // create (sometimes with the content of another file)
            let path = target(in: someDirectory())
            guard oracle.files[path] == nil else { return "skip" }
            let bytes = random.chance(0.2) && !paths.isEmpty ? oracle.files[random.pick(paths)]!.bytes : Media.jpeg(variant)
            box.write(path, bytes)
            oracle.files[path] = TimingOracle.File(bytes: bytes, identifier: nil)
            oracle.created += 1
            return "create \(path)"
        case 1, 2, 3:  // rename or move a file, possibly over another one
            let from = random.pick(paths)
            let to = target(in: random.chance(0.5) ? FileSystem.parent(of: from) : someDirectory())
            guard to != from, FileSystem.stamp(box.path(to))?.mode != S_IFDIR else { return "skip" }
            box.move(from, to)
            if oracle.files[to] != nil { oracle.removed += 1 }
            var file = oracle.files.removeValue(forKey: from)!
            oracle.record(&file, moved: true)
            oracle.files[to] = file
            return "mv \(from) \(to)"
        case 4, 5:  // rename or move a folder
            guard let directory = random.anyElement(directories) else { return "skip" }
            let parent = random.chance(0.5) ? FileSystem.parent(of: directory) : (random.anyElement(directories) ?? "")
            let to = FileSystem.join(parent, random.pick(folders) + "\(random.int(in: 1...3))")
            guard FileSystem.stamp(box.path(to)) == nil, !FileSystem.isWithin(to, directory) else { return "skip" }
            box.move(directory, to)
            for path in oracle.files.keys where FileSystem.isWithin(path, directory) {
                var file = oracle.files.removeValue(forKey: path)!
                oracle.record(&file, moved: true)
                oracle.files[to + path.dropFirst(directory.count)] = file
            }
            return "mv \(directory) \(to)"
        case 6, 7:  // touch: metadata only
            let path = random.pick(paths)
            box.touch(path)
            return "touch \(path)"
        case 8:  // edit in place
            let path = random.pick(paths)
            let extra = Array("edit \(variant)".utf8)
            box.append(path, extra)
            oracle.files[path]!.bytes += extra
            oracle.recordEdit(path)
            return "edit \(path)"
        case 9:  // atomic save through an ignored temporary file
            let path = random.pick(paths)
            let bytes = Media.jpeg(variant)
            let temporary = FileSystem.join(FileSystem.parent(of: path), ".save.tmp")
            box.write(temporary, bytes)
            box.move(temporary, path)
            oracle.files[path]!.bytes = bytes
            oracle.recordEdit(path)
            return "save \(path)"
        case 10:  // delete a file
            let path = random.pick(paths)
            box.remove(path)
            oracle.files[path] = nil
            oracle.removed += 1
            return "rm \(path)"
        default:  // a new folder with a file
            let path = FileSystem.join(FileSystem.join(someDirectory(), random.pick(folders) + "\(random.int(in: 4...6))"), random.pick(names))
            guard FileSystem.stamp(box.path(FileSystem.parent(of: path))) == nil else { return "skip" }
            box.write(path, Media.jpeg(variant))
            oracle.files[path] = TimingOracle.File(bytes: Media.jpeg(variant), identifier: nil)
            oracle.created += 1
            return "create \(path)"
        }
    }

    /// A gap below the settle interval, a little above it, or well above it (rounds run in between).
    static func gap(_ random: inout SplitMix64) -> Duration {
        switch random.int(in: 0...5) {
        case 0: .zero
        case 1, 2: settle * Double(random.int(in: 5...80)) / 100
        case 3, 4: settle * Double(random.int(in: 110...180)) / 100
        default: settle * Double(random.int(in: 200...400)) / 100
        }
    }

    /// The seeds run: four in CI; `PHOTOSYNC_TIMING_SEEDS=1-40` or `=12,12,12` runs others (to explore, or to
    /// replay one; timing makes a replay differ, so repeat it).
    static let seeds: [UInt64] = {
        guard let text = ProcessInfo.processInfo.environment["PHOTOSYNC_TIMING_SEEDS"] else { return [31, 32, 33, 34] }
        return text.split(separator: ",").flatMap { part -> [UInt64] in
            let bounds = part.split(separator: "-").compactMap { UInt64($0) }
            guard let first = bounds.first, let last = bounds.last, first <= last else { return [] }
            return Array(first...last)
        }
    }()

    @Test("Random operations with random gaps around the settle interval, then the barrier: library == folder, identities kept", arguments: seeds, LibraryEngine.both)
    func randomTiming(seed: UInt64, engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        var random = SplitMix64(seed: seed)
        var oracle = TimingOracle()
        box.write("keep.jpg", Media.jpeg(0))  // never touched: the root is never empty
        for (index, path) in ["A/p0.jpg", "A/p1.jpg", "A/p2.jpg", "B/p0.jpg", "B/Deep1/p1.jpg", "C/p3.jpg"].enumerated() {
            box.write(path, Media.jpeg(index + 1))
        }
        let start = ContinuousClock.now
        let mirror = try box.mirror {
            $0.settleInterval = Self.settle
            $0.allowMassDeletion = true
            if ProcessInfo.processInfo.environment["PHOTOSYNC_TIMING_DEBUG"] != nil {
                $0.logger = Logger(label: "seed \(seed) \(box.base.lastPathComponent.suffix(8))") { label in
                    ElapsedLogHandler(label: label, start: start)
                }
            }
        }
        var log: [String] = []
        try await whileWatching(mirror) {
            try await mirror.sync()
            for (path, asset) in try box.assetsByPath() where path != "keep.jpg" {
                oracle.files[path] = TimingOracle.File(bytes: try Data(contentsOf: URL(fileURLWithPath: box.path(path))).map { $0 }, identifier: asset.localIdentifier)
            }
            let token = try box.library.currentChangeToken
            for index in 0..<24 {
                let pause = Self.gap(&random)
                try await Task.sleep(for: pause)  // the gap under test
                let elapsed = String(format: "%.3f", (ContinuousClock.now - start).seconds)
                log.append("t=\(elapsed) " + Self.step(box, &oracle, &random, variant: 1000 + index))
            }
            try await Task.sleep(for: Self.gap(&random))
            try await mirror.sync()

            let context = "seed \(seed) (\(box.base.lastPathComponent.suffix(8))):\n" + log.joined(separator: "\n")
            var expected = oracle.files.mapValues(\.bytes)
            expected["keep.jpg"] = Media.jpeg(0)
            try box.expectMirrors(expected)
            let byPath = try box.assetsByPath()
            for (path, file) in oracle.files {
                guard let identifier = file.identifier, !file.mayChangeIdentity else { continue }
                #expect(byPath[path]?.localIdentifier == identifier, "\(path) lost its identifier; \(context)")
            }
            // No spurious delete + insert of a file created during the run either.
            let journal = try AssetJournal(box.library, since: token)
            let allowed = oracle.identityChanges
            #expect(Set(journal.inserted).count <= oracle.created + allowed, "inserted \(journal.inserted.count); \(context)")
            #expect(Set(journal.deleted).count <= oracle.removed + allowed, "deleted \(journal.deleted.count); \(context)")
        }
    }
}

/// Prints a mirror's log with the time since the test started, to read it beside the operations.
struct ElapsedLogHandler: LogHandler {
    let label: String
    let start: ContinuousClock.Instant
    var logLevel: Logger.Level = .debug
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let elapsed = String(format: "%.3f", (ContinuousClock.now - start).seconds)
        let extra = (event.metadata ?? [:]).map { "\($0)=\($1)" }.joined(separator: " ")
        print("[\(label)] t=\(elapsed) \(event.message) \(extra)")
    }
}
