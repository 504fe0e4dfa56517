import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A child process's tie to the process that started it, through its standard input: the parent holds the
/// write end of that pipe and never writes to it, so the child reads the end of the file exactly when the
/// parent is gone — however it went, SIGKILL and crashes included (the kernel closes a dead process's
/// files). Linux's `PR_SET_PDEATHSIG` would fire when the parent's spawning *thread* exits, which in a
/// Swift process is any pool thread: this doesn't.
enum ParentLifeline {
    /// The hidden option of a child that stops with its parent (`thumbnails`, started by the daemon).
    static let option = "--stop-when-stdin-closes"

    /// Sends this process SIGTERM — its ordinary graceful stop — when standard input ends or fails.
    /// Call it once the process handles SIGTERM.
    static func stopWhenStandardInputCloses() {
        Thread.detachNewThread {
            var byte: UInt8 = 0
            while true {
                let count = read(STDIN_FILENO, &byte, 1)
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
            }
            kill(getpid(), SIGTERM)
        }
    }
}
