import Foundation
import PhotosyncWire

/// What commands write: results on stdout (text, or JSON with `--json`), everything else on stderr.
enum Output {
    /// Writes one JSON value as a line to stdout.
    static func json(_ value: some Encodable) throws {
        line(try jsonText(value))
    }

    /// One JSON value as a line of text.
    static func jsonText(_ value: some Encodable) throws -> String {
        try Wire.line(value)
    }

    /// Writes a line to stdout.
    static func line(_ text: String) {
        FileHandle.standardOutput.write(Data((text + "\n").utf8))
    }

    /// Writes a line to stderr.
    static func error(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }

    /// Rows of columns, each column padded to its widest cell (the last one is not padded).
    static func table(_ rows: [[String]], separator: String = "  ") -> [String] {
        guard let width = rows.map(\.count).max(), width > 0 else { return [] }
        var widths = [Int](repeating: 0, count: width)
        for row in rows {
            for (index, cell) in row.enumerated() { widths[index] = max(widths[index], cell.count) }
        }
        return rows.map { row in
            row.enumerated().map { index, cell in
                index == row.count - 1 ? cell : cell.padding(toLength: widths[index], withPad: " ", startingAt: 0)
            }.joined(separator: separator)
        }
    }
}
