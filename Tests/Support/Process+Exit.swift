public import Foundation

extension Process {
    /// Waits for the process to exit on a thread of its own, not the caller's: a test that waits for a
    /// subprocess with `waitUntilExit()` holds one of Swift's cooperative threads (two on a 2-core machine)
    /// for as long as the subprocess runs, and every other test running beside it stalls meanwhile.
    ///
    /// - Returns: the exit status.
    public func exitStatus() async -> Int32 {
        let process = self
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                process.waitUntilExit()
                continuation.resume(returning: process.terminationStatus)
            }
        }
    }
}
