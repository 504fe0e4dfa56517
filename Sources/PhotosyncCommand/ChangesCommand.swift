import ArgumentParser
import Foundation
import PhotoLibrary
import PhotosyncWire

struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Print what changed since a change token.",
        discussion: """
            Prints one change per committed transaction, oldest first — each object inserted, updated or \
            deleted, with its path when it is mirrored and, for updates, the properties that changed — and the \
            token to store for the next call. Exit code 3: the token has expired (fetch the full state and \
            start again from `photosync token`); 4: the token is not valid for this library.

            --sync DIR is a barrier: when the daemon watches DIR, it first commits every change made to DIR \
            before this call (a cookie file it recognises); when no daemon runs, a scan of DIR runs first.

            Example: photosync changes --since "$(cat last-token)" --json --wait 60
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The token to start after.", valueName: "token"))
    var since: String

    @Option(name: .long, help: ArgumentHelp("At most this many changes (at least 1).", valueName: "n"))
    var limit: Int?

    @Flag(name: .long, help: "One net change for everything since the token.")
    var coalesce = false

    @Option(name: .customLong("exclude-author"), help: ArgumentHelp("Leave out changes by this author (repeatable).", valueName: "name"))
    var excludedAuthors: [String] = []

    @Option(name: .long, help: ArgumentHelp("Wait up to this many seconds (0…86400) for a change when there is none yet.", valueName: "seconds"))
    var wait: Double?

    @Option(name: .long, help: ArgumentHelp(
        "First make sure every change made to this folder before the call is in the library.", valueName: "dir"))
    var sync: String?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1 (it was \(limit))") }
        if let wait, !(wait >= 0 && wait <= 86_400) { throw ValidationError("--wait must be a number of seconds from 0 to 86400") }
    }

    func run() async throws {
        try await reportingFailures(options) { run in
            let token = try TokenArgument.parse(since, option: "--since")
            let library = try run.openExistingLibrary()
            if let sync {
                // A token this library can't continue from fails before the barrier changes anything.
                _ = try library.fetchPersistentChanges(since: token, options: .init(limit: 1))
                try await SyncBarrier.apply(folder: sync, library: library, options: options)
            }
            if let wait, wait > 0 {
                let logger = CommandLogging.logger(label: "photosync.changes", options: options)
                logger.debug("waiting up to \(wait) s for a change after \(token.stringValue)")
                _ = try await library.waitForChanges(after: token, timeout: .milliseconds(Int(wait * 1000)), excludedAuthors: Set(excludedAuthors))
            }
            let result = try library.fetchPersistentChanges(
                since: token, options: .init(limit: limit, excludedAuthors: Set(excludedAuthors), coalesced: coalesce))
            let page = try Wire.ChangesPage(result, library: library)
            if options.json {
                try Output.json(page)
            } else {
                ChangesText.print(page)
            }
        }
    }
}
