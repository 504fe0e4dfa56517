extension Wire {
    /// A pre-render of a library's renditions (`photosync thumbnails --json`, and `status`'s `prerender`):
    /// the last one run, by the daemon or by hand, as its process published it.
    public struct Prerender: Sendable, Hashable, Codable {
        /// `running` (its process is at work now), `finished`, `cacheFull` (stopped before the rendition cache
        /// went past its budget: pre-rendering never evicts), or `interrupted` (stopped by a signal, or its
        /// process died: the next run skips what was rendered).
        public var state: String
        /// The process that runs (or ran) it.
        public var pid: Int32
        /// `library` (every asset) or `changes` (the assets added or changed since a change token).
        public var scope: String
        /// The sizes rendered: `256` for a square, `640x480` otherwise.
        public var sizes: [String]
        /// `fit` or `fill`.
        public var contentMode: String
        /// `jpeg`, `webp`, `png` or `avif`, with its quality: `jpeg85`.
        public var format: String
        /// Assets in the run.
        public var total: Int
        /// Assets done: rendered, found in the cache, or failed.
        public var completed: Int
        /// Renditions rendered by the run.
        public var rendered: Int
        /// Renditions that were in the cache already.
        public var alreadyCached: Int
        /// Assets that could not be rendered (damaged or missing files…).
        public var failed: Int
        /// The last such failure.
        @Nullable public var lastError: String?
        public var started: Timestamp
        /// When the process last published its progress.
        public var updated: Timestamp
        /// When the run ended (finished or interrupted), or nil while it runs or when its process died.
        @Nullable public var finished: Timestamp?

        /// A value with these fields.
        public init(
            state: String, pid: Int32, scope: String, sizes: [String], contentMode: String, format: String, total: Int,
            completed: Int, rendered: Int, alreadyCached: Int, failed: Int, lastError: String?, started: Timestamp,
            updated: Timestamp, finished: Timestamp?
        ) {
            self.state = state
            self.pid = pid
            self.scope = scope
            self.sizes = sizes
            self.contentMode = contentMode
            self.format = format
            self.total = total
            self.completed = completed
            self.rendered = rendered
            self.alreadyCached = alreadyCached
            self.failed = failed
            self.lastError = lastError
            self.started = started
            self.updated = updated
            self.finished = finished
        }
    }
}
