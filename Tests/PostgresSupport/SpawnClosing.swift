public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `posix_spawn_file_actions_addclosefrom_np` (glibc 2.34): a spawned child closes every descriptor from
/// `lowest` up, after the actions added before it. Swift's Glibc module leaves it out (it is declared under
/// `_GNU_SOURCE`), so it is looked up by name.
///
/// A long-lived child (the PostgreSQL server, the test browser) must not inherit the test process's
/// descriptors: Foundation opens files without O_CLOEXEC, and a file another test had open for writing at the
/// instant of the spawn would stay open for writing as long as the child runs.
///
/// - Returns: 0, or the error number (ENOSYS when this C library has no such action).
@discardableResult
public func addCloseFrom(_ actions: inout posix_spawn_file_actions_t, _ lowest: Int32) -> Int32 {
    typealias CloseFrom = @convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else {
        return ENOSYS
    }
    return unsafeBitCast(symbol, to: CloseFrom.self)(&actions, lowest)
}

/// A file held open for writing without O_CLOEXEC — as Foundation opens files — in a temporary directory of
/// its own: what a spawned child must not inherit. ``close()`` closes it; the directory goes with the value.
public final class InheritableWriter {
    /// The temporary directory holding the file (removed when the writer goes).
    public let directory: URL
    /// The file's path.
    public let path: String
    private var descriptor: Int32

    /// Creates `directory/being-written.jpg` and opens it for writing, inheritable by children.
    ///
    /// - Throws: a POSIX error when the directory or the file can't be made.
    public init(prefix: String) throws {
        directory = FileManager.default.temporaryDirectory.appending(path: "\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        path = directory.appending(path: "being-written.jpg").path
        descriptor = open(path, O_WRONLY | O_CREAT, 0o644)  // no O_CLOEXEC
        guard descriptor >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Closes the file (once).
    public func close() {
        if descriptor >= 0 { _ = Glibc.close(descriptor) }
        descriptor = -1
    }

    deinit {
        close()
        try? FileManager.default.removeItem(at: directory)
    }
}
