import Foundation
import PostgresTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// `--library postgres://…`: the files directory, errors that name the database without its password,
/// `status`, and the checks of what a PostgreSQL library's files directory may be.
@Suite struct PostgresCommandTests {
    @Test func aPostgresLibraryWithoutItsFilesDirectoryIsAUsageErrorNamingTheOption() throws {
        let cli = try Photosync(.postgres)
        defer { cli.cleanUp() }
        for arguments in [["init"], ["status", "--json"], ["token"]] {
            let result = try cli.run(arguments, unset: ["PHOTOSYNC_LIBRARY_FILES"])
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--library-files") && result.stderr.contains("PHOTOSYNC_LIBRARY_FILES"), "\(result.stderr)")
            #expect(result.stdout.isEmpty)
        }
        let json = try cli.run(["init", "--json"], unset: ["PHOTOSYNC_LIBRARY_FILES"])
        #expect(try json.errorReport()["error"] as? String == "usage")
        #expect(try !cli.libraryExists, "a failed call created the library")
        // The variable or the option: either names the directory.
        #expect(try cli.run(["init", "--library-files", cli.library.path], unset: ["PHOTOSYNC_LIBRARY_FILES"]).status == 0)
        #expect(try cli.run(["token"]).status == 0)
    }

    @Test func theLibraryOptionsWorkBeforeAndAfterTheCommand() throws {
        let cli = try Photosync(.postgres)
        defer { cli.cleanUp() }
        let flags = ["--library", cli.libraryArgument, "--library-files", cli.library.path]
        let unset = ["PHOTOSYNC_LIBRARY", "PHOTOSYNC_LIBRARY_FILES"]
        let created = try cli.run(flags + ["init", "--json"], unset: unset, withLibrary: false)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try created.json()["library"] as? String == cli.shownLibrary)
        let before = try cli.run(flags + ["status", "--json"], unset: unset, withLibrary: false)
        let after = try cli.run(["status", "--json"] + flags, unset: unset, withLibrary: false)
        #expect(before.status == 0 && after.status == 0, "\(before.stderr)\(after.stderr)")
        #expect(before.stdout == after.stdout)
        // The missing-library message names the options as given, the password hidden.
        let other = try Photosync(.postgres)
        defer { other.cleanUp() }
        let missing = try cli.run(["--library", other.libraryArgument, "--library-files", other.library.path, "token"], unset: unset, withLibrary: false)
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("photosync init --library \(other.shownLibrary) --library-files \(other.library.path)"), "\(missing.stderr)")
    }

    @Test func libraryFilesIsForAPostgresLibraryOnly() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        let result = try cli.run(["init", "--library-files", cli.directory.appending(path: "files").path])
        #expect(result.status == 2, "\(result.stderr)")
        #expect(result.stderr.contains("--library-files is for a PostgreSQL library"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.library.path))
        // The variable alone, set for another library, doesn't disturb a SQLite one.
        #expect(try cli.run(["init"], environment: ["PHOTOSYNC_LIBRARY_FILES": cli.directory.path]).status == 0)
    }

    @Test func initCreatesTheTablesAndStatusShowsTheEngineAndLocation() throws {
        let cli = try Photosync(.postgres)
        defer { cli.cleanUp() }
        let created = try cli.run("init", "--json")
        #expect(created.status == 0, "\(created.stderr)")
        let info = try created.json()
        #expect(info["created"] as? Bool == true)
        #expect(info["library"] as? String == cli.shownLibrary)
        #expect(cli.shownLibrary.contains(":***@"))
        #expect(try cli.libraryExists)
        #expect(try cli.run("init", "--json").json()["created"] as? Bool == false)
        try cli.run("import", Photosync.samples.path)
        let status = try cli.run("status", "--json")
        #expect(status.status == 0, "\(status.stderr)")
        let object = try status.json()
        #expect(object["engine"] as? String == "postgres")
        #expect(object["library"] as? String == cli.shownLibrary)
        #expect(object["files"] as? String == cli.library.path)
        #expect(object["identity"] as? String == info["identity"] as? String)
        #expect((object["counts"] as? [String: Any])?["assets"] as? Int == 6)
        let text = try cli.run("status").stdout
        #expect(text.contains(cli.shownLibrary) && text.contains("PostgreSQL; files in \(cli.library.path)"), "\(text)")
        // The originals are in the files directory.
        let originals = try FileManager.default.subpathsOfDirectory(atPath: cli.library.appending(path: "originals").path)
        #expect(originals.filter { !$0.contains("/") }.count >= 1 && originals.count > 6, "\(originals)")
    }

    @Test func sqliteStatusSaysItsEngineToo() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        try cli.run("init")
        let object = try cli.run("status", "--json").json()
        #expect(object["engine"] as? String == "sqlite")
        #expect(object["library"] as? String == cli.library.path && object["files"] as? String == cli.library.path)
    }

    /// A server that isn't there and a password the server refuses: exit 1, the JSON code `unavailable`,
    /// the address or user named, never the password; nothing is created.
    @Test func anUnreachableServerOrRefusedCredentialsAreTypedErrors() throws {
        let cluster = try PostgresCluster.shared()
        let cli = try Photosync(.postgres)
        defer { cli.cleanUp() }
        let database = try #require(URL(string: cli.libraryArgument)).lastPathComponent
        let closedPort = try Self.closedPort()
        let unreachable = "postgres://photosync:\(PostgresCluster.testPassword)@127.0.0.1:\(closedPort)/\(database)?sslmode=disable"
        let wrongPassword = cluster.url(database: database, password: "not-the-password-4711").absoluteString
        for (url, says) in [(unreachable, "127.0.0.1:\(closedPort)"), (wrongPassword, "authentication failed")] {
            for arguments in [["init", "--json"], ["status", "--json"], ["import", Photosync.samples.path, "--json"]] {
                let result = try cli.run(arguments, environment: ["PHOTOSYNC_LIBRARY": url], withLibrary: false)
                #expect(result.status == 1, "\(arguments): \(result.stderr)")
                #expect(result.stdout.isEmpty)
                let report = try result.errorReport()
                #expect(report["error"] as? String == "unavailable", "\(report)")
                #expect(report["exitCode"] as? Int == 1)
                let message = try #require(report["message"] as? String)
                #expect(message.contains(says), "\(message)")
                #expect(!result.stderr.contains("not-the-password-4711"), "\(result.stderr)")
            }
            let plain = try cli.run(["status"], environment: ["PHOTOSYNC_LIBRARY": url], withLibrary: false)
            #expect(plain.status == 1 && plain.stderr.hasPrefix("photosync: "), "\(plain.stderr)")
            #expect(!plain.stderr.contains("not-the-password-4711"))
        }
        #expect(try !cli.libraryExists)
        // A database that doesn't exist: the same error, naming it.
        let missing = try cli.run(["status", "--json"], environment: ["PHOTOSYNC_LIBRARY": cluster.url(database: "no_such_database").absoluteString], withLibrary: false)
        #expect(missing.status == 1)
        #expect(try missing.errorReport()["error"] as? String == "unavailable")
        #expect(missing.stderr.contains("no_such_database"), "\(missing.stderr)")
    }

    /// A loopback port nothing listens on (bound, then closed).
    static func closedPort() throws -> Int {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(socket) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(socket, pointer, length) == 0 && getsockname(socket, pointer, &length) == 0
            }
        }
        try #require(bound)
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// A URL that can't be used is a usage error; what it says never shows the password, also of a URL that
    /// doesn't parse.
    @Test func anInvalidURLIsAUsageErrorThatDoesNotShowThePassword() throws {
        let cli = try Photosync(.postgres)
        defer { cli.cleanUp() }
        let port = try Self.closedPort()
        for url in ["postgres://me:secret word@127.0.0.1:\(port)/db", "postgres://me:secret@127.0.0.1:\(port)/db?nonsense=1",
                    "postgres://me:secret@127.0.0.1:\(port)/"] {
            let result = try cli.run(["init", "--json"], environment: ["PHOTOSYNC_LIBRARY": url], withLibrary: false)
            #expect(result.status != 0, "\(url): \(result.stderr)")
            #expect(!result.stderr.contains("secret"), "\(url): \(result.stderr)")
        }
        let badParameter = try cli.run(
            ["init", "--json"], environment: ["PHOTOSYNC_LIBRARY": "postgres://me:secret@127.0.0.1:\(port)/db?nonsense=1"], withLibrary: false)
        #expect(badParameter.status == 2, "\(badParameter.stderr)")
        #expect(try badParameter.errorReport()["error"] as? String == "usage")
        #expect(badParameter.stderr.contains("nonsense"), "\(badParameter.stderr)")
    }

    /// `$PGPASSWORD` supplies the password a URL leaves out: no password on a command line.
    @Test func pgpasswordSuppliesAMissingPassword() throws {
        let cli = try Photosync(.postgres)
        defer { cli.cleanUp() }
        let withoutPassword = cli.libraryArgument.replacingOccurrences(of: ":\(PostgresCluster.testPassword)@", with: "@")
        #expect(withoutPassword != cli.libraryArgument)
        let refused = try cli.run(["init", "--json"], environment: ["PHOTOSYNC_LIBRARY": withoutPassword], withLibrary: false)
        #expect(refused.status == 1, "\(refused.stderr)")
        let created = try cli.run(
            ["init", "--json"], environment: ["PHOTOSYNC_LIBRARY": withoutPassword, "PGPASSWORD": PostgresCluster.testPassword], withLibrary: false)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try created.json()["library"] as? String == cli.shownLibrary)
    }

    /// Two libraries sharing a files directory would remove each other's originals: the directory belongs to
    /// the first library that used it. A SQLite library's directory is no files directory either.
    @Test func aFilesDirectoryBelongsToOneLibrary() throws {
        let first = try Photosync(.postgres), second = try Photosync(.postgres)
        defer { first.cleanUp(); second.cleanUp() }
        try first.run("init")
        let shared = ["PHOTOSYNC_LIBRARY_FILES": first.library.path]
        let refused = try second.run(["init", "--json"], environment: shared)
        #expect(refused.status == 1, "\(refused.stderr)")
        #expect((try refused.errorReport()["message"] as? String)?.contains("holds the files of another library") == true, "\(refused.stderr)")
        #expect(try !second.libraryExists, "the refused init created the library")
        // A library created elsewhere, then pointed at the first one's files: refused too.
        try second.run("init")
        #expect(try second.run(["status"], environment: shared).status == 1)
        let sqlite = Photosync()
        defer { sqlite.cleanUp() }
        try sqlite.run("init")
        let onSQLite = try second.run(["status"], environment: ["PHOTOSYNC_LIBRARY_FILES": sqlite.library.path])
        #expect(onSQLite.status == 1 && onSQLite.stderr.contains("SQLite library's directory"), "\(onSQLite.stderr)")
    }

    /// A folder holding the files directory (or inside it) is not mirrored: its originals would become photos.
    @Test func aFolderNestedWithTheFilesDirectoryIsNotMirrored() throws {
        let cli = try Photosync(.postgres)
        let folder = try sampleFolder()
        defer { cli.cleanUp(); try? FileManager.default.removeItem(at: folder) }
        let inside = folder.appending(path: "photosync-files").path
        for arguments in [["scan", folder.path], ["watch", folder.path], ["scan", folder.path, "--json"]] {
            let result = try cli.run(arguments, environment: ["PHOTOSYNC_LIBRARY_FILES": inside])
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.contains("--library-files") && result.stderr.contains("nothing was changed"), "\(result.stderr)")
        }
        try cli.run("init")
        let within = try cli.run(["scan", cli.library.path])
        #expect(within.status == 1 && within.stderr.contains("are nested"), "\(within.stderr)")
        #expect(!FileManager.default.fileExists(atPath: inside))
    }
}
