public import SyncWorker

extension Wire {
    /// What a mirror pass did (`photosync scan --json`, and each folder's last scan in `status --json`).
    public struct ScanSummary: Sendable, Hashable, Codable {
        /// The mirrored folder, absolute.
        public var root: String
        public var inserted: Int
        public var updated: Int
        public var moved: Int
        public var deleted: Int
        public var unchanged: Int
        /// Files whose assets or mirror record the pass repaired first (the library disagreed with the folder:
        /// duplicates merged, ghosts deleted, stale records dropped).
        public var repaired: Int
        public var filesHashed: Int
        public var bytesHashed: Int64
        public var batches: Int
        /// Files and directories left out, with why.
        public var skipped: ProblemList
        /// Files mirrored with what could be read of their metadata.
        public var metadataProblems: ProblemList
        public var seconds: Double
        /// Stopped by SIGINT or SIGTERM after committing its current batch.
        public var interrupted: Bool
        /// Some files exist but could not be read (``Problem/partialKinds``): exit code 5.
        public var partial: Bool
        /// The library's change token after the pass; nil in a status.
        @Nullable public var token: String?

        /// The wire form of a sync worker's summary of a pass over `root`, its per-file problems capped.
        public init(_ summary: SyncWorker.ScanSummary, root: String, token: String?) {
            self.root = root
            inserted = summary.inserted
            updated = summary.updated
            moved = summary.moved
            deleted = summary.deleted
            unchanged = summary.unchanged
            repaired = summary.repaired
            filesHashed = summary.filesHashed
            bytesHashed = summary.bytesHashed
            batches = summary.batches
            let skippedProblems = summary.skipped.map {
                Problem(path: $0.path, kind: Problem.kind(ofSkipReason: $0.reason), reason: $0.reason)
            }
            skipped = ProblemList(skippedProblems)
            metadataProblems = ProblemList(summary.metadataProblems.flatMap { Problem.metadata(path: $0.key, problems: $0.value) })
            seconds = (summary.duration * 1000).rounded() / 1000
            interrupted = summary.interrupted
            partial = skippedProblems.contains { Problem.partialKinds.contains($0.kind) }
            self.token = token
        }

    }

    /// What an import did (`photosync import --json`).
    public struct ImportSummary: Sendable, Hashable, Codable {
        /// The folder imported, absolute.
        public var root: String
        /// Files copied into the library.
        public var imported: Int
        /// Files left out (not media, already in the library, unreadable).
        public var skipped: ProblemList
        /// Files imported with what could be read of their metadata.
        public var metadataProblems: ProblemList
        /// The assets and moments the library holds afterwards.
        public var assets: Int
        public var moments: Int
        /// The library's change token after the import.
        public var token: String

        /// A value with these fields.
        public init(root: String, imported: Int, skipped: ProblemList, metadataProblems: ProblemList, assets: Int, moments: Int, token: String) {
            self.root = root
            self.imported = imported
            self.skipped = skipped
            self.metadataProblems = metadataProblems
            self.assets = assets
            self.moments = moments
            self.token = token
        }
    }
}
