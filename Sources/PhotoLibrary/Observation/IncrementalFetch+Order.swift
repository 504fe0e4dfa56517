import GRDB

/// The order of an incremental fetch's keys: its sort columns as SQLite orders them, each ascending or not,
/// then the id.
extension IncrementalFetch {
    /// Compares key `i` of `lhs` with key `j` of `rhs` in the fetch's order: the columns as SQLite orders
    /// them, each ascending or not, then the id ascending. Negative, zero or positive. PostgreSQL's order of
    /// the same fetch is the same: its sort SQL puts NULL first ascending and last descending (`NULLS
    /// FIRST`/`NULLS LAST`, SQLite's order), text columns compare bytes (`COLLATE "C"`), and a column holds
    /// one type.
    func compare(_ lhs: SortKeys, _ i: Int, _ rhs: SortKeys, _ j: Int) -> Int {
        compare(lhs.values, i * lhs.width, lhs.ids[i], rhs.values, j * rhs.width, rhs.ids[j])
    }

    /// Compares the sort values of two keys given as dense numbers (``columns``.count of them from an offset,
    /// NaN for NULL) in the order of ``compare(_:_:_:_:)``, ids aside: zero when they are equal.
    func compareValues(_ lhs: [Double], _ lhsOffset: Int, _ rhs: [Double], _ rhsOffset: Int) -> Int {
        for column in columns.indices {
            let a = lhs[lhsOffset + column]
            let b = rhs[rhsOffset + column]
            let order = a.isNaN ? (b.isNaN ? 0 : -1) : (b.isNaN ? 1 : (a < b ? -1 : (a == b ? 0 : 1)))
            if order != 0 { return ascending[column] ? order : -order }
        }
        return 0
    }

    /// Compares two keys given as their values (``columns``.count of them from an offset) and ids.
    func compare(
        _ lhs: [DatabaseValue], _ lhsOffset: Int, _ lhsID: Int64, _ rhs: [DatabaseValue], _ rhsOffset: Int, _ rhsID: Int64
    ) -> Int {
        for column in columns.indices {
            let order = Self.compare(lhs[lhsOffset + column], rhs[rhsOffset + column])
            if order != 0 { return ascending[column] ? order : -order }
        }
        return lhsID < rhsID ? -1 : (lhsID == rhsID ? 0 : 1)
    }

    /// SQLite's order of values (`BINARY` collation): NULL, then numbers (integers and reals compared
    /// exactly), then text by bytes, then blobs by bytes.
    static func compare(_ lhs: DatabaseValue, _ rhs: DatabaseValue) -> Int {
        func sign<T: Comparable>(_ a: T, _ b: T) -> Int { a < b ? -1 : (a == b ? 0 : 1) }
        func typeOrder(_ value: DatabaseValue) -> Int {
            switch value.storage {
            case .null: 0
            case .int64, .double: 1
            case .string: 2
            case .blob: 3
            }
        }
        switch (lhs.storage, rhs.storage) {
        case (.int64(let a), .int64(let b)): return sign(a, b)
        case (.double(let a), .double(let b)): return sign(a, b)
        case (.int64(let a), .double(let b)): return compare(a, b)
        case (.double(let a), .int64(let b)): return -compare(b, a)
        case (.string(let a), .string(let b)):
            if a.utf8.elementsEqual(b.utf8) { return 0 }
            return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : 1
        case (.blob(let a), .blob(let b)):
            if a == b { return 0 }
            return a.lexicographicallyPrecedes(b) ? -1 : 1
        default:
            return sign(typeOrder(lhs), typeOrder(rhs))
        }
    }

    /// An integer and a real compared exactly.
    private static func compare(_ integer: Int64, _ real: Double) -> Int {
        if real.isNaN { return 1 }
        if real >= 9_223_372_036_854_775_808.0 { return -1 }
        if real < -9_223_372_036_854_775_808.0 { return 1 }
        let floor = real.rounded(.down)
        let whole = Int64(floor)
        if integer != whole { return integer < whole ? -1 : 1 }
        return real > floor ? -1 : 0
    }
}
