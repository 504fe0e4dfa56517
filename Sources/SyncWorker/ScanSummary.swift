import Foundation
public import PhotoLibrary

/// Where a scan is, for progress displays.
public struct ScanProgress: Sendable {
    /// The stages of a scan, in order.
    public enum Phase: String, Sendable {
        /// Listing the tree and comparing it with the stat cache.
        case walking
        /// Hashing new and changed files.
        case hashing
        /// Committing deletions.
        case deleting
        /// The scan finished.
        case done
    }

    /// The stage the scan is in.
    public var phase: Phase
    /// Media candidates found by the walk (files not ignored).
    public var filesFound = 0
    /// Files to hash (new or changed since the stat cache), known after the walk.
    public var filesToHash = 0
    /// Files hashed so far in this scan.
    public var filesHashed = 0
    /// Bytes hashed so far in this scan.
    public var bytesHashed: Int64 = 0
    /// The bytes of the files to hash, known after the walk.
    public var totalBytesToHash: Int64?
    /// The file about to be hashed (phase ``Phase/hashing``).
    public var currentPath: String?
}

/// A file a pass did not mirror, and why (still being written, unreadable, not a regular file…).
public struct SkippedFile: Sendable, Codable, Hashable {
    /// The file's path relative to the root (`.` for the root itself).
    public var path: String
    /// Why the file was skipped, for people.
    public var reason: String

    /// Makes a record of a skipped file.
    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// What one pass (a scan, or one settled round of the watcher) did.
public struct ScanSummary: Sendable, Codable, Hashable {
    /// New files mirrored as new assets.
    public var inserted = 0
    /// Content changed in place (observers see `assetContentChanged`).
    public var updated = 0
    /// Renamed or moved, identity kept.
    public var moved = 0
    /// Assets deleted because their file is gone from the root, or is no longer media.
    public var deleted = 0
    /// Files found as recorded: the stat cache matched, or the content hash did.
    public var unchanged = 0
    /// Files whose assets or mirror record the pass repaired before mirroring, because the library disagreed
    /// with the mirror's records (left so by two writers racing, or by a crash of an older photosync): several
    /// assets for one file merged into the oldest, an asset of a file that no record named adopted, a record
    /// naming an asset that is gone or references another file dropped. See ``FolderMirror``'s
    /// "Self-healing".
    public var repaired = 0
    /// Files read and hashed (new, changed, or with a stat that no longer matched).
    public var filesHashed = 0
    /// The bytes of the files hashed.
    public var bytesHashed: Int64 = 0
    /// Transactions committed.
    public var batches = 0
    /// Files and directories the pass did not mirror, with the reason.
    public var skipped: [SkippedFile] = []
    /// Files imported with what could be read, and their metadata problems.
    public var metadataProblems: [String: [String]] = [:]
    /// Seconds.
    public var duration: Double = 0
    /// The pass was cancelled (SIGINT/SIGTERM) after committing its current batch: it deleted nothing and is
    /// not recorded as the last scan; the next pass continues from what it committed.
    public var interrupted = false

    /// An empty summary: every count zero.
    public init() {}

    private enum CodingKeys: String, CodingKey {
        case inserted, updated, moved, deleted, unchanged, repaired, filesHashed, bytesHashed, batches, skipped
        case metadataProblems, duration, interrupted
    }

    /// Decodes a summary, also one written before a count existed (the library keeps the last scan's summary
    /// as JSON: ``PhotoLibrary/MirrorRoot/lastScanSummary``): a missing count is zero.
    ///
    /// - Throws: `DecodingError` when a value present has the wrong type.
    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        func count<T: Decodable & AdditiveArithmetic>(_ key: CodingKeys) throws -> T { try values.decodeIfPresent(T.self, forKey: key) ?? .zero }
        inserted = try count(.inserted)
        updated = try count(.updated)
        moved = try count(.moved)
        deleted = try count(.deleted)
        unchanged = try count(.unchanged)
        repaired = try count(.repaired)
        filesHashed = try count(.filesHashed)
        bytesHashed = try count(.bytesHashed)
        batches = try count(.batches)
        skipped = try values.decodeIfPresent([SkippedFile].self, forKey: .skipped) ?? []
        metadataProblems = try values.decodeIfPresent([String: [String]].self, forKey: .metadataProblems) ?? [:]
        duration = try count(.duration)
        interrupted = try values.decodeIfPresent(Bool.self, forKey: .interrupted) ?? false
    }

    mutating func add(_ other: ScanSummary) {
        inserted += other.inserted
        updated += other.updated
        moved += other.moved
        deleted += other.deleted
        unchanged += other.unchanged
        repaired += other.repaired
        filesHashed += other.filesHashed
        bytesHashed += other.bytesHashed
        batches += other.batches
        skipped += other.skipped
        metadataProblems.merge(other.metadataProblems) { a, _ in a }
    }
}

/// What a watching mirror reports as it goes.
public enum MirrorEvent: Sendable {
    /// A batch committed: its counts, and the library's change token after it (nil when only mirror
    /// bookkeeping changed).
    case batchCommitted(ScanSummary, token: ChangeToken?)
    /// A full or partial rescan started.
    case rescanStarted(reason: String)
    /// The inotify watch limit is exhausted: the mirror relies on periodic rescans.
    case watchLimitReached(message: String)
    /// The root is missing, unreadable or looks unmounted: nothing is deleted; the watcher stopped.
    case rootUnavailable(reason: String)
    /// A pass would have deleted too much and was stopped.
    case massDeletionRefused(wouldDelete: Int, of: Int)
    /// A sync cookie was processed: everything before it is in the library.
    case syncCookieProcessed(String)
}
