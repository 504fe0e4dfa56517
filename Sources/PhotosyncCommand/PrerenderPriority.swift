import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Background priority for a pre-render, so that it yields to everything else on the machine — the daemon
/// mirroring first of all.
enum PrerenderPriority {
    /// The nice value of a background pre-render (the I/O priority follows it: best-effort 6 of 0…7).
    static let niceness: Int32 = 10

    /// Lowers the CPU priority of every thread of this process, and so of the threads they start later
    /// (Linux keeps a nice value per thread, and a new thread takes its creator's). Returns whether it worked.
    @discardableResult
    static func lower() -> Bool {
        guard let threads = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return false }
        var lowered = true
        for thread in threads.compactMap({ id_t($0) }) {
            if getpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread) < niceness {
                lowered = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), thread, niceness) == 0 && lowered
            }
        }
        return lowered
    }
}
