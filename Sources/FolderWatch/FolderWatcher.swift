import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches a folder tree recursively with inotify and reports changes as ``FolderWatchEvent``s.
///
/// ```swift
/// let watcher = try FolderWatcher(root: "/srv/photos", options: FolderWatchOptions(isIgnored: { path, _ in
///     path.hasSuffix(".tmp")
/// }))
/// for await event in watcher.events {
///     switch event {
///     case .fileChanged(let path): …            // stat it again
///     case .fileWritten(let path): …            // being written: wait for .fileClosed
///     case .fileClosed(let path): …             // written and closed: read it
///     case .rescanNeeded(let path, _): …        // rescan that subtree
///     default: …
///     }
/// }
/// ```
///
/// Every directory of the tree that is not ignored gets a watch (symbolic links are never followed; the root
/// itself may be one). One reader thread blocks in poll(2) on the inotify descriptor and on a wake-up
/// descriptor, translates the kernel's events, and sends them in kernel order:
///
/// - A rename's two halves (`IN_MOVED_FROM`, `IN_MOVED_TO`) are paired by cookie into `.moved`. The first half
///   waits for its pair until the end of the read that delivered it plus a short grace (10 ms, and longer while
///   the kernel's queue still holds events); unpaired, it becomes `.removed`, and an unpaired second half a
///   `.fileChanged` or `.directoryAppeared`. Later events wait behind a first half, so order is kept.
/// - A renamed directory keeps its watches: the watcher's map of watches is a tree of names, so one re-link
///   moves the paths of the whole subtree.
/// - Writes are reported as `.fileWritten` (at most every ``FolderWatchOptions/writeReportInterval`` per file)
///   and the writer's close as `.fileClosed`, so that a consumer reads a file once its writer is done with it
///   rather than when it happens to be quiet.
/// - A new directory gets its watches (recursively, after the ignore rules) before `.directoryAppeared` is sent:
///   whatever was written into it before that is found by the consumer's scan, anything after is reported.
/// - On a queue overflow the watcher walks the tree again (adding missing watches, dropping stale ones), then
///   sends `.rescanNeeded("")`.
/// - When the watch limit (``FolderWatchOptions/maximumWatchCount``, or the kernel's
///   fs.inotify.max_user_watches) runs out, `.watchLimitReached` is sent once; what is watched stays watched,
///   the directories without a watch are covered only by the consumer's periodic rescans (a new one is
///   reported once, as `.rescanNeeded`).
/// - A file system mounted over a watched directory after the start is not seen (inotify reports no mounts);
///   one unmounted below the root is reported as `.rescanNeeded` and the directory underneath is watched.
///
/// Events are buffered without bound until the consumer takes them (dropping some would lose changes silently).
/// Names that are not valid UTF-8 are reported with replacement characters, and such directories cannot be
/// watched.
public final class FolderWatcher: Sendable {
    /// The events, in kernel order. One consumer. Finishes after `stop()` or `rootGone`.
    ///
    /// Cancelling the task that iterates it stops the watcher too.
    public let events: AsyncStream<FolderWatchEvent>

    /// The watched root: the given path with symbolic links and `.`/`..` resolved.
    public let root: String

    private let continuation: AsyncStream<FolderWatchEvent>.Continuation
    private let control: WatcherControl

    /// Starts watching `root` recursively (symlinks never followed). When init returns, every directory
    /// present is watched, so any later change is reported.
    ///
    /// - Parameters:
    ///   - root: the folder to watch.
    ///   - options: what to ignore and how many directories to watch at most.
    /// - Throws: ``FolderWatchError``: the root is missing, not a directory or unreadable, or inotify is
    ///   unavailable (no instance left, or no watch left even for the root).
    /// - Complexity: O(entries of every directory of the tree), for the initial walk.
    public init(root: String, options: FolderWatchOptions = FolderWatchOptions()) throws(FolderWatchError) {
        let canonical = try Self.canonicalDirectory(root)
        guard let control = WatcherControl() else {
            throw FolderWatchError(kind: .inotifyUnavailable, path: root, errno: errno, message: "cannot create the wake-up pipe")
        }
        let (events, continuation) = AsyncStream.makeStream(of: FolderWatchEvent.self, bufferingPolicy: .unbounded)
        let engine = try WatchEngine(
            root: canonical, givenPath: root, options: options, continuation: continuation, control: control)
        self.root = canonical
        self.events = events
        self.continuation = continuation
        self.control = control
        continuation.onTermination = { _ in control.requestStop() }
        let transfer = WatchEngine.Transfer(engine: engine)
        let thread = Thread { transfer.engine.run() }
        thread.name = "photosync.folder-watch"
        thread.start()
    }

    deinit {
        stop()
    }

    /// How many directories are watched now.
    ///
    /// - Complexity: O(1).
    public var watchedDirectoryCount: Int {
        control.watchedDirectories.load(ordering: .relaxed)
    }

    /// What `.watchLimitReached` tells the user when the kernel's limit is the one reached: the current value
    /// of fs.inotify.max_user_watches, the `sysctl` command that raises it, and how to keep it after a reboot.
    public static var kernelWatchLimitAdvice: String {
        WatchEngine.kernelLimitAdvice()
    }

    /// Stops watching and finishes `events`. Idempotent; also done on deinit.
    ///
    /// Events already sent stay in the stream, before its end. The inotify descriptor (and with it every
    /// watch) is closed by the reader thread as soon as it wakes.
    public func stop() {
        control.requestStop()
        continuation.finish()
    }

    /// Asks for a ``FolderWatchEvent/marker(_:)`` event: it is sent after every event about a change made before
    /// the call. Once the consumer receives it, it has received all of them — Watchman's cookie, without a
    /// file in the tree.
    ///
    /// The reader reads everything the kernel has queued for the watcher, then sends the marker (after any
    /// rename still waiting for its second half, so order is kept). While the watcher holds its events
    /// (``FolderWatchOptions/holdsEventsUntilResumed``), markers wait too.
    ///
    /// - Returns: the marker's number: 1 for the first, then one more each call.
    public func requestMarker() -> UInt64 {
        control.requestMarker()
    }

    /// Lets the reader start reading when ``FolderWatchOptions/holdsEventsUntilResumed`` was set (for tests that
    /// fill the kernel's queue). Does nothing otherwise.
    package func resumeReading() {
        control.requestResume()
    }

    /// The root as a canonical path, after checking it is a directory that can be listed.
    private static func canonicalDirectory(_ root: String) throws(FolderWatchError) -> String {
        guard let resolved = realpath(root, nil) else {
            let code = errno
            switch code {
            case EACCES:
                throw FolderWatchError(kind: .rootUnreadable, path: root, errno: code, message: "cannot reach the folder")
            case ENOTDIR:
                throw FolderWatchError(kind: .rootMissing, path: root, errno: code, message: "a component of the path is not a folder")
            default:
                throw FolderWatchError(kind: .rootMissing, path: root, errno: code, message: "the folder does not exist")
            }
        }
        let canonical = String(cString: resolved)
        free(resolved)
        var info = stat()
        guard stat(canonical, &info) == 0 else {
            let code = errno
            throw FolderWatchError(kind: .rootMissing, path: root, errno: code, message: "the folder does not exist")
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            throw FolderWatchError(kind: .notADirectory, path: root, errno: 0, message: "not a folder")
        }
        guard let directory = opendir(canonical) else {
            let code = errno
            throw FolderWatchError(kind: .rootUnreadable, path: root, errno: code, message: "cannot list the folder")
        }
        closedir(directory)
        return canonical
    }
}
