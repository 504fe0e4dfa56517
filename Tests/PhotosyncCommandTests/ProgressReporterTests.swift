import Foundation
import Synchronization
import Testing
@testable import PhotosyncCommand

@Suite struct ProgressReporterTests {
    @Test func aReadingShowsFilesRatesAndTheTimeLeft() {
        let reading = ProgressReporter.Reading(phase: "hashing", filesDone: 250, filesTotal: 1000, bytesDone: 50_000_000, bytesTotal: 200_000_000)
        let text = ProgressReporter.describe(reading, elapsed: .seconds(10))
        #expect(text == "hashing  [#####---------------]  250/1,000 files  5.0 MB/s  25.0 files/s  ETA 0:30")
        let unknown = ProgressReporter.describe(.init(phase: "walking", filesDone: 12, bytesDone: 0), elapsed: .seconds(2))
        #expect(unknown == "walking  12 files  0 B/s  6.0 files/s")
        #expect(ProgressReporter.clock(3725) == "1:02:05")
    }

    @Test func linesAreThrottledAndTheBarIsRedrawnInPlace() {
        let written = Mutex<[String]>([])
        let lines = ProgressReporter(style: .lines) { text in written.withLock { $0.append(text) } }
        let start = lines.started
        // One line per five seconds, the first one five seconds in: a quick pass logs nothing.
        for tenth in 0..<130 {
            lines.report(.init(phase: "hashing", filesDone: tenth, filesTotal: 200, bytesDone: 0), at: start + .milliseconds(100 * tenth))
            if tenth == 40 { #expect(written.withLock { $0.isEmpty }) }
        }
        #expect(written.withLock { $0.count } == 2)
        // A plain line: no bar, no carriage return, no escape sequence.
        for line in written.withLock({ $0 }) {
            #expect(line.hasSuffix("\n") && !line.contains("\r") && !line.contains("\u{1B}") && !line.contains("[#"), "\(line)")
        }
        #expect(written.withLock { $0[0] }.hasPrefix("hashing  50/200 files (25 %)"))

        written.withLock { $0 = [] }
        let bar = ProgressReporter(style: .bar) { text in written.withLock { $0.append(text) } }
        bar.report(.init(phase: "hashing", filesDone: 1, filesTotal: 2, bytesDone: 1, bytesTotal: 2))
        bar.finish()
        #expect(written.withLock { $0.count } == 2)
        #expect(written.withLock { $0[0].hasPrefix("\r") && !$0[0].hasSuffix("\n") })
        #expect(written.withLock { $0[1] } == "\r\u{1B}[2K")

        written.withLock { $0 = [] }
        let silent = ProgressReporter(style: .silent) { text in written.withLock { $0.append(text) } }
        silent.report(.init(phase: "hashing", filesDone: 1, bytesDone: 1))
        silent.finish()
        #expect(written.withLock { $0.isEmpty })
    }
}
