import Foundation
import PhotoLibrary
import MediaProbe
import SeededRandom
import Testing

@testable import SyncWorker

/// The two halves of Live Photos: stills built byte by byte (a JPEG whose EXIF carries an Apple maker note
/// with a content identifier, tag 0x11) and the QuickTime fixture with its identifier rewritten.
enum LiveMedia {
    /// The identifier `clip.mov` carries.
    static let fixtureIdentifier = "4F1E2D3C-0000-4000-8000-00000000BEEF"
    static let clip = Media.fixture("clip.mov")

    /// An identifier of the fixture's length (so the movie's boxes keep their sizes).
    static func identifier(_ n: Int) -> String {
        n == 0 ? fixtureIdentifier : "4F1E2D3C-0000-4000-8000-" + String(format: "%012d", n)
    }

    /// A movie carrying identifier `n`; `variant` makes distinct content with the same identifier.
    static func movie(_ n: Int, variant: Int = 0) -> [UInt8] {
        let from = Array(fixtureIdentifier.utf8)
        let to = Array(identifier(n).utf8)
        var bytes = clip
        let start = bytes.indices.first { bytes[$0..<min(bytes.count, $0 + from.count)].elementsEqual(from) }!
        bytes.replaceSubrange(start..<start + to.count, with: to)
        if variant != 0 {
            // A top-level `free` box after `mdat`: readers skip it, the content hash changes.
            let payload = Array("variant \(variant)".utf8)
            bytes += be32(UInt32(8 + payload.count)) + Array("free".utf8) + payload
        }
        return bytes
    }

    /// A JPEG still whose Apple maker note carries identifier `n` (none for nil); `variant` makes distinct
    /// content (bytes after the end of image).
    static func still(_ n: Int?, variant: Int = 0) -> [UInt8] {
        var exif: [(UInt16, [UInt8], UInt16, UInt32)] = []  // tag, bytes, type, count
        if let n {
            let text = Array(identifier(n).utf8) + [0]
            // "Apple iOS\0", version 1, "MM", then an IFD whose offsets are relative to the note (at 14).
            let header = Array("Apple iOS".utf8) + [0, 0, 1] + Array("MM".utf8)
            let note = header + ifd([(0x0001, be32(14), 9, 1), (0x0011, text, 2, UInt32(text.count))], at: 14)
            exif.append((0x927C, note, 7, UInt32(note.count)))
        }
        let make = Array("Apple".utf8) + [0]
        let model = Array("iPhone 15".utf8) + [0]
        var tiff: [UInt8] = Array("MM".utf8) + [0, 42, 0, 0, 0, 8]
        let ifd0Entries: [(UInt16, [UInt8], UInt16, UInt32)] = [
            (0x010F, make, 2, UInt32(make.count)), (0x0110, model, 2, UInt32(model.count)), (0x8769, be32(0), 4, 1),
        ]
        let ifd0Size = ifd(ifd0Entries, at: 8).count
        let exifOffset = 8 + ifd0Size
        tiff += ifd(ifd0Entries.map { $0.0 == 0x8769 ? ($0.0, be32(UInt32(exifOffset)), 4, 1) : $0 }, at: 8)
        tiff += ifd(exif, at: exifOffset)

        var out: [UInt8] = [0xFF, 0xD8]
        let payload = Array("Exif".utf8) + [0, 0] + tiff
        out += [0xFF, 0xE1] + be16(UInt16(payload.count + 2)) + payload
        let sof: [UInt8] = [8] + be16(48) + be16(64) + [1, 1, 0x11, 0]
        out += [0xFF, 0xC0] + be16(UInt16(sof.count + 2)) + sof
        out += [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 0x3F, 0, 0x12, 0x34, 0xFF, 0xD9]
        return out + Array("variant \(variant)".utf8)
    }

    /// One big-endian IFD at `offset`, its out-of-line values right after it.
    private static func ifd(_ entries: [(tag: UInt16, bytes: [UInt8], type: UInt16, count: UInt32)], at offset: Int) -> [UInt8] {
        var table = be16(UInt16(entries.count))
        var data: [UInt8] = []
        let dataStart = offset + 2 + entries.count * 12 + 4
        for entry in entries.sorted(by: { $0.tag < $1.tag }) {
            table += be16(entry.tag) + be16(entry.type) + be32(entry.count)
            if entry.bytes.count <= 4 {
                table += entry.bytes + [UInt8](repeating: 0, count: 4 - entry.bytes.count)
            } else {
                table += be32(UInt32(dataStart + data.count))
                data += entry.bytes
                if entry.bytes.count & 1 == 1 { data.append(0) }
            }
        }
        return table + be32(0) + data
    }

    private static func be16(_ value: UInt16) -> [UInt8] { [UInt8(value >> 8), UInt8(value & 0xFF)] }
    private static func be32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}

extension Sandbox {
    /// The relative paths of the assets carrying `photoLive`.
    func livePaths() throws -> Set<String> {
        Set(try assetsByPath().filter { $0.value.mediaSubtypes.contains(.photoLive) }.keys)
    }
}

@Suite("Sync worker: Live Photo pairs")
struct LivePhotoTests {
    @Test("The synthetic still and the movie fixture carry the identifiers the pairing reads", arguments: LibraryEngine.both)
    func fixtures(engine: LibraryEngine) throws {
        let box = try Sandbox(engine: engine)
        box.write("s.jpg", LiveMedia.still(7))
        box.write("m.mov", LiveMedia.movie(7))
        box.write("n.mov", LiveMedia.movie(0, variant: 1))
        let still = try MediaProbeFacade.probe(box.path("s.jpg"))
        let movie = try MediaProbeFacade.probe(box.path("m.mov"))
        let fixture = try MediaProbeFacade.probe(box.path("n.mov"))
        #expect(still.kind == "image" && still.identifier == LiveMedia.identifier(7))
        #expect(movie.kind == "video" && movie.identifier == LiveMedia.identifier(7))
        #expect(fixture.kind == "video" && fixture.identifier == LiveMedia.fixtureIdentifier)
    }

    @Test("A still and a movie with one identifier in one directory pair in one scan; the movie stays a video asset without the subtype", arguments: LibraryEngine.both)
    func pairInOneScan(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("Trip/IMG_0001.JPG", LiveMedia.still(1))
        box.write("Trip/IMG_0001.MOV", LiveMedia.movie(1))
        box.write("Trip/IMG_0002.JPG", LiveMedia.still(2))  // its movie is elsewhere: not a pair
        box.write("Other/IMG_0002.MOV", LiveMedia.movie(2))
        box.write("Trip/IMG_0003.JPG", LiveMedia.still(3))  // no movie at all
        box.write("Trip/IMG_0004.JPG", LiveMedia.still(4))  // a movie with another identifier beside it
        box.write("Trip/IMG_0004.MOV", LiveMedia.movie(5))
        box.write("Trip/plain.jpg", LiveMedia.still(nil))
        let summary = try await box.mirror().scan()
        #expect(summary.inserted == 8)
        #expect(try box.livePaths() == ["Trip/IMG_0001.JPG"])
        let movie = try #require(try box.assetsByPath()["Trip/IMG_0001.MOV"])
        #expect(movie.mediaType == .video)
        #expect(movie.mediaSubtypes.isEmpty)
        // The pairing changes nothing on a rescan, in this process or another.
        let token = try box.library.currentChangeToken
        try await box.mirror().scan()
        #expect(try box.library.currentChangeToken == token)
    }

    @Test("Pairs hold whatever batches the halves land in, still first or movie first", arguments: [1, 2, 500], LibraryEngine.both)
    func pairAcrossBatches(batchFileLimit: Int, engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a/1.jpg", LiveMedia.still(1))  // hashed before its movie
        box.write("a/2.mov", LiveMedia.movie(1))
        box.write("b/1.mov", LiveMedia.movie(2))  // hashed before its still
        box.write("b/2.jpg", LiveMedia.still(2))
        box.write("b/3.jpg", LiveMedia.still(3))
        try await box.mirror { $0.batchFileLimit = batchFileLimit }.scan()
        #expect(try box.livePaths() == ["a/1.jpg", "b/2.jpg"])
    }

    @Test("A still mirrored first pairs when its movie arrives in a later scan, and the other way round", arguments: LibraryEngine.both)
    func pairAcrossScans(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("still-first/IMG.JPG", LiveMedia.still(1))
        box.write("movie-first/IMG.MOV", LiveMedia.movie(2))
        let mirror = try box.mirror()
        try await mirror.scan()
        #expect(try box.livePaths().isEmpty)
        let stillBefore = try #require(try box.assetsByPath()["still-first/IMG.JPG"])

        let token = try box.library.currentChangeToken
        box.write("still-first/IMG.MOV", LiveMedia.movie(1))
        box.write("movie-first/IMG.JPG", LiveMedia.still(2))
        try await mirror.scan()
        #expect(try box.livePaths() == ["still-first/IMG.JPG", "movie-first/IMG.JPG"])
        // The still mirrored first is the same asset, updated (not re-inserted), and its content unchanged.
        let changes = try box.library.fetchPersistentChanges(since: token, options: PersistentChangeFetchOptions(coalesced: true))
        let change = try #require(Array(changes).first)
        let details = try change.changeDetails(for: .asset)
        #expect(details.updatedLocalIdentifiers.contains(stillBefore.localIdentifier))
        let still = try #require(try box.assetsByPath()["still-first/IMG.JPG"])
        #expect(still.localIdentifier == stillBefore.localIdentifier)
        #expect(still.contentHash == stillBefore.contentHash)
    }

    @Test("A movie deleted, moved away or rewritten with another identifier unpairs its still; moved back, it pairs again", arguments: LibraryEngine.both)
    func unpair(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("Trip/a.jpg", LiveMedia.still(1))
        box.write("Trip/a.mov", LiveMedia.movie(1))
        box.write("Trip/b.jpg", LiveMedia.still(2))
        box.write("Trip/b.mov", LiveMedia.movie(2))
        box.write("Trip/c.jpg", LiveMedia.still(3))
        box.write("Trip/c.mov", LiveMedia.movie(3))
        let mirror = try box.mirror()
        try await mirror.scan()
        #expect(try box.livePaths() == ["Trip/a.jpg", "Trip/b.jpg", "Trip/c.jpg"])

        box.remove("Trip/a.mov")
        box.move("Trip/b.mov", "Elsewhere/b.mov")
        box.write("Trip/c.mov", LiveMedia.movie(4))
        try await mirror.scan()
        #expect(try box.livePaths() == [])

        box.move("Elsewhere/b.mov", "Trip/b.mov")
        box.write("Trip/c.mov", LiveMedia.movie(3, variant: 1))
        try await mirror.scan()
        #expect(try box.livePaths() == ["Trip/b.jpg", "Trip/c.jpg"])
    }

    @Test("A paired still edited in place keeps the subtype; a still moved away from its movie loses it", arguments: LibraryEngine.both)
    func editAndMoveTheStill(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", LiveMedia.still(1))
        box.write("a.mov", LiveMedia.movie(1))
        let mirror = try box.mirror()
        try await mirror.scan()
        let before = try #require(try box.assetsByPath()["a.jpg"])
        box.write("a.jpg", LiveMedia.still(1, variant: 9))
        let summary = try await mirror.scan()
        #expect(summary.updated == 1)
        let edited = try #require(try box.assetsByPath()["a.jpg"])
        #expect(edited.localIdentifier == before.localIdentifier)
        #expect(edited.mediaSubtypes.contains(.photoLive))

        box.move("a.jpg", "Sub/a.jpg")
        try await mirror.scan()
        #expect(try box.livePaths() == [])
        box.move("Sub/a.jpg", "a.jpg")
        try await mirror.scan()
        #expect(try box.livePaths() == ["a.jpg"])
    }

    @Test("After a restart (a new mirror on the library), a movie arriving or leaving still pairs or unpairs", arguments: LibraryEngine.both)
    func acrossRestarts(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("x.jpg", LiveMedia.still(1))
        box.write("y.jpg", LiveMedia.still(2))
        box.write("y.mov", LiveMedia.movie(2))
        box.write("plain.jpg", LiveMedia.still(nil))
        try await box.mirror().scan()
        #expect(try box.livePaths() == ["y.jpg"])

        box.write("x.mov", LiveMedia.movie(1))
        try await box.mirror().scan()
        #expect(try box.livePaths() == ["x.jpg", "y.jpg"])

        box.remove("y.mov")
        try await box.mirror().scan()
        #expect(try box.livePaths() == ["x.jpg"])

        // A movie moved in from a directory this process never classified.
        box.write("Later/z.mov", LiveMedia.movie(3))
        box.write("z.jpg", LiveMedia.still(3))
        try await box.mirror().scan()
        #expect(try box.livePaths() == ["x.jpg"])
        box.move("Later/z.mov", "z.mov")
        try await box.mirror().scan()
        #expect(try box.livePaths() == ["x.jpg", "z.jpg"])
    }

    @Test("Watching: a movie arriving later pairs its still, a movie deleted unpairs it", arguments: LibraryEngine.both)
    func watching(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("Trip/IMG.JPG", LiveMedia.still(1))
        let mirror = try box.mirror { $0.settleInterval = .milliseconds(100) }
        try await whileWatching(mirror) {
            try await mirror.sync()
            #expect(try box.livePaths().isEmpty)
            box.write("Trip/IMG.MOV", LiveMedia.movie(1))
            try await mirror.sync()
            #expect(try box.livePaths() == ["Trip/IMG.JPG"])
            box.remove("Trip/IMG.MOV")
            try await mirror.sync()
            #expect(try box.livePaths().isEmpty)
        }
    }

    @Test("Model-based: after any sequence of writes, moves and deletions, in any batches and across restarts, the stills carrying photoLive are exactly those with a movie of their identifier beside them", arguments: [1, 2, 3, 4, 5, 6], LibraryEngine.both)
    func modelBased(seed: UInt64, engine: LibraryEngine) async throws {
        var random = SplitMix64(seed: seed)
        let box = try Sandbox(engine: engine)
        let directories = ["", "a", "b"]
        /// What is on disk: path → (is a movie, identifier).
        var disk: [String: (movie: Bool, identifier: Int?)] = [:]
        var variant = 0
        func makeMirror(_ limit: Int) throws -> FolderMirror {
            try box.mirror {
                $0.batchFileLimit = limit
                $0.allowMassDeletion = true
            }
        }
        // A file that stays, so the root never looks unmounted (the mirror's safety rule).
        box.write("anchor.jpg", LiveMedia.still(nil))
        var mirror = try makeMirror(2)
        for round in 0..<12 {
            for _ in 0..<random.int(in: 1...4) {
                variant += 1
                let existing = disk.keys.sorted()
                switch random.int(in: 0...9) {
                case 0...4:
                    let movie = random.chance(0.5)
                    let identifier: Int? = movie || random.chance(0.8) ? random.int(in: 1...3) : nil  // movies always have one
                    let directory = random.pick(directories)
                    let name = "f\(random.int(in: 1...6))." + (movie ? "mov" : "jpg")
                    let path = directory.isEmpty ? name : directory + "/" + name
                    box.write(path, movie ? LiveMedia.movie(identifier ?? 1, variant: variant) : LiveMedia.still(identifier, variant: variant))
                    disk[path] = (movie, identifier)
                case 5...7:
                    guard let from = random.anyElement(existing) else { continue }
                    let directory = random.pick(directories)
                    let to = (directory.isEmpty ? "" : directory + "/") + "m\(variant)" + (disk[from]!.movie ? ".mov" : ".jpg")
                    box.move(from, to)
                    disk[to] = disk.removeValue(forKey: from)
                default:
                    guard let path = random.anyElement(existing) else { continue }
                    box.remove(path)
                    disk[path] = nil
                }
            }
            if random.chance(0.3) { mirror = try makeMirror(random.int(in: 1...3)) }
            try await mirror.scan()
            var expected = Set<String>()
            for (path, file) in disk where !file.movie {
                guard let identifier = file.identifier else { continue }
                let directory = FileSystem.parent(of: path)
                if disk.contains(where: { $0.value.movie && $0.value.identifier == identifier && FileSystem.parent(of: $0.key) == directory }) {
                    expected.insert(path)
                }
            }
            #expect(try box.livePaths() == expected, "seed \(seed), round \(round)")
        }
    }
}

/// What the probe says about a file, in the words the tests compare.
enum MediaProbeFacade {
    static func probe(_ path: String) throws -> (kind: String?, identifier: String?) {
        let result = try MediaProbe.probe(fileAt: path)
        return (result.format?.kind.rawValue, result.metadata.contentIdentifier)
    }
}
