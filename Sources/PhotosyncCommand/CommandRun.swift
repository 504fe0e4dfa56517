import ArgumentParser
import Foundation
import PhotoLibrary
import Synchronization
import SyncWorker

/// One run of a command: opens its library, and on failure reports the error (plain, or JSON on stderr) with
/// the documented exit code, removing a library this run created.
///
/// No command leaves a library behind unless it succeeded at what it was asked: read-only commands never
/// create one (a missing library is an error naming the path and `photosync init`), and a command that
/// creates one (`init`, `import`, `scan`, `watch`) and then fails removes it again.
final class CommandRun: Sendable {
    let options: GlobalOptions
    /// A library this run created (its directory, and whether the directory itself was new).
    private let created = Mutex<(location: LibraryLocation, newDirectory: Bool)?>(nil)

    init(options: GlobalOptions) {
        self.options = options
        // Before anything opens the library: its engine's loggers keep to --quiet and --verbose too.
        CommandLogging.bootstrap(options)
    }

    /// Where the library is (`--library`, `--library-files`, the environment).
    ///
    /// - Throws: ``CommandFailure`` (usage): a PostgreSQL URL without its files directory, or one that can't be read.
    func location() throws -> LibraryLocation {
        try options.libraryLocation()
    }

    /// Whether a library exists where the options point: a SQLite library's database file, or a PostgreSQL
    /// database holding a library's tables (read without creating anything).
    ///
    /// - Throws: ``CommandFailure``: the location can't be read (usage), or the PostgreSQL server can't be
    ///   reached or refuses the credentials (`unavailable`).
    func libraryExists() throws -> Bool {
        switch try location() {
        case .sqlite(let url):
            return FileManager.default.fileExists(atPath: url.appending(path: PhotoLibrary.databaseFileName).path)
        case .postgres(let url, _):
            do { return try PhotoLibrary.postgresLibraryExists(at: url) } catch { throw CommandFailure.from(error) }
        }
    }

    /// Opens the library that must exist.
    ///
    /// - Throws: ``CommandFailure`` `noLibrary` naming the location (a URL without its password) and
    ///   `photosync init` when there is none.
    func openExistingLibrary() throws -> PhotoLibrary {
        let location = try location()
        guard try libraryExists() else { throw noLibrary(location) }
        return try open(location, create: false)
    }

    /// The failure of a command that needs a library where there is none.
    func noLibrary(_ location: LibraryLocation) -> CommandFailure {
        switch location {
        case .sqlite(let url):
            let flag = options.library == nil ? "" : " --library \(url.path)"
            return CommandFailure(code: "noLibrary", "no library at \(url.path); create one with `photosync init\(flag)`")
        case .postgres:
            let flag = (options.library == nil ? "" : " --library \(location.shown)")
                + (options.libraryFiles == nil ? "" : " --library-files \(location.filesDirectory.path)")
            return CommandFailure(
                code: "noLibrary", "no library in the PostgreSQL database \(location.shown); create one with `photosync init\(flag)`")
        }
    }

    /// Opens the library, creating it when it doesn't exist; a library created here is removed again if the
    /// command fails.
    func openOrCreateLibrary() throws -> PhotoLibrary {
        let location = try location()
        switch location {
        case .sqlite(let url):
            let manager = FileManager.default
            let existed = manager.fileExists(atPath: url.path)
            let hadDatabase = try libraryExists()
            let library = try open(location, create: true)
            if !hadDatabase { created.withLock { $0 = (location, !existed) } }
            return library
        case .postgres:
            let hadLibrary = try libraryExists()
            let library = try open(location, create: true, creating: !hadLibrary)
            if !hadLibrary { created.withLock { $0 = (location, false) } }
            return library
        }
    }

    /// Whether this run created the library it opened.
    var createdLibrary: Bool { created.withLock { $0 != nil } }

    private func open(_ location: LibraryLocation, create: Bool, creating: Bool = false) throws -> PhotoLibrary {
        var libraryOptions = PhotoLibrary.Options(createIfNeeded: create)
        libraryOptions.commitPollInterval = try Self.commitPollInterval(ProcessInfo.processInfo.environment)
        do {
            let library: PhotoLibrary
            switch location {
            case .sqlite(let url):
                library = try PhotoLibrary(url: url, options: libraryOptions)
            case .postgres(let url, let files):
                try LibraryFilesDirectory.check(files, creating: creating, location: location)
                library = try PhotoLibrary(postgres: url, directory: files, options: libraryOptions)
                try LibraryFilesDirectory.claim(files, identity: library.identity, location: location)
            }
            // The sync worker's tables, before anything reads them — `path` in a predicate reads the roots
            // the sync worker registered (a library of an earlier build gets them registered now).
            try library.attachSyncWorker()
            return library
        } catch {
            throw CommandFailure.from(error)
        }
    }

    /// How often a wait re-checks the journal by itself when no commit notification arrives:
    /// `$PHOTOSYNC_COMMIT_POLL_INTERVAL` in seconds (`off`: notifications alone), else the library's default.
    ///
    /// - Throws: ``CommandFailure`` (usage) for a value that is neither `off` nor a number of seconds in (0, 86400].
    static func commitPollInterval(_ environment: [String: String]) throws -> Duration? {
        guard let text = environment["PHOTOSYNC_COMMIT_POLL_INTERVAL"], !text.isEmpty else {
            return PhotoLibrary.Options().commitPollInterval
        }
        if text.lowercased() == "off" { return nil }
        guard let seconds = Double(text), seconds > 0, seconds <= 86_400 else {
            throw CommandFailure(
                .usage, code: "usage",
                "PHOTOSYNC_COMMIT_POLL_INTERVAL is \"\(text)\": write a number of seconds above 0 and at most 86400, or off")
        }
        return .milliseconds(Int64((seconds * 1000).rounded(.up)))
    }

    /// Removes a library this run created, if nothing was committed to it and no other process mirrors
    /// into it meanwhile. A PostgreSQL library's tables stay (an empty library): another process may have
    /// opened them since, and dropping tables under it is not safe.
    func removeCreatedLibrary() {
        guard let (location, newDirectory) = created.withLock({ $0 }), case .sqlite(let url) = location else { return }
        if MirrorWriterLock.currentHolder(libraryURL: url) != nil { return }
        if let library = try? PhotoLibrary(url: url, options: .init(createIfNeeded: false)),
            (try? library.historyStatus().currentToken.sequence) != 0
        {
            return
        }
        let manager = FileManager.default
        if newDirectory {
            try? manager.removeItem(at: url)
        } else {
            for item in (try? manager.contentsOfDirectory(at: url, includingPropertiesForKeys: nil)) ?? [] {
                try? manager.removeItem(at: item)
            }
        }
    }

    /// Reports `error` on stderr and turns it into the exit code.
    func report(_ error: any Error) -> ExitCode {
        if let exit = error as? CommandExit { return ExitCode(exit.status.rawValue) }
        let failure = CommandFailure.from(error)
        if options.json, let line = try? Output.jsonText(failure.report) {
            Output.error(line)
        } else {
            Output.error("photosync: \(failure.message)")
        }
        return ExitCode(failure.status.rawValue)
    }
}

extension AsyncParsableCommand {
    /// Runs `body`, turning failures into the documented exit codes and error reports, and removing a
    /// library the failed command created.
    func reportingFailures(_ options: GlobalOptions, _ body: (CommandRun) async throws -> Void) async throws {
        let run = CommandRun(options: options)
        do {
            try await body(run)
        } catch {
            if !(error is CommandExit) { run.removeCreatedLibrary() }
            throw run.report(error)
        }
    }
}
