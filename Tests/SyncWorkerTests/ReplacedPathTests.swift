import Foundation
import PhotoLibrary
import Testing

@testable import SyncWorker

/// Rule 2 when a path holds another file than the one recorded: renames over a file, rotations and swaps of
/// names — by stamp and, when the files were touched too, by inode and content. One scan sees them all; the
/// mirror state must stay exact (a second pass from a new process changes nothing).
@Suite("Sync worker: files renamed over recorded paths")
struct ReplacedPathTests {
    /// A mirrored folder of `names`, each a distinct JPEG; returns the identifiers by path.
    static func mirrored(_ names: [String], engine: LibraryEngine) async throws -> (Sandbox, FolderMirror, [String: String]) {
        let box = try Sandbox(engine: engine)
        for (index, name) in names.enumerated() { box.write(name, Media.jpeg(index)) }
        let mirror = try box.mirror()
        try await mirror.scan()
        return (box, mirror, try box.assetsByPath().mapValues(\.localIdentifier))
    }

    /// A scan from a new mirror (the library's own state, as after a restart) finds nothing to do.
    static func expectStable(_ box: Sandbox, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let token = try box.library.currentChangeToken
        let summary = try await box.mirror().scan()
        #expect(summary.inserted + summary.deleted + summary.moved + summary.updated == 0, "\(summary)", sourceLocation: sourceLocation)
        #expect(try box.library.currentChangeToken == token, sourceLocation: sourceLocation)
    }

    @Test("A file renamed over another: a move, the other deleted, in one transaction; the mirror state stays exact", arguments: LibraryEngine.both)
    func renameOver(engine: LibraryEngine) async throws {
        let (box, mirror, before) = try await Self.mirrored(["a.jpg", "b.jpg"], engine: engine)
        let token = try box.library.currentChangeToken
        box.move("b.jpg", "a.jpg")
        let summary = try await mirror.scan()
        #expect(summary.moved == 1 && summary.deleted == 1 && summary.inserted == 0)
        #expect(try box.assetsByPath().mapValues(\.localIdentifier) == ["a.jpg": before["b.jpg"]!])
        let changes = Array(try box.library.fetchPersistentChanges(since: token))
        #expect(changes.count == 1, "the move and the deletion are one transaction")
        try await Self.expectStable(box)
    }

    @Test("A rotation of names (a → b, c → a): two moves, no insert, no delete", arguments: LibraryEngine.both)
    func rotation(engine: LibraryEngine) async throws {
        let (box, mirror, before) = try await Self.mirrored(["a.jpg", "c.jpg"], engine: engine)
        box.move("a.jpg", "b.jpg")
        box.move("c.jpg", "a.jpg")
        let summary = try await mirror.scan()
        #expect(summary.moved == 2 && summary.inserted == 0 && summary.deleted == 0)
        #expect(try box.assetsByPath().mapValues(\.localIdentifier) == ["b.jpg": before["a.jpg"]!, "a.jpg": before["c.jpg"]!])
        try await Self.expectStable(box)
    }

    @Test("A swap of two names, both files touched: recognised by inode and content", arguments: LibraryEngine.both)
    func swapTouched(engine: LibraryEngine) async throws {
        let (box, mirror, before) = try await Self.mirrored(["a.jpg", "b.jpg"], engine: engine)
        box.move("a.jpg", "t.jpg")
        box.move("b.jpg", "a.jpg")
        box.move("t.jpg", "b.jpg")
        box.touch("a.jpg")
        box.touch("b.jpg")
        let summary = try await mirror.scan()
        #expect(summary.moved == 2 && summary.inserted == 0 && summary.deleted == 0 && summary.updated == 0)
        #expect(try box.assetsByPath().mapValues(\.localIdentifier) == ["a.jpg": before["b.jpg"]!, "b.jpg": before["a.jpg"]!])
        try await Self.expectStable(box)
    }

    @Test("A file moved and touched, and a new file at its old path: the move keeps the identifier, the new file is new", arguments: LibraryEngine.both)
    func movedAndReplaced(engine: LibraryEngine) async throws {
        let (box, mirror, before) = try await Self.mirrored(["a.jpg"], engine: engine)
        box.move("a.jpg", "b.jpg")
        box.touch("b.jpg")
        box.write("a.jpg", Media.jpeg(50))
        let summary = try await mirror.scan()
        #expect(summary.moved == 1 && summary.inserted == 1 && summary.updated == 0)
        let after = try box.assetsByPath()
        #expect(after["b.jpg"]?.localIdentifier == before["a.jpg"])
        #expect(after["a.jpg"]?.contentHash == Media.hash(Media.jpeg(50)))
        try await Self.expectStable(box)
    }

    @Test("A copy of a file and the original touched and moved: the original keeps the identifier (inode first), the copy is new", arguments: LibraryEngine.both)
    func copyDoesNotStealTheIdentifier(engine: LibraryEngine) async throws {
        let (box, mirror, before) = try await Self.mirrored(["a.jpg"], engine: engine)
        box.write("Copies/a.jpg", Media.jpeg(0))  // the same content, same name, another inode
        box.move("a.jpg", "Moved/renamed.jpg")
        box.touch("Moved/renamed.jpg")
        try await mirror.scan()
        let after = try box.assetsByPath()
        #expect(after["Moved/renamed.jpg"]?.localIdentifier == before["a.jpg"])
        #expect(after["Copies/a.jpg"]?.localIdentifier != before["a.jpg"])
        try await Self.expectStable(box)
    }

    @Test("An atomic save (a new file renamed over the recorded one) stays an update of the same asset", arguments: LibraryEngine.both)
    func atomicSaveIsStillAnUpdate(engine: LibraryEngine) async throws {
        let (box, mirror, before) = try await Self.mirrored(["a.jpg"], engine: engine)
        box.write(".a.jpg.tmp", Media.jpeg(7))
        box.move(".a.jpg.tmp", "a.jpg")
        let summary = try await mirror.scan()
        #expect(summary.updated == 1 && summary.moved == 0 && summary.inserted == 0 && summary.deleted == 0)
        #expect(try box.assetsByPath()["a.jpg"]?.localIdentifier == before["a.jpg"])
        try await Self.expectStable(box)
    }

    @Test("A hard link's name renamed: the other name is the same file, not a move target", arguments: LibraryEngine.both)
    func hardLinkRenamed(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        #expect(link(box.path("a.jpg"), box.path("c.jpg")) == 0)
        let mirror = try box.mirror()
        try await mirror.scan()
        let before = try box.assetsByPath().mapValues(\.localIdentifier)
        box.move("a.jpg", "b.jpg")
        try await mirror.scan()
        let after = try box.assetsByPath().mapValues(\.localIdentifier)
        #expect(after["b.jpg"] == before["a.jpg"])
        #expect(after["c.jpg"] == before["c.jpg"])
        try await Self.expectStable(box)
    }
}
