import Foundation
import Testing
@testable import PhotoLibrary

/// A client's lock across every process using the library (``PhotoLibrary/tryClientLock(_:)``): a file lock
/// on SQLite, an advisory lock of the database on PostgreSQL.
@Suite("Clients' locks")
struct ClientLockTests {
    @Test("A client lock excludes every other holder — another handle, another name's holder doesn't — until it is released", arguments: StoragePaths.allCases)
    func exclusive(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        let other = try test.openAnother(options: paths.options())
        var lock = try test.library.tryClientLock("tests.writer")
        #expect(lock != nil)
        #expect(try other.tryClientLock("tests.writer") == nil)
        #expect(try test.library.tryClientLock("tests.writer") == nil)  // Not reentrant: one holder per lock.
        #expect(try other.tryClientLock("tests.other") != nil)
        lock = nil
        #expect(try other.tryClientLock("tests.writer") != nil)
    }

    @Test("On PostgreSQL the lock is the database's: handles whose library directories differ (two machines) exclude each other")
    func acrossDirectories() throws {
        let test = try TestLibrary(paths: .postgres)
        let database = try #require(test.postgres)
        let elsewhere = TemporaryDirectory()
        let otherMachine = try PhotoLibrary(postgres: database, directory: elsewhere.url.appending(path: "Library.photosync"))
        let lock = try test.library.tryClientLock("tests.writer")
        #expect(lock != nil)
        #expect(try otherMachine.tryClientLock("tests.writer") == nil)
        withExtendedLifetime(lock) {}
    }

    @Test("A malformed name is refused with a typed error")
    func malformedNames() throws {
        let test = try TestLibrary(paths: .fast)
        for name in ["", "../escape", "a/b", ".hidden", "space name"] {
            #expect(throws: PhotoLibraryError.self, "\(name)") { _ = try test.library.tryClientLock(name) }
        }
    }
}
