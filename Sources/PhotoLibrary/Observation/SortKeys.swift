import GRDB
import LibraryStorage

/// Sort keys held flat: ``width`` values per key, and its id.
struct SortKeys {
    let width: Int
    private(set) var values: [DatabaseValue] = []
    private(set) var ids: [Int64] = []

    init(width: Int) {
        self.width = width
    }

    var count: Int { ids.count }

    mutating func reserveCapacity(_ count: Int) {
        values.reserveCapacity(count * width)
        ids.reserveCapacity(count)
    }

    /// Appends a key and returns its index.
    @discardableResult
    mutating func append(_ keyValues: some Collection<DatabaseValue>, id: Int64) -> Int {
        values.append(contentsOf: keyValues)
        ids.append(id)
        return ids.count - 1
    }

    /// Appends the key whose values are the columns of a row from `first` on.
    mutating func append(_ row: any SQLColumns, id: Int64, from first: Int) -> Int {
        for column in first..<(first + width) { values.append(row.value(column)) }
        ids.append(id)
        return ids.count - 1
    }

    /// Appends the key whose value in each column is `value(column)`, and returns its index.
    mutating func append(id: Int64, _ value: (Int) throws -> DatabaseValue) rethrows -> Int {
        for column in 0..<width { values.append(try value(column)) }
        ids.append(id)
        return ids.count - 1
    }

    /// Appends key `index` of `other`.
    mutating func append(from other: SortKeys, _ index: Int) {
        values.append(contentsOf: other.values[(index * width)..<((index + 1) * width)])
        ids.append(other.ids[index])
    }

    /// Whether key `i` of `self` and key `j` of `other` have the same values (ids aside).
    func sameValues(_ i: Int, as other: SortKeys, _ j: Int) -> Bool {
        (0..<width).allSatisfy { IncrementalFetch.compare(values[i * width + $0], other.values[j * width + $0]) == 0 }
    }
}
