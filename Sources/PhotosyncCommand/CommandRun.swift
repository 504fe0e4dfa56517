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
    private let created = Mutex<(url: URL, newDirectory: Bool)?>(nil)

    init(options: GlobalOptions) {
        self.options = options
    }

    /// Whether a library exists where the options point.
    var libraryExists: Bool {
        FileManager.default.fileExists(atPath: options.libraryURL.appending(path: PhotoLibrary.databaseFileName).path)
    }

    /// Opens the library that must exist.
    ///
    /// - Throws: ``CommandFailure`` `noLibrary` naming the path and `photosync init` when there is none.
    func openExistingLibrary() throws -> PhotoLibrary {
        let url = options.libraryURL
        guard libraryExists else {
            let flag = options.library == nil ? "" : " --library \(url.path)"
            throw CommandFailure(code: "noLibrary", "no library at \(url.path); create one with `photosync init\(flag)`")
        }
        return try open(url, create: false)
    }

    /// Opens the library, creating it when it doesn't exist; a library created here is removed again if the
    /// command fails.
    func openOrCreateLibrary() throws -> PhotoLibrary {
        let url = options.libraryURL
        let manager = FileManager.default
        let existed = manager.fileExists(atPath: url.path)
        let hadDatabase = manager.fileExists(atPath: url.appending(path: PhotoLibrary.databaseFileName).path)
        let library = try open(url, create: true)
        if !hadDatabase { created.withLock { $0 = (library.url, !existed) } }
        return library
    }

    /// Whether this run created the library it opened.
    var createdLibrary: Bool { created.withLock { $0 != nil } }

    private func open(_ url: URL, create: Bool) throws -> PhotoLibrary {
        var libraryOptions = PhotoLibrary.Options(createIfNeeded: create)
        libraryOptions.commitPollInterval = try Self.commitPollInterval(ProcessInfo.processInfo.environment)
        do {
            let library = try PhotoLibrary(url: url, options: libraryOptions)
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
    /// into it meanwhile.
    func removeCreatedLibrary() {
        guard let (url, newDirectory) = created.withLock({ $0 }) else { return }
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
