import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// Shows the progress of long work: a progress bar redrawn in place when stderr is a terminal (files and
/// bytes per second, ETA), and otherwise a plain line every few seconds — no bar, no carriage return — so
/// that a log file or the journal gets readable lines.
final class ProgressReporter: Sendable {
    /// One reading of the work done so far.
    struct Reading: Sendable, Equatable {
        var phase: String
        var filesDone: Int
        var filesTotal: Int?
        var bytesDone: Int64
        var bytesTotal: Int64?
        /// What `filesDone` counts: `files`, `assets`.
        var unit = "files"
        /// Whether the bytes rate is shown (work whose bytes aren't counted leaves it out).
        var showsBytes = true
    }

    enum Style: Sendable { case bar, lines, silent }

    private struct State {
        var started: ContinuousClock.Instant
        var lastDrawn: ContinuousClock.Instant?
        var lastReading: Reading?
        var barVisible = false
    }

    let style: Style
    private let interval: Duration
    private let state: Mutex<State>
    private let write: @Sendable (String) -> Void

    /// - Parameters:
    ///   - style: nil chooses: a bar when stderr is a terminal, else lines.
    ///   - write: where text goes (stderr by default).
    init(style: Style? = nil, write: @escaping @Sendable (String) -> Void = { FileHandle.standardError.write(Data($0.utf8)) }) {
        let style = style ?? (isatty(STDERR_FILENO) == 1 ? .bar : .lines)
        self.style = style
        self.interval = style == .bar ? .milliseconds(100) : .seconds(5)
        self.state = Mutex(State(started: .now))
        self.write = write
    }

    /// When the reporter was made: the start of the work.
    var started: ContinuousClock.Instant { state.withLock { $0.started } }

    /// Records a reading made `now`; draws it when the last drawing is old enough (for lines, the first one
    /// too: a pass shorter than the interval logs no progress).
    func report(_ reading: Reading, at now: ContinuousClock.Instant = .now) {
        guard style != .silent else { return }
        let text: String? = state.withLock { state in
            state.lastReading = reading
            // A line waits a whole interval first: a pass shorter than that logs no progress at all.
            if let last = state.lastDrawn ?? (style == .lines ? state.started : nil), now - last < interval { return nil }
            state.lastDrawn = now
            let line = Self.describe(reading, elapsed: now - state.started, bar: style == .bar)
            if style == .bar {
                state.barVisible = true
                return "\r\u{1B}[2K" + line
            }
            return line + "\n"
        }
        if let text { write(text) }
    }

    /// Clears the bar (on a terminal) so the summary that follows starts on a clean line.
    func finish() {
        let clear = state.withLock { state -> Bool in
            defer { state.barVisible = false }
            return state.barVisible
        }
        if clear { write("\r\u{1B}[2K") }
    }

    /// The text of one reading: `hashing  [#####---------------]  1,204/5,000 files  310.2 MB/s  12.1 files/s
    /// ETA 0:42` for the bar, `hashing  1,204/5,000 files (24 %)  …` for a line.
    static func describe(_ reading: Reading, elapsed: Duration, bar: Bool = true) -> String {
        let seconds = max(Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18, 0.001)
        var parts = [reading.phase]
        if let total = reading.filesTotal, total > 0 {
            let fraction = min(Double(reading.filesDone) / Double(total), 1)
            let files = "\(reading.filesDone.formatted())/\(total.formatted()) \(reading.unit)"
            if bar {
                let width = 20
                let filled = Int((fraction * Double(width)).rounded(.down))
                parts.append("[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled) + "]")
                parts.append(files)
            } else {
                parts.append(files + " (\(Int((fraction * 100).rounded(.down))) %)")
            }
        } else {
            parts.append("\(reading.filesDone.formatted()) \(reading.unit)")
        }
        if reading.showsBytes { parts.append(Self.bytes(Double(reading.bytesDone) / seconds) + "/s") }
        parts.append(String(format: "%.1f ", Double(reading.filesDone) / seconds) + reading.unit + "/s")
        if let eta = eta(reading, seconds: seconds) { parts.append("ETA " + Self.clock(eta)) }
        return parts.joined(separator: "  ")
    }

    /// Seconds left, from the bytes when their total is known (hashing dominates), else from the files.
    private static func eta(_ reading: Reading, seconds: Double) -> Double? {
        if let total = reading.bytesTotal, total > 0, reading.bytesDone > 0 {
            return Double(total - min(reading.bytesDone, total)) / (Double(reading.bytesDone) / seconds)
        }
        if let total = reading.filesTotal, total > 0, reading.filesDone > 0 {
            return Double(total - min(reading.filesDone, total)) / (Double(reading.filesDone) / seconds)
        }
        return nil
    }

    static func bytes(_ value: Double) -> String {
        let units = ["B", "KB", "MB", "GB", "TB"]
        var value = value
        var unit = 0
        while value >= 1000, unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(Int(value)) B" : String(format: "%.1f", value) + " " + units[unit]
    }

    static func clock(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total % 3600 / 60, total % 60)
        return hours > 0 ? String(format: "%d:%02d:%02d", hours, minutes, rest) : String(format: "%d:%02d", minutes, rest)
    }
}
