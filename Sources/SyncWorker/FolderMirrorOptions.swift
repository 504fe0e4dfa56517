public import Logging
import Foundation

/// How a ``FolderMirror`` scans, batches, watches and protects a folder. The defaults are issue 5's.
public struct FolderMirrorOptions: Sendable {
    /// The author recorded with every transaction the mirror commits.
    public var author = "photosync"
    /// How long a path must stay quiet (no event) before the watcher hashes it.
    public var settleInterval: Duration = .seconds(1)
    /// How long a file written and not closed since must stay quiet before it is hashed anyway.
    ///
    /// A file being written (an inotify IN_MODIFY without an IN_CLOSE_WRITE since, or a file some process
    /// holds open for writing, where the kernel says so: see the README) is not read on quiet alone: the
    /// watcher waits for its writer to close it, then for ``settleInterval``; a scan skips it as still being
    /// written. This bounds the wait for a writer that never closes its file (it is then mirrored like any
    /// file, once quiet this long). Default 30 s.
    public var openFileSettleInterval: Duration = .seconds(30)
    /// How many files a pass reads (probes and hashes) at once, at most, each on a thread of its own, ahead
    /// of the commits — which stay on the pass's own thread, in the order of the walk, with the same batches
    /// as one file read after the other. All but one of the threads wait while the files read ahead fill half
    /// the read-ahead window, and read again when the pass has to wait for a file: files in the page cache
    /// leave the cores to the commits, files read from a disk are read in parallel. 1 reads each file on the
    /// pass's own thread when it comes to it. Default: the machine's active processor count, at least 2, at
    /// most 4.
    public var fileReaders = min(max(ProcessInfo.processInfo.activeProcessorCount, 2), 4)
    /// A commit holds at most this many file changes…
    public var batchFileLimit = 500
    /// …or the changes found within this long, whichever comes first, so tokens advance during long scans.
    public var batchTimeLimit: Duration = .seconds(1)
    /// A pass that would delete more than this share of the mirrored assets stops with
    /// ``SyncError/Kind/massDeletionRefused(wouldDelete:mirrored:limit:)``…
    public var maximumDeletionShare = 0.5
    /// …when it would delete at least this many assets (so that deleting 1 of 2 photos is no mass deletion).
    public var minimumMassDeletion = 10
    /// How long the watcher holds a file it found gone at most; nil for ``HeldFiles/limit(settle:)``. Internal:
    /// tests whose timeline a loaded machine stretches raise it so that the bound doesn't decide for them.
    var heldFileLimit: Duration? = nil
    /// Set to confirm a mass deletion explicitly.
    public var allowMassDeletion = false
    /// Set to confirm that the root now lives on another device than recorded (a disk replaced, a backup
    /// restored). Otherwise a full scan refuses such a root while assets are mirrored from it: it is what an
    /// unmounted disk's mount point looks like.
    public var acceptRootDeviceChange = false
    /// The watcher's periodic full rescan (±10 % jitter), for file systems that send no events; nil for none.
    public var rescanInterval: Duration? = .seconds(3600)
    /// Whether the built-in ignore patterns (hidden files, `*.tmp`, `@eaDir`…) apply besides `.photosyncignore`.
    public var includeDefaultIgnoreRules = true
    /// How long a pass waits for another mirror writer of the library (another process, or another
    /// ``FolderMirror`` of this one) to finish before throwing ``SyncError/Kind/mirrorWriterBusy(holder:)``.
    ///
    /// One writer per library (see ``FolderMirror``): by default a pass refuses at once, naming the holder, as
    /// the daemon does. An app that scans now and then beside a daemon can wait instead (say a minute, while
    /// the daemon is told to stop); a ``FolderMirror/watch(progress:onEvent:)`` holds the lock until it
    /// returns, so waiting for a daemon only ends when the daemon does. Cancelling the waiting task throws
    /// at once.
    public var mirrorWriterWait: Duration = .zero
    /// Where the mirror reports what it does and what it refused to do.
    public var logger: Logger

    /// Makes the default options, reporting to `logger`; set the other properties afterwards.
    public init(logger: Logger = Logger(label: "photosync.sync")) {
        self.logger = logger
    }
}
