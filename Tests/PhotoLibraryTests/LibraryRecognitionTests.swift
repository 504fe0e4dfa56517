import Foundation
import GRDB
import Testing
@testable import PhotoLibrary

@Suite("Libraries in a tree")
struct LibraryRecognitionTests {
    /// The application id bytes of a file's SQLite header (offset 68).
    static func headerMark(_ path: String) -> [UInt8] {
        guard let data = try? Data(contentsOf: URL(fileURLWithPath: path)) else { return [] }
        return Array(data.dropFirst(68).prefix(4))
    }

    @Test("A library is recognised by its database's mark, also while its first commits are only in the write-ahead log")
    func recognition() throws {
        let test = try TestLibrary()
        let path = test.library.url.path
        // Open in this process, never checkpointed: the mark is in the log, not yet in the database file.
        #expect(Self.headerMark(path + "/Photos.sqlite") == [0, 0, 0, 0])
        #expect(FileManager.default.fileExists(atPath: path + "/Photos.sqlite-wal"))
        #expect(PhotoLibrary.isLibraryDirectory(atPath: path))
        // Closed (checkpointed): the mark is in the database file.
        let closed = test.directory.url.appending(path: "Closed.photosync")
        do { _ = try PhotoLibrary(url: closed) }
        #expect(Self.headerMark(closed.path + "/Photos.sqlite") == Array("PSYN".utf8))
        #expect(PhotoLibrary.isLibraryDirectory(atPath: closed.path))
        // Not libraries: another program's SQLite database by the same name, any other file by that name, a
        // folder without one, a path that does not exist, a file.
        let other = test.directory.url.appending(path: "Other")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        let queue = try DatabaseQueue(path: other.path + "/Photos.sqlite")
        try queue.write { try $0.execute(sql: "CREATE TABLE t (x); PRAGMA application_id = 42") }
        try queue.close()
        #expect(!PhotoLibrary.isLibraryDirectory(atPath: other.path))
        let text = test.directory.url.appending(path: "Text")
        _ = test.directory.file("Text/Photos.sqlite", bytes: Array("SQLite format 3\0 but not really".utf8))
        #expect(!PhotoLibrary.isLibraryDirectory(atPath: text.path))
        #expect(!PhotoLibrary.isLibraryDirectory(atPath: test.directory.url.path))
        #expect(!PhotoLibrary.isLibraryDirectory(atPath: test.directory.url.path + "/missing"))
        #expect(!PhotoLibrary.isLibraryDirectory(atPath: path + "/Photos.sqlite"))
    }
}
