#if canImport(Glibc)
public import Glibc
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
