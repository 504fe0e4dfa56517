/// How a ``FolderWatcher`` chooses what to watch.
public struct FolderWatchOptions: Sendable {
    /// Paths (relative to the root, "/"-separated, no leading slash) the watcher neither watches nor reports.
    ///
    /// Called on the watcher's reader thread for every directory found and every event's path, so it should be
    /// fast and must not block. An ignored directory gets no watch, and nothing below it is reported. The root
    /// itself is never asked about.
    public var isIgnored: @Sendable (_ relativePath: String, _ isDirectory: Bool) -> Bool

    /// At most this many directories are watched (nil: as many as the kernel allows). Past it, or when the
    /// kernel's limit (fs.inotify.max_user_watches, ENOSPC) is reached, `.watchLimitReached` is sent once.
    ///
    /// Directories present at the start that could not get a watch are not reported: changes inside them are
    /// only found by the consumer's periodic rescans. The watcher keeps trying to watch directories that appear
    /// later (the kernel's limit is shared with other programs and may free up), without sending the event
    /// again; one that cannot get a watch is reported as `.rescanNeeded` (scan it once) instead of
    /// `.directoryAppeared`.
    public var maximumWatchCount: Int?

    /// While a file is being written, `.fileWritten` is sent for it at most this often (default 100 ms): a copy
    /// of a large file makes one IN_MODIFY per `write`. Any other event about the path is sent at once, and the
    /// next write after it is reported again.
    public var writeReportInterval: Duration = .milliseconds(100)

    /// For tests of queue overflows: the reader thread reads nothing until ``FolderWatcher/resumeReading()``,
    /// so the kernel's queue (fs.inotify.max_queued_events) can be filled deterministically.
    package var holdsEventsUntilResumed = false

    /// The size of the buffer each read(2) of the inotify descriptor fills. Tests make it tiny so that the two
    /// halves of renames come in different reads; it grows when one event does not fit.
    package var readBufferSize = 64 * 1024

    /// How long an unpaired `IN_MOVED_FROM` waits for its `IN_MOVED_TO` after the read that delivered it before
    /// it is reported as `.removed`.
    package var moveGracePeriod: Duration = .milliseconds(10)

    /// Creates options.
    ///
    /// - Parameters:
    ///   - isIgnored: paths neither watched nor reported; by default nothing is ignored.
    ///   - maximumWatchCount: the most directories watched; by default as many as the kernel allows.
    public init(
        isIgnored: @escaping @Sendable (String, Bool) -> Bool = { _, _ in false },
        maximumWatchCount: Int? = nil
    ) {
        self.isIgnored = isIgnored
        self.maximumWatchCount = maximumWatchCount
    }
}
