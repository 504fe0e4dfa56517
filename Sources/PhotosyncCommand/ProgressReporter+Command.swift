import Foundation
import Logging
import SyncWorker

#if canImport(Glibc)
import Glibc
#endif

extension ProgressReporter {
    /// The reporter of a mirroring command: silent with `--quiet` or `--json`; a bar when stderr is a
    /// terminal; otherwise an info line through `logger` every few seconds.
    static func forCommand(_ options: GlobalOptions, logger: Logger) -> ProgressReporter {
        if options.quiet || options.json { return ProgressReporter(style: .silent) }
        if isatty(STDERR_FILENO) == 1 { return ProgressReporter(style: .bar) }
        return ProgressReporter(style: .lines) { text in
            logger.info("\(text.trimmingCharacters(in: .newlines))")
        }
    }
}

extension ProgressReporter.Reading {
    init(_ progress: ScanProgress) {
        self.init(
            phase: progress.phase.rawValue, filesDone: progress.filesHashed,
            filesTotal: progress.filesToHash > 0 ? progress.filesToHash : nil,
            bytesDone: progress.bytesHashed, bytesTotal: progress.totalBytesToHash)
    }
}
