#if canImport(Glibc)
import Glibc
#endif

/// Whether some process holds a file open for writing, asked of the kernel: a read lease (`F_SETLEASE`,
/// `F_RDLCK`) cannot be taken on a file open for writing anywhere (EAGAIN). Taken and released at once.
///
/// This is the check for the files no event announced: written before the watch of their new folder existed,
/// or found by a scan. A lease needs the file's owner or CAP_LEASE, and a file system that supports it; where
/// it cannot be taken the answer is `nil` (unknown), and the caller falls back on the stat before and after
/// reading, and on the watcher's events.
///
/// A lease is broken when another process opens the file for writing while it is held (for the microseconds
/// between the two calls): the kernel then signals the holder. The signal is set to SIGURG, whose default
/// action is to ignore it (SIGIO's would end the process), and the opener waits only until the release.
enum OpenWriterCheck {
    private static let setLease: Int32 = 1024  // F_SETLEASE (Linux)
    private static let setSignal: Int32 = 10  // F_SETSIG (Linux)
    private static let readLease: Int32 = 0  // F_RDLCK
    private static let unlock: Int32 = 2  // F_UNLCK

    /// Whether `path` is open for writing by any process: true, false, or nil when the kernel can't say.
    static func isOpenForWriting(_ path: String) -> Bool? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        guard fcntl(descriptor, setSignal, SIGURG) == 0 else { return nil }
        if fcntl(descriptor, setLease, readLease) == 0 {
            _ = fcntl(descriptor, setLease, unlock)
            return false
        }
        return errno == EAGAIN ? true : nil
    }
}
