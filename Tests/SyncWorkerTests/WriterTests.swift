import Foundation
import PhotoLibrary
import Synchronization
import Testing

@testable import SyncWorker

/// Issue 11, item 4: files still being written are never committed truncated.
@Suite("Sync worker: files being written")
struct WriterTests {
    /// A writer that holds its file open and writes chunks `gap` apart; closes it unless told not to.
    final class SlowWriter: Sendable {
        let handle: FileHandle

        init(_ box: Sandbox, _ relative: String) throws {
            try FileManager.default.createDirectory(
                at: box.root.appending(path: relative).deletingLastPathComponent(), withIntermediateDirectories: true)
            #expect(FileManager.default.createFile(atPath: box.path(relative), contents: nil))
            handle = try #require(FileHandle(forWritingAtPath: box.path(relative)))
        }

        func write(_ bytes: [UInt8]) throws {
            try handle.write(contentsOf: Data(bytes))
        }

        func close() throws { try handle.close() }
    }

    /// The content, in three chunks: a whole JPEG first (a truncated file that is media), then more.
    static let chunks = [Media.jpeg(1), Array(repeating: 0xA5, count: 500), Array("the end".utf8)]

    @Test("A writer holding its file open, writing chunks 1.5 s apart (settle 1 s): never committed truncated; committed whole after the close", arguments: LibraryEngine.both)
    func slowWriterThatCloses(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("other.jpg", Media.jpeg(99))
        let mirror = try box.mirror()  // settle 1 s
        try await whileWatching(mirror) {
            try await mirror.sync()
            let token = try box.library.currentChangeToken
            let writer = try SlowWriter(box, "Import/big.jpg")
            for (index, chunk) in Self.chunks.enumerated() {
                if index > 0 { try await Task.sleep(for: .milliseconds(1500)) }  // the writer's pace, under test
                try writer.write(chunk)
                #expect(try box.assetsByPath()["Import/big.jpg"] == nil, "committed while still open, after chunk \(index + 1)")
            }
            try writer.close()
            let whole = Self.chunks.flatMap { $0 }
            let committed = try await eventually { try box.assetsByPath()["Import/big.jpg"]?.contentHash == Media.hash(whole) }
            #expect(committed, "not committed after the close")
            let journal = try AssetJournal(box.library, since: token)
            #expect(journal.inserted.count == 1 && journal.updated.isEmpty && journal.deleted.isEmpty, "\(journal)")
        }
    }

    @Test("A file no event names (in a folder moved into the tree) while its writer holds it open: never committed truncated", arguments: LibraryEngine.both)
    func writerInAFolderMovedIn(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("other.jpg", Media.jpeg(99))
        let outside = box.base.appending(path: "Incoming", directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let mirror = try box.mirror { $0.settleInterval = .milliseconds(300) }
        try await whileWatching(mirror) {
            try await mirror.sync()
            let token = try box.library.currentChangeToken
            #expect(FileManager.default.createFile(atPath: outside.path + "/big.jpg", contents: nil))
            let writer = try #require(FileHandle(forWritingAtPath: outside.path + "/big.jpg"))
            try writer.write(contentsOf: Data(Self.chunks[0]))
            // The folder arrives with the file open in it: the watch of the folder comes after the first write.
            #expect(rename(outside.path, box.path("Incoming")) == 0)
            for chunk in Self.chunks.dropFirst() {
                try await Task.sleep(for: .milliseconds(700))  // the writer's pace, under test: slower than the settle
                #expect(try box.assetsByPath()["Incoming/big.jpg"] == nil, "committed while still open")
                try writer.write(contentsOf: Data(chunk))
            }
            try writer.close()
            let whole = Self.chunks.flatMap { $0 }
            #expect(try await eventually { try box.assetsByPath()["Incoming/big.jpg"]?.contentHash == Media.hash(whole) })
            let journal = try AssetJournal(box.library, since: token)
            #expect(journal.inserted.count == 1 && journal.updated.isEmpty, "\(journal)")
        }
    }

    @Test("The kernel tells a file open for writing (a read lease is refused) from a closed one", arguments: LibraryEngine.both)
    func openWriterCheck(engine: LibraryEngine) throws {
        let box = try Sandbox(engine: engine)
        box.write("a.jpg", Media.jpeg(1))
        #expect(OpenWriterCheck.isOpenForWriting(box.path("a.jpg")) == false)
        let reader = try #require(FileHandle(forReadingAtPath: box.path("a.jpg")))
        #expect(OpenWriterCheck.isOpenForWriting(box.path("a.jpg")) == false, "a reader is no writer")
        let writer = try #require(FileHandle(forWritingAtPath: box.path("a.jpg")))
        #expect(OpenWriterCheck.isOpenForWriting(box.path("a.jpg")) == true)
        try writer.close()
        try reader.close()
        #expect(OpenWriterCheck.isOpenForWriting(box.path("a.jpg")) == false)
        #expect(OpenWriterCheck.isOpenForWriting(box.path("missing.jpg")) == nil)
    }

    @Test("A writer that never closes its file: committed once quiet for openFileSettleInterval, not before", arguments: LibraryEngine.both)
    func writerThatNeverCloses(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("other.jpg", Media.jpeg(99))
        let mirror = try box.mirror {
            $0.settleInterval = .milliseconds(200)
            $0.openFileSettleInterval = .seconds(2)
        }
        try await whileWatching(mirror) {
            try await mirror.sync()
            let writer = try SlowWriter(box, "log.jpg")
            defer { try? writer.close() }
            try writer.write(Media.jpeg(1))
            let written = ContinuousClock.now
            let committed = try await eventually { try box.assetsByPath()["log.jpg"] != nil }
            #expect(committed)
            // Not before the bound (a lower bound only: a loaded machine makes it later, never earlier).
            #expect(ContinuousClock.now - written >= .seconds(2))
            #expect(try box.assetsByPath()["log.jpg"]?.contentHash == Media.hash(Media.jpeg(1)))
        }
    }

    @Test("Content replaced within its settle window is never inserted: a file written in a new folder, then a new version renamed over it", arguments: LibraryEngine.both)
    func replacedWithinTheWindow(engine: LibraryEngine) async throws {
        let box = try Sandbox(engine: engine)
        box.write("other.jpg", Media.jpeg(99))
        // A settle window of 3 s, for steps 0.6 s apart: a loaded machine (a full test run) may oversleep a
        // step by over a second, which would take the replacement out of a 1 s window.
        let settle = Duration.seconds(3)
        let mirror = try box.mirror { $0.settleInterval = settle }
        try await whileWatching(mirror) {
            try await mirror.sync()
            let token = try box.library.currentChangeToken
            try FileManager.default.createDirectory(at: box.root.appending(path: "New"), withIntermediateDirectories: true)
            try await Task.sleep(for: .milliseconds(600))  // the folder settles before the file does
            box.write("New/a.jpg", Media.jpeg(1))
            let written = ContinuousClock.now
            try await Task.sleep(for: .milliseconds(600))
            box.write("New/.a.jpg.swp", Media.jpeg(2))  // an editor's temporary file: hidden, ignored
            box.move("New/.a.jpg.swp", "New/a.jpg")
            let replacedAfter = ContinuousClock.now - written
            let committed = try await eventually { try box.assetsByPath()["New/a.jpg"] != nil }
            #expect(committed)
            try await mirror.sync()
            try box.expectMirrors(["other.jpg": Media.jpeg(99), "New/a.jpg": Media.jpeg(2)])
            let journal = try AssetJournal(box.library, since: token)
            #expect(
                journal.inserted.count == 1 && journal.updated.isEmpty,
                "the first version was committed (replaced \(replacedAfter) after it was written, settle \(settle)): \(journal)")
        }
    }
}
