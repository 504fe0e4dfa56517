extension Wire {
    /// An image of an asset written by `photosync thumbnail --json`:
    /// `{"localIdentifier", "path", "output", "width", "height", "format", "bytes", "source", "contentHash"}`.
    public struct Thumbnail: Sendable, Hashable, Codable {
        /// The asset shown.
        public var localIdentifier: String
        /// The asset's path relative to its mirrored folder, or nil.
        @Nullable public var path: String?
        /// The file written (absolute).
        public var output: String
        /// The image's size in pixels, orientation applied.
        public var width: Int
        public var height: Int
        /// `jpeg`, `webp`, `png` or `avif`.
        public var format: String
        /// The size of the file written.
        public var bytes: Int
        /// `rendered` (decoded from the asset's file now) or `renditionCache` (rendered before, read back).
        public var source: String
        /// The content hash of the file shown (the original, or the asset's edit).
        @Nullable public var contentHash: String?

        /// A value with these fields.
        public init(
            localIdentifier: String, path: String?, output: String, width: Int, height: Int, format: String, bytes: Int,
            source: String, contentHash: String?
        ) {
            self.localIdentifier = localIdentifier
            self.path = path
            self.output = output
            self.width = width
            self.height = height
            self.format = format
            self.bytes = bytes
            self.source = source
            self.contentHash = contentHash
        }
    }
}
