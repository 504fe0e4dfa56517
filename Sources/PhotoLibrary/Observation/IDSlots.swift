import IndexDiff

/// Row ids numbered 0, 1, 2, … in the order they were added (their *slots*), so that what is known of each
/// can be kept in arrays indexed by slot.
///
/// The incremental path looks its touched assets up by id a few dozen times a round; Swift's `Dictionary`
/// and `Set` hash every key with SipHash, which cost a tenth of a round. This is an open-addressing table
/// with multiplicative hashing and linear probing, for row ids (which no one picks to collide).
struct IDSlots {
    /// The ids, by slot.
    private(set) var ids: [Int64] = []
    /// Slot + 1 of the id hashed to each place (0: empty); a power of two, at most half full.
    private var table: [Int32]
    private var shift: UInt64

    init(capacity: Int = 8) {
        var size = 16
        while size < 2 * capacity { size *= 2 }
        table = [Int32](filled: 0, count: size)
        shift = UInt64(64 - size.trailingZeroBitCount)
        ids.reserveCapacity(capacity)
    }

    var count: Int { ids.count }

    /// The slot of `id`, or nil when it wasn't added.
    ///
    /// - Complexity: O(1) expected.
    func slot(of id: Int64) -> Int? {
        var place = home(id)
        while true {
            let entry = Int(table[place])
            if entry == 0 { return nil }
            if ids[entry - 1] == id { return entry - 1 }
            place = (place + 1) & (table.count - 1)
        }
    }

    /// Adds `id` if it is new; returns its slot and whether it was new.
    ///
    /// - Complexity: O(1) amortized.
    @discardableResult
    mutating func insert(_ id: Int64) -> (slot: Int, inserted: Bool) {
        var place = home(id)
        while true {
            let entry = Int(table[place])
            if entry == 0 { break }
            if ids[entry - 1] == id { return (entry - 1, false) }
            place = (place + 1) & (table.count - 1)
        }
        ids.append(id)
        table[place] = Int32(ids.count)
        if 2 * ids.count > table.count { grow() }
        return (ids.count - 1, true)
    }

    /// The place an id's probe starts at: the top bits of its product with 2⁶⁴ / φ (Fibonacci hashing).
    private func home(_ id: Int64) -> Int {
        Int(truncatingIfNeeded: (UInt64(bitPattern: id) &* 0x9E37_79B9_7F4A_7C15) >> shift)
    }

    private mutating func grow() {
        table = [Int32](filled: 0, count: 2 * table.count)
        shift -= 1
        for (slot, id) in ids.enumerated() {
            var place = home(id)
            while table[place] != 0 { place = (place + 1) & (table.count - 1) }
            table[place] = Int32(slot + 1)
        }
    }
}
