public import Foundation
import PhotoLibrary
public import SyncWorker

extension Wire {
    /// What a library holds, its history, its mirrored folders and its daemon (`photosync status --json`).
    public struct Status: Sendable, Hashable, Codable {
        /// Where the library is: its directory, or a PostgreSQL library's URL without its password.
        public var library: String
        /// The storage engine: `sqlite` or `postgres` (nil in what earlier versions wrote: `sqlite`).
        @Nullable public var engine: String?
        /// The directory of the library's files (originals, renditions): a SQLite library's own directory,
        /// a PostgreSQL library's `--library-files` (nil in what earlier versions wrote).
        @Nullable public var files: String?
        public var identity: String
        public var counts: Counts
        public var history: HistorySummary
        public var mirrors: [Mirror]
        /// The process mirroring into the library now (`photosync watch` or `scan`), or nil.
        @Nullable public var watcher: Watcher?
        /// The last pre-render of the library's renditions (running now, or ended), or nil when none ran.
        @Nullable public var prerender: Prerender?

        /// A value with these fields.
        public init(
            library: String, identity: String, counts: Counts, history: HistorySummary, mirrors: [Mirror], watcher: Watcher?,
            prerender: Prerender? = nil, engine: String? = nil, files: String? = nil
        ) {
            self.library = library
            self.engine = engine
            self.files = files
            self.identity = identity
            self.counts = counts
            self.history = history
            self.mirrors = mirrors
            self.watcher = watcher
            self.prerender = prerender
        }

    }

    /// How many objects a library holds.
    public struct Counts: Sendable, Hashable, Codable {
        /// Every asset, hidden ones and every burst member included.
        public var assets: Int
        public var albums: Int
        public var moments: Int
        /// Albums and folders not inside a folder.
        public var topLevelCollections: Int

        /// A value with these fields.
        public init(assets: Int, albums: Int, moments: Int, topLevelCollections: Int) {
            self.assets = assets
            self.albums = albums
            self.moments = moments
            self.topLevelCollections = topLevelCollections
        }
    }

    /// A mirrored folder and its last completed scan.
    public struct Mirror: Sendable, Hashable, Codable {
        public var path: String
        @Nullable public var lastScanStart: Timestamp?
        @Nullable public var lastScanEnd: Timestamp?
        @Nullable public var lastScan: ScanSummary?

        /// A value with these fields.
        public init(path: String, lastScanStart: Timestamp?, lastScanEnd: Timestamp?, lastScan: ScanSummary?) {
            self.path = path
            self.lastScanStart = lastScanStart
            self.lastScanEnd = lastScanEnd
            self.lastScan = lastScan
        }

    }

    /// The process holding a library's mirror lock.
    public struct Watcher: Sendable, Hashable, Codable {
        public var pid: Int32
        /// `watch` or `scan`.
        public var mode: String
        /// The folder it mirrors.
        public var root: String
        public var since: Timestamp

        /// A value with these fields.
        public init(pid: Int32, mode: String, root: String, since: Timestamp) {
            self.pid = pid
            self.mode = mode
            self.root = root
            self.since = since
        }
    }
}

extension Wire.Mirror {
    /// The wire form of a mirrored folder; its last scan decoded from what the sync worker stored.
    public init(_ root: MirrorRoot, timeZone: TimeZone) {
        path = root.path
        lastScanStart = root.lastScanStart.map { Wire.Timestamp($0, timeZone: timeZone) }
        lastScanEnd = root.lastScanEnd.map { Wire.Timestamp($0, timeZone: timeZone) }
        lastScan = root.lastScanSummary
            .flatMap { try? JSONDecoder().decode(ScanSummary.self, from: Data($0.utf8)) }
            .map { Wire.ScanSummary($0, root: root.path, token: nil) }
    }
}
