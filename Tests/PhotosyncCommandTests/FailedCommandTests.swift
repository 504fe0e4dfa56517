import Foundation
import Testing

/// Issue 11, item 5: a command creates a library only when it succeeds at what it was asked.
@Suite struct FailedCommandTests {
    @Test(arguments: LibraryEngine.allCases)
    func aMirrorOrImportOfAMissingFolderCreatesNoLibrary(engine: LibraryEngine) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        let missing = cli.directory.appending(path: "no-such-folder").path
        let file = cli.directory.appending(path: "a-file")
        try Data("x".utf8).write(to: file)
        for arguments in [["scan", missing], ["scan", file.path], ["import", missing], ["watch", missing], ["scan", missing, "--json"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("nothing was changed"), "\(arguments): \(result.stderr)")
            #expect(try !cli.libraryExists, "\(arguments) created \(cli.shownLibrary)")
        }
    }

    /// On PostgreSQL: a database without a library's tables, named by its URL without the password.
    @Test(arguments: LibraryEngine.allCases, [
        ["token"], ["changes", "--since", "UFNDVAFszRmb1ztEcJDuWCcscmzPAAAAAAAAAAAAAAAAAAAAAGBXris"], ["assets"], ["albums"],
        ["show", "x"], ["duplicates"], ["history"], ["status"], ["serve", "--listen", "127.0.0.1:0"], ["thumbnails"],
    ])
    func aReadOnlyCommandOnAMissingLibraryNamesThePathAndInit(engine: LibraryEngine, arguments: [String]) throws {
        let cli = try Photosync(engine)
        defer { cli.cleanUp() }
        let result = try cli.run(arguments)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains(cli.shownLibrary), "\(result.stderr)")
        #expect(result.stderr.contains("photosync init"), "\(result.stderr)")
        #expect(try !cli.libraryExists)
        let json = try cli.run(arguments + ["--json"])
        #expect(try json.errorReport()["error"] as? String == "noLibrary")
        #expect(try !cli.libraryExists)
    }

    /// A scan that fails after the library was created (a folder that exists but can't be listed) removes
    /// the library it created; an existing library is kept. SQLite only: it is about the library's directory
    /// and database file (a PostgreSQL library's tables stay, see `CommandRun.removeCreatedLibrary`).
    @Test func aScanThatFailsRemovesTheLibraryItCreated() throws {
        let user = try Unprivileged()
        defer { user.cleanUp() }
        let folder = try user.folder("Locked", files: ["a.jpg": try Data(contentsOf: Photosync.samples.appending(path: "Family/IMG_2001.jpg"))])
        try FileManager.default.setAttributes([.posixPermissions: 0o311], ofItemAtPath: folder.path)  // no listing
        let failed = try user.run(["scan", folder.path])
        #expect(failed.status == 1, "\(failed.stdout)\(failed.stderr)")
        #expect(!FileManager.default.fileExists(atPath: user.library.path), "the failed scan left \(user.library.path)")
        #expect(try user.run(["init"]).status == 0)
        #expect(try user.run(["scan", folder.path]).status == 1)
        #expect(FileManager.default.fileExists(atPath: user.library.appending(path: "Photos.sqlite").path))
    }
}
