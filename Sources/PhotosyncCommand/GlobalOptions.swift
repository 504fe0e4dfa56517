import ArgumentParser
import Foundation
import PhotoLibrary

/// The options every command takes, before or after its name (`photosync --library L status` and
/// `photosync status --library L` are the same call). The root command declares the same group: it parses
/// these options wherever they are, and each subcommand receives the root's values.
struct GlobalOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "The library directory, or a PostgreSQL library's postgres://USER:PASSWORD@HOST:PORT/DATABASE URL (default: $PHOTOSYNC_LIBRARY, else $XDG_DATA_HOME/photosync/Library.photosync).",
        valueName: "path|url"))
    var library: String?

    @Option(name: .customLong("library-files"), help: ArgumentHelp(
        "A PostgreSQL library's files directory (originals, renditions): required with a postgres:// library, the same for every process sharing it (default: $PHOTOSYNC_LIBRARY_FILES).",
        valueName: "dir"))
    var libraryFiles: String?

    @Flag(name: .long, help: "Machine-readable output: JSON (JSON Lines for lists); errors as JSON on stderr.")
    var json = false

    @Flag(name: .shortAndLong, help: "Say more: photosync's debug log, every file a pass left out.")
    var verbose = false

    @Flag(name: .shortAndLong, help: "Say only what was asked for, and errors (no warnings, no progress).")
    var quiet = false

    func validate() throws {
        if verbose && quiet { throw ValidationError("use --verbose or --quiet, not both") }
        if let library, library.isEmpty { throw ValidationError("--library needs a path or a postgres:// URL") }
        if let libraryFiles, libraryFiles.isEmpty { throw ValidationError("--library-files needs a directory") }
    }

    /// The library's location: `--library`, else `$PHOTOSYNC_LIBRARY`, else ``PhotoLibrary/defaultURL`` (the one
    /// rule, documented there); a `postgres://` URL with `--library-files` (else `$PHOTOSYNC_LIBRARY_FILES`).
    ///
    /// - Throws: ``CommandFailure`` (usage), as ``LibraryLocation/resolve(library:libraryFiles:environment:)``.
    func libraryLocation() throws -> LibraryLocation {
        try LibraryLocation.resolve(library: library, libraryFiles: libraryFiles, environment: ProcessInfo.processInfo.environment)
    }

    /// Prints a progress or summary line to stderr unless `--quiet`.
    func say(_ line: String) {
        guard !quiet else { return }
        Output.error(line)
    }
}
