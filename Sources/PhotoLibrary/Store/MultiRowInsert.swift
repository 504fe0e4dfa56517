/// An INSERT of many rows by one statement, `INSERT INTO table (columns) VALUES (…), (…)`, in the sizes 1, 2,
/// 4, … up to a largest: rows are written in chunks of the largest size that fits, so a table's inserts use at
/// most log₂ of that + 1 distinct statements, each prepared once per connection. A statement's fixed cost —
/// its cursors on the table and each of its indexes, its end — is what a row's insert costs most when rows
/// come one at a time.
struct MultiRowInsert: Sendable {
    /// The most rows one statement writes.
    let maximumRows: Int
    private let statements: [Int: String]

    /// - Parameters:
    ///   - head: `INSERT INTO table (columns)`.
    ///   - columns: how many values a row has.
    ///   - maximumRows: a power of two.
    init(_ head: String, columns: Int, maximumRows: Int = 32) {
        precondition(maximumRows > 0 && maximumRows & (maximumRows - 1) == 0, "maximumRows must be a power of two")
        let row = "(" + Array(repeating: "?", count: columns).joined(separator: ", ") + ")"
        var statements: [Int: String] = [:]
        var count = 1
        while count <= maximumRows {
            statements[count] = head + " VALUES " + Array(repeating: row, count: count).joined(separator: ", ")
            count *= 2
        }
        self.maximumRows = maximumRows
        self.statements = statements
    }

    /// The statement for a chunk of `rows` rows (one of ``chunks(of:)``).
    func sql(rows: Int) -> String { statements[rows]! }

    /// The chunks `count` rows are written in, in order: each the largest size that fits.
    func chunks(of count: Int) -> [Range<Int>] {
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
