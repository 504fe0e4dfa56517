/// A ``PositionTable`` for `Int64` identifiers that all fall in a narrow range, such as database row ids:
/// a direct-address array with one 4-byte cell per value of the range, so no hashing and no probing; row
/// ids in ascending order fill it sequentially.
///
/// Cells: `0` when empty, `index + 1` for an identifier at `index` in `before`, `-1` for an identifier seen
/// in `after` only.
///
/// - Complexity: O(1) per operation; O(*r*) memory for a range of *r* values.
struct DensePositionTable: PositionTable, ~Copyable {
    typealias Key = Int64

    private let before: UnsafeBufferPointer<Int64>
    private let after: UnsafeBufferPointer<Int64>
    private let lowest: Int64
    private let cells: UnsafeMutableBufferPointer<Int32>

    /// Creates a table for `before` and `after` whose identifiers all lie in `lowest ... lowest + width - 1`.
    init(before: UnsafeBufferPointer<Int64>, after: UnsafeBufferPointer<Int64>, lowest: Int64, width: Int) {
        self.before = before
        self.after = after
        self.lowest = lowest
        cells = .allocate(capacity: width)
        cells.initialize(repeating: 0)
    }

    deinit {
        cells.deallocate()
    }

    /// The range of values of `before` and `after`, when it is narrow enough for a dense table: at most
    /// `2 × (before.count + after.count) + 64` values, so the table takes at most about 8 bytes per
    /// identifier.
    static func range(
        before: UnsafeBufferPointer<Int64>,
        after: UnsafeBufferPointer<Int64>
    ) -> (lowest: Int64, width: Int)? {
        guard let first = before.first ?? after.first else { return nil }
        var lowest = first
        var highest = first
        for identifier in before {
            lowest = min(lowest, identifier)
            highest = max(highest, identifier)
        }
        for identifier in after {
            lowest = min(lowest, identifier)
            highest = max(highest, identifier)
        }
        let limit = 2 &* (before.count &+ after.count) &+ 64
        let span = UInt64(bitPattern: highest &- lowest)  // exact: highest ≥ lowest
        guard span < UInt64(limit) else { return nil }
        return (lowest, Int(span) &+ 1)
    }

    @inline(__always)
    private func cell(of identifier: Int64) -> Int {
        Int(truncatingIfNeeded: identifier &- lowest)
    }

    mutating func insertAllBefore() -> Int? {
        for index in before.indices {
            let cell = cell(of: before[index])
            guard cells[cell] == 0 else { return index }
            cells[cell] = Int32(truncatingIfNeeded: index &+ 1)
        }
        return nil
    }

    mutating func matchAfter(at index: Int) -> Int {
        let cell = cell(of: after[index])
        let value = cells[cell]
        if value > 0 { return Int(value) &- 1 }
        if value < 0 { return PositionTableResult.duplicate }
        cells[cell] = -1
        return PositionTableResult.inserted
    }

    func beforeIndex(of key: Int64) -> Int {
        let offset = UInt64(bitPattern: key &- lowest)
        guard key >= lowest, offset < UInt64(cells.count) else { return -1 }
        return Int(cells[Int(offset)]) &- 1  // empty (0) and after-only (-1) give negative results
    }
}
