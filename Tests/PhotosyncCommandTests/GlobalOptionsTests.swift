import Foundation
import Testing

/// The global options (`--library`, `--json`, `--verbose`, `--quiet`) before or after the command, and the
/// default library location.
@Suite struct GlobalOptionsTests {
    @Test func globalOptionsWorkBeforeAndAfterTheCommand() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        let library = cli.directory.appending(path: "Elsewhere.photosync").path
        let created = try cli.run(["--library", library, "init", "--json"], withLibrary: false)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try created.json()["library"] as? String == library)
        let before = try cli.run(["--library", library, "--json", "status"], withLibrary: false)
        let after = try cli.run(["status", "--library", library, "--json"], withLibrary: false)
        let mixed = try cli.run(["--json", "status", "--library", library], withLibrary: false)
        for result in [before, after, mixed] {
            #expect(result.status == 0, "\(result.stderr)")
            #expect(try result.json()["library"] as? String == library)
        }
        #expect(before.stdout == after.stdout && after.stdout == mixed.stdout)
        // Flags before the command: --quiet keeps the summary of an import off stdout, -v/--verbose lists files.
        let quiet = try cli.run(["--library", library, "-q", "import", Photosync.samples.path], withLibrary: false)
        #expect(quiet.status == 0 && quiet.stdout.isEmpty, "\(quiet.stdout)\(quiet.stderr)")
        let token = try cli.run(["--library", library, "token"], withLibrary: false)
        #expect(token.status == 0 && token.trimmed.count == 55)
    }

    /// SQLite only: the default location is a SQLite library's directory (a PostgreSQL library is always
    /// named, by `--library` or `$PHOTOSYNC_LIBRARY`; PostgresCommandTests covers both).
    @Test func withoutLibraryTheCommandsUsePhotoLibraryDefaultURL() throws {
        let cli = Photosync()
        defer { cli.cleanUp() }
        let dataHome = cli.directory.appending(path: "data")
        let created = try cli.run(
            ["init", "--json"], environment: ["XDG_DATA_HOME": dataHome.path], unset: ["PHOTOSYNC_LIBRARY"], withLibrary: false)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(try created.json()["library"] as? String == dataHome.appending(path: "photosync/Library.photosync").path)
    }
}
