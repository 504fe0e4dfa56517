/// An INSERT of many rows by one statement, `INSERT INTO table (columns) VALUES (…), (…)` (then a tail, such
/// as an `ON CONFLICT` clause, valid on every engine), in the sizes 1, 2, 4, … up to a largest: rows are
/// written in chunks of the largest size that fits, so a table's inserts use at most log₂ of that + 1 distinct
/// statements, each prepared once per connection. A statement's fixed cost — its cursors on the table and each
/// of its indexes, its end — is what a row's insert costs most when rows come one at a time. Used by the
/// library's tables and by its clients' (the sync worker's mirror state).
package struct MultiRowInsert: Sendable {
    /// The most rows one statement writes.
    package let maximumRows: Int
    private let statements: [Int: String]

    /// - Parameters:
    ///   - head: `INSERT INTO table (columns)`.
    ///   - columns: how many values a row has.
    ///   - maximumRows: a power of two.
    ///   - tail: what follows the values (an `ON CONFLICT` clause), if anything.
    package init(_ head: String, columns: Int, maximumRows: Int = 32, tail: String = "") {
        precondition(maximumRows > 0 && maximumRows & (maximumRows - 1) == 0, "maximumRows must be a power of two")
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        var statements: [Int: String] = [:]
        var count = 1
        while count <= maximumRows {
            statements[count] = head + " VALUES " + Array(repeating: row, count: count).joined(separator: ", ") + tail
            count *= 2
        }
        self.maximumRows = maximumRows
        self.statements = statements
    }

    /// The statement for a chunk of `rows` rows (one of ``chunks(of:)``).
    package func sql(rows: Int) -> String { statements[rows]! }

    /// The chunks `count` rows are written in, in order: each the largest size that fits.
    package func chunks(of count: Int) -> [Range<Int>] {
        var chunks: [Range<Int>] = []
        var start = 0
        while start < count {
            var size = maximumRows
            while size > count - start { size /= 2 }
            chunks.append(start..<(start + size))
            start += size
        }
        return chunks
    }
}
