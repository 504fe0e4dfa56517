import ArgumentParser
import Foundation
import PhotoLibrary
import SyncWorker

struct TokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Print the library's current change token.",
        discussion: "Example: photosync token > last-token")

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) {
            let token = try options.openLibrary(create: false).currentChangeToken
            if options.json { printJSON(["token": token.stringValue]) } else { print(token.stringValue) }
        }
    }
}

struct ChangesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "changes",
        abstract: "Print what changed since a change token.",
        discussion: """
            Prints one change per committed transaction, oldest first, and the token to store for the next \
            call. Exit code 3: the token has expired (fetch the full state and start again from `photosync \
            token`); 4: the token is not valid for this library.

            --sync DIR is a barrier: when the daemon watches DIR, it first commits every change made to DIR \
            before this call (a cookie file it recognises); when no daemon runs, a scan of DIR runs first.

            Example: photosync changes --since "$(cat last-token)" --json --wait 60
            """)

    @OptionGroup var options: GlobalOptions

    @Option(name: .long, help: ArgumentHelp("The token to start after.", valueName: "token"))
    var since: String

    @Option(name: .long, help: "At most this many changes.")
    var limit: Int?

    @Flag(name: .long, help: "One net change for everything since the token.")
    var coalesce = false

    @Option(name: .customLong("exclude-author"), help: ArgumentHelp("Leave out changes by this author (repeatable).", valueName: "name"))
    var excludedAuthors: [String] = []

    @Option(name: .long, help: ArgumentHelp("Wait up to this many seconds for a change when there is none yet.", valueName: "seconds"))
    var wait: Double?

    @Option(name: .long, help: ArgumentHelp(
        "First make sure every change made to this folder before the call is in the library.", valueName: "dir"))
    var sync: String?

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if let wait, !(wait >= 0 && wait <= 86_400) { throw ValidationError("--wait must be a number of seconds from 0 to 86400") }
    }

    func run() async throws {
        try await reportingFailures(options) {
            let token = try ChangeToken(string: since)
            let library = try options.openLibrary(create: false)
            if let sync {
                // A token this library can't continue from fails before the barrier changes anything.
                _ = try library.fetchPersistentChanges(since: token, options: .init(limit: 1))
                try await SyncBarrier.apply(folder: sync, library: library, options: options)
            }
            if let wait, wait > 0 {
                _ = try await library.waitForChanges(after: token, timeout: .milliseconds(Int(wait * 1000)), excludedAuthors: Set(excludedAuthors))
            }
            let result = try library.fetchPersistentChanges(
                since: token, options: .init(limit: limit, excludedAuthors: Set(excludedAuthors), coalesced: coalesce))
            var changes: [[String: Any]] = []
            let formatter = ISO8601DateFormatter()
            formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
            for change in result {
                var entry: [String: Any] = [
                    "token": change.changeToken.stringValue, "author": change.author,
                    "date": formatter.string(from: change.date),
                ]
                for type in ObjectType.allCases {
                    let details = try change.changeDetails(for: type)
                    entry[type.description] = [
                        "inserted": details.insertedLocalIdentifiers.sorted(),
                        "updated": details.updatedLocalIdentifiers.sorted(),
                        "deleted": details.deletedLocalIdentifiers.sorted(),
                    ]
                }
                changes.append(entry)
            }
            if options.json {
                printJSON(["token": result.endToken.stringValue, "hasMore": result.hasMore, "changes": changes])
            } else {
                for change in changes {
                    print("\(change["token"]!) \(change["date"]!) \(change["author"]!)")
                    for type in ObjectType.allCases {
                        let details = change[type.description] as! [String: [String]]
                        for kind in ["inserted", "updated", "deleted"] {
                            for identifier in details[kind]! { print("  \(kind) \(type) \(identifier)") }
                        }
                    }
                }
                print("token: \(result.endToken.stringValue)\(result.hasMore ? " (more changes follow)" : "")")
            }
        }
    }
}

/// `--sync DIR`: the sync barrier, across processes.
enum SyncBarrier {
    /// Returns once every change made to `folder` before the call is in the library: through the daemon's
    /// cookie when a daemon watches `folder`, else by a scan of it (holding the daemon lock meanwhile).
    ///
    /// - Throws: ``CommandFailure``: another process mirrors into the library (a scan, or a daemon watching
    ///   another folder), the daemon did not reach the barrier within a minute, or the scan failed.
    static func apply(folder: String, library: PhotoLibrary, options: GlobalOptions) async throws {
        let root = try FolderArgument.resolve(folder, library: library)
        do {
            if let holder = MirrorWriterLock.currentHolder(libraryURL: library.url) {
                guard holder.mode == "watch", holder.root == root.path else {
                    throw CommandFailure(
                        code: 1, name: "error",
                        message: "another photosync process (\(holder.summary)) mirrors into this library; retry when it is done")
                }
                try await FolderMirror.requestSync(library: library, root: root, timeout: .seconds(60))
                return
            }
            let logger = CommandLogging.logger(label: "photosync.sync", options: options)
            try await FolderMirror(library: library, root: root, options: FolderMirrorOptions(logger: logger)).scan()
        } catch let error as SyncError {
            throw CommandFailure(code: 1, name: "error", message: error.message)
        }
    }
}
