/// A ``PositionTable`` specialised for `Int64` identifiers: open addressing with linear probing over
/// one flat buffer of 16-byte slots (key and value side by side, so a probe touches one cache line).
///
/// Slot values: `0` for an empty slot, `index + 1` for an identifier at `index` in `before`, `-1` for an
/// identifier seen in `after` only.
///
/// The home slot keeps runs of 8 consecutive identifiers in 8 adjacent slots (the low 3 bits of the
/// key) and scatters the runs with Fibonacci hashing of the remaining bits. Database row ids, which are
/// mostly consecutive, then fill the table almost sequentially, with few cache misses; arbitrary keys
/// still spread evenly. The hash is not seeded: the table is not meant for adversarial input (keys
/// crafted to collide degrade it to quadratic time, never to a wrong result).
///
/// - Complexity: expected O(1) per operation; the table grows (doubling) past a load factor of 3/4.
struct Int64PositionTable: PositionTable, ~Copyable {
    typealias Key = Int64

    struct Slot {
        var key: Int64
        var value: Int32
    }

    /// Keys that share all but their low `groupBits` bits land in adjacent slots.
    private static let groupBits = 3
    private static let minimumCapacityBits = 4

    private var slots: UnsafeMutableBufferPointer<Slot>
    private var mask: Int
    /// `64 - (log2(capacity) - groupBits)`: the shift taking a product's top bits as the group number.
    private var shift: UInt64
    private var count: Int
    private var growThreshold: Int

    /// Creates an empty table sized for `expectedCount` keys at a load factor of at most 1/2.
    init(expectedCount: Int) {
        var bits = Self.minimumCapacityBits
        while (1 << bits) < 2 * expectedCount { bits += 1 }
        (slots, mask, shift, growThreshold) = Self.allocate(bits: bits)
        count = 0
    }

    deinit {
        slots.deallocate()
    }

    private static func allocate(
        bits: Int
    ) -> (UnsafeMutableBufferPointer<Slot>, mask: Int, shift: UInt64, growThreshold: Int) {
        let capacity = 1 << bits
        let slots = UnsafeMutableBufferPointer<Slot>.allocate(capacity: capacity)
        slots.initialize(repeating: Slot(key: 0, value: 0))
        return (slots, capacity - 1, UInt64(64 - (bits - groupBits)), capacity / 4 * 3)
    }

    @inline(__always)
    private func homeSlot(_ key: Int64) -> Int {
        let bits = UInt64(bitPattern: key)
        let group = ((bits &>> UInt64(Self.groupBits)) &* 0x9E37_79B9_7F4A_7C15) &>> shift
        let low = bits & UInt64((1 << Self.groupBits) - 1)
        return Int(truncatingIfNeeded: (group &<< UInt64(Self.groupBits)) | low)
    }

    /// The slot holding `key`, or the empty slot where it would go.
    @inline(__always)
    private func find(_ key: Int64) -> Int {
        var slot = homeSlot(key)
        while true {
            let entry = slots[slot]
            if entry.value == 0 || entry.key == key { return slot }
            slot = (slot &+ 1) & mask
        }
    }

    @inline(__always)
    private mutating func store(_ key: Int64, _ value: Int32, at slot: Int) {
        slots[slot] = Slot(key: key, value: value)
        count += 1
        if count > growThreshold { grow() }
    }

    private mutating func grow() {
        let old = slots
        (slots, mask, shift, growThreshold) = Self.allocate(bits: (mask + 1).trailingZeroBitCount + 1)
        for entry in old where entry.value != 0 {
            slots[find(entry.key)] = entry
        }
        old.deallocate()
    }

    mutating func insertBefore(_ key: Int64, at index: Int32) -> Bool {
        let slot = find(key)
        if slots[slot].value != 0 { return false }
        store(key, index &+ 1, at: slot)
        return true
    }

    mutating func matchAfter(_ key: Int64) -> Int32 {
        let slot = find(key)
        let value = slots[slot].value
        if value > 0 { return value &- 1 }
        if value < 0 { return PositionTableResult.duplicate }
        store(key, -1, at: slot)
        return PositionTableResult.inserted
    }

    func beforeIndex(of key: Int64) -> Int32 {
        slots[find(key)].value &- 1  // 0 (empty) → -1; -1 (after only) → -2
    }
}
