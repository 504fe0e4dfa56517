public import ArgumentParser
import Foundation
import PhotoLibrary

/// The `photosync` command. The root only routes to subcommands; it also parses the global options, so that
/// they may come before the subcommand's name.
public struct Photosync: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "photosync",
        abstract: "A change-history and sync engine for photo libraries.",
        discussion: """
            A library is a directory holding an SQLite database and the imported originals. Without --library, \
            the library is $PHOTOSYNC_LIBRARY, else $XDG_DATA_HOME/photosync/Library.photosync, else \
            ~/.local/share/photosync/Library.photosync (PhotoLibrary.defaultURL). Only `init`, `import`, `scan` \
            and `watch` create a library, and only when they succeed; the other commands need one.

            A library can also live in PostgreSQL, shared by processes on several machines: --library \
            postgres://USER:PASSWORD@HOST:PORT/DATABASE (or $PHOTOSYNC_LIBRARY) with --library-files DIR (or \
            $PHOTOSYNC_LIBRARY_FILES), the directory of its originals and renditions, which every process \
            sharing the library must see at the same path. $PGPASSWORD supplies a password the URL leaves out \
            (a password on the command line is visible to other users' ps). No message shows the password.

            The global options (--library, --library-files, --json, --verbose, --quiet) may come before or after \
            the command.

            Exit codes: 0 success; 1 error; 2 usage; 3 change token expired (resynchronise); 4 change token \
            not valid for this library; 5 a scan left out files it could not read (the rest is mirrored).
            """,
        version: "0.1.0",
        subcommands: [
            InitCommand.self, ImportCommand.self, ScanCommand.self, WatchCommand.self, TokenCommand.self, ChangesCommand.self,
            AssetsCommand.self, AlbumsCommand.self, ShowCommand.self, ThumbnailCommand.self, ThumbnailsCommand.self,
            DuplicatesCommand.self, HistoryCommand.self,
            StatusCommand.self, ServeCommand.self,
        ]
    )

    @OptionGroup(title: "Global options") var options: GlobalOptions

    public init() {}
}

extension Photosync {
    /// Parses the arguments and runs the command, exiting with the documented codes: usage errors exit 2
    /// (argument-parser's default would be 64) with a message saying what to write, as JSON on stderr when
    /// `--json` was given.
    public static func runAsMain(arguments: [String]) async -> Never {
        do {
            var command = try parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            exit(withError: nil)
        } catch {
            let code = exitCode(for: error)
            guard code == .validationFailure else { exit(withError: error) }
            let hint = UsageHints.message(for: arguments)
            if arguments.contains("--json") {
                let report = CommandFailure(.usage, code: "usage", hint ?? message(for: error)).report
                Output.error((try? Output.jsonText(report)) ?? message(for: error))
            } else {
                Output.error(hint.map { "photosync: " + $0 } ?? fullMessage(for: error))
            }
            Foundation.exit(ExitStatus.usage.rawValue)
        }
    }
}
