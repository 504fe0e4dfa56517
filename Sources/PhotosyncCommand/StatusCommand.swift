import ArgumentParser
import Foundation
import PhotoLibrary
import PhotosyncWire
import SyncWorker

struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show what the library holds, its change history, its mirrored folders and the daemon.",
        discussion: """
            Where the library is (its directory, or a PostgreSQL library's database and files directory), \
            counts, the retained history (oldest valid token, current token), every mirrored folder with its \
            last scan, and the daemon (`photosync watch`) holding the library, if one runs.

            Example: photosync status --json
            """)

    @OptionGroup var options: GlobalOptions

    func run() async throws {
        try await reportingFailures(options) { run in
            let library = try run.openExistingLibrary()
            let status = try Self.status(of: library, at: try run.location())
            if options.json { try Output.json(status) } else { Self.print(status) }
        }
    }

    static func status(of library: PhotoLibrary, at location: LibraryLocation) throws -> Wire.Status {
        let timeZone = library.momentTimeZone
        let counts = Wire.Counts(
            assets: try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)).count,
            albums: try library.fetchAssetCollections(with: .album).count, moments: try library.fetchMoments().count,
            topLevelCollections: try library.fetchTopLevelUserCollections().count)
        let watcher = MirrorWriterLock.currentHolder(libraryURL: library.url).map {
            Wire.Watcher(pid: $0.pid, mode: $0.mode, root: $0.root, since: Wire.Timestamp($0.since, timeZone: timeZone))
        }
        return Wire.Status(
            library: location.shown, identity: library.identity.uuidString, counts: counts,
            history: Wire.HistorySummary(try library.historyStatus()),
            mirrors: try library.fetchMirrorRoots().map { Wire.Mirror($0, timeZone: timeZone) }, watcher: watcher,
            prerender: PrerenderPublisher.readState(libraryURL: library.url), engine: location.engine, files: library.url.path)
    }

    static func print(_ status: Wire.Status) {
        Output.line("library \(status.identity) at \(status.library)")
        if status.engine == "postgres", let files = status.files {
            Output.line("  PostgreSQL; files in \(files)")
        }
        let counts = status.counts
        Output.line("  \(Plural.count(counts.assets, "asset")), \(Plural.count(counts.albums, "album")), \(Plural.count(counts.moments, "moment")), \(Plural.count(counts.topLevelCollections, "top-level collection"))")
        Output.line("history: \(Plural.count(status.history.transactions, "transaction")) kept; oldest valid token \(status.history.oldestValidToken)")
        Output.line("current token: \(status.history.currentToken)")
        for mirror in status.mirrors {
            Output.line("mirrors \(mirror.path): last scan finished \(mirror.lastScanEnd?.description ?? "never")")
        }
        if let watcher = status.watcher {
            Output.line("daemon: pid \(watcher.pid), \(watcher.mode) of \(watcher.root) since \(watcher.since)")
        } else {
            Output.line("daemon: not running")
        }
        Output.line("pre-render: \(status.prerender?.summary ?? "none yet")")
    }
}
