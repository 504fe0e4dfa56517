extension Wire {
    /// Assets with identical content (`photosync duplicates --json`, one group per line).
    public struct DuplicateGroup: Sendable, Hashable, Codable {
        /// Their XXH3-128.
        public var contentHash: String
        /// Their local identifiers, in the order they were added.
        public var assets: [String]
        /// Where each one is mirrored, when it is (by identifier).
        public var paths: [String: String]

        /// A value with these fields.
        public init(contentHash: String, assets: [String], paths: [String: String]) {
            self.contentHash = contentHash
            self.assets = assets
            self.paths = paths
        }
    }
}
