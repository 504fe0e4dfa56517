import Foundation
import GRDB
import GRDBSQLite
import LibraryStorage
import SeededRandom
import Testing

/// Texts bound from one buffer (`SQLITE_STATIC`) by a statement of many rows.
@Suite("Static texts")
struct StaticTextsTests {
    private static let pieces = ["", "a", "é", "日本", "IMG_0001.JPG", "public.jpeg", "0123456789ABCDEF0123456789ABCDEF", "/photos/2024/", "\u{1F600}", " "]

    /// Rows of two texts (either may be NULL), bound through `StaticTexts` whose capacity is the texts' bytes
    /// (or a share of them: the texts that don't fit are bound with a copy), written by one statement; then
    /// read back. The statement runs again and again, so a binding left from a run would show in the next.
    @Test("What is written is what was bound: short and long texts, NULLs, and a buffer too small for them all", arguments: 0..<6)
    func roundTrip(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let queue = try DatabaseQueue()
        try queue.write { db in try db.execute(sql: "CREATE TABLE item (run INTEGER, a TEXT, b TEXT)") }
        for run in 0..<20 {
            let count = random.int(in: 1...40)
            let rows: [(String?, String?)] = (0..<count).map { _ in
                func text() -> String? {
                    random.chance(0.15) ? nil : (0..<random.int(in: 0...6)).map { _ in random.pick(Self.pieces) }.joined()
                }
                return (text(), text())
            }
            let bytes = rows.reduce(0) { $0 + ($1.0?.utf8.count ?? 0) + ($1.1?.utf8.count ?? 0) }
            let capacity = random.chance(0.3) ? bytes / 2 : bytes
            let sql = "INSERT INTO item VALUES " + Array(repeating: "(?, ?, ?)", count: count).joined(separator: ", ")
            try queue.write { db in
                let statement = try db.cachedStatement(sql: sql)
                let texts = StaticTexts(capacity: capacity)
                try statement.executeBinding(parameterCount: 3 * count, clearingBindings: true) { sqlite in
                    for (index, row) in rows.enumerated() {
                        let first = Int32(3 * index + 1)
                        sqlite3_bind_int64(sqlite, first, Int64(run))
                        texts.bind(row.0, to: sqlite, at: first + 1)
                        texts.bind(row.1, to: sqlite, at: first + 2)
                    }
                }
            }
            let written = try queue.read { db in
                try Row.fetchAll(db, sql: "SELECT a, b FROM item WHERE run = ? ORDER BY rowid", arguments: [run])
                    .map { (row: Row) -> (String?, String?) in (row["a"], row["b"]) }
            }
            #expect(written.count == rows.count)
            for (got, bound) in zip(written, rows) {
                #expect(got.0 == bound.0 && got.1 == bound.1, "run \(run): \(got) written for \(bound)")
            }
        }
    }
}
