/// A change under a watched folder, as ``FolderWatcher/events`` reports it.
///
/// Paths are relative to the watched root, "/"-separated, without a leading slash ("" is the root itself).
/// Events are hints in kernel order: the consumer looks at the file system again (stat, list) before acting.
///
/// Writing is reported in two steps, so that a consumer can tell a file still being written from a finished
/// one: ``fileWritten(_:)`` while a writer writes (the file may still be open), ``fileClosed(_:)`` when a
/// writer closes it. A program that creates a file, writes it and closes it is reported as `.fileChanged`
/// (the creation), `.fileWritten`, `.fileClosed`.
///
/// ## Changes in this version
/// `.fileWritten`, `.fileClosed` and `.marker` are new. Before, a close after writing was reported as
/// `.fileChanged`, and writes themselves were not reported at all; a consumer that treats every file event
/// alike ("stat it again") handles the three cases the same way. A consumer that never calls
/// ``FolderWatcher/requestMarker()`` never receives `.marker`.
public enum FolderWatchEvent: Sendable, Hashable {
    /// A file was created, had its attributes changed (`touch`, `chmod`), or was moved in from outside the
    /// tree: stat it again.
    ///
    /// Also sent for anything that is not a directory (a symbolic link, a hard link made with `ln`, a FIFO):
    /// the consumer's stat decides what it is.
    case fileChanged(String)

    /// Data was written to a file (IN_MODIFY: `write`, `truncate`), and the writer may still hold it open:
    /// what the file holds now may be incomplete. A ``fileClosed(_:)`` follows when the writer closes it; a
    /// writer that never closes its file sends none.
    ///
    /// While a file is being written, this event is sent at most once per ``FolderWatchOptions/writeReportInterval``
    /// for it (a copy of a large file would otherwise send one per `write`), and always again after any other
    /// event about the same path.
    case fileWritten(String)

    /// A writer closed a file it had open for writing (IN_CLOSE_WRITE): what it wrote is complete, as far as
    /// that writer is concerned (another writer may still hold the file open).
    case fileClosed(String)

    /// A file or directory vanished (deleted, or moved out of the tree). For a directory, everything below it
    /// vanished with it.
    case removed(String)

    /// A rename inside the tree, paired by the inotify cookie (a file or a whole directory).
    ///
    /// After a directory rename every watch below it reports paths under `to`; no watch is added again.
    /// A consumer that lags behind may find `from` unknown to it (already renamed again when it looked): it
    /// should then treat `to` as it treats `.fileChanged` or `.directoryAppeared`.
    case moved(from: String, to: String, isDirectory: Bool)

    /// A directory appeared (created, or moved in from outside): scan it whole, since files may have been
    /// written before its watch existed. Its watches (recursive) are already added when this is sent.
    case directoryAppeared(String)

    /// Events may have been lost under this directory ("" = the root): the queue overflowed (IN_Q_OVERFLOW),
    /// or a watch could not be added. The consumer rescans that subtree.
    ///
    /// After an overflow the watcher has already walked the whole tree again and watches every directory in
    /// it when this is sent, so a rescan started on receipt misses nothing.
    case rescanNeeded(String, reason: String)

    /// The answer to ``FolderWatcher/requestMarker()``: every event about a change made before that call was
    /// sent before this one.
    case marker(UInt64)

    /// The root itself was deleted, moved away or unmounted (IN_DELETE_SELF/IN_MOVE_SELF/IN_UNMOUNT on root).
    /// The last event: the stream finishes after it.
    case rootGone

    /// The watch limit is exhausted: coverage is partial from now on. `message` names the sysctl to raise
    /// (`sysctl fs.inotify.max_user_watches=…`, and how to make it permanent). Sent once per watcher.
    case watchLimitReached(watchedDirectories: Int, message: String)
}
