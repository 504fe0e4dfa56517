/// How ``HashedPositionTable`` hashes an identifier: to 64 well-mixed bits.
@usableFromInline
protocol IdentifierHashing {
    associatedtype ID: Hashable
    static func hash(_ identifier: ID) -> UInt64
}

/// The standard library's hashing (`Hasher`, seeded per process), for any `Hashable` identifier.
@usableFromInline
enum StandardHashing<ID: Hashable>: IdentifierHashing {
    @inlinable
    static func hash(_ identifier: ID) -> UInt64 {
        #if _pointerBitWidth(_64)
        UInt64(UInt(bitPattern: identifier.hashValue))
        #else
        // Spread the 32 bits of the hash over the 64 the table takes its slot and tag from.
        Int64Hashing.hash(Int64(identifier.hashValue))
        #endif
    }
}

/// A fast, unseeded mix of the bits of an `Int64` (the SplitMix64 / Murmur3 finaliser: a bijection).
/// Not meant for adversarial input: keys crafted to collide make the table quadratic, never wrong.
@usableFromInline
enum Int64Hashing: IdentifierHashing {
    @inlinable
    static func hash(_ identifier: Int64) -> UInt64 {
        var bits = UInt64(bitPattern: identifier)
        bits = (bits ^ (bits &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        bits = (bits ^ (bits &>> 27)) &* 0x94D0_49BB_1331_11EB
        return bits ^ (bits &>> 31)
    }
}

/// A ``PositionTable`` for any identifier: open addressing with linear probing over 8-byte slots that
/// hold a 32-bit hash tag and a 32-bit position, never the identifier itself. A probe compares tags, and
/// only a matching tag costs a comparison of identifiers, read from the two lists. Identifiers are thus
/// never copied into the table, and it stays small (12 to 24 bytes per `before` identifier) and cache
/// friendly.
///
/// Slots: `0` when empty, else `tag << 32 | position`, where the position is `index + 1` for an index in
/// `before` and `before.count + 1 + index` for an index in `after` (an identifier seen in `after` only).
///
/// - Complexity: expected O(1) hash computations and comparisons per operation. The table starts with
///   at least 1.5 slots per `before` identifier and doubles past a load factor of 3/4.
@usableFromInline
struct HashedPositionTable<Hashing: IdentifierHashing>: PositionTable, ~Copyable {
    @usableFromInline typealias Key = Hashing.ID

    @usableFromInline let before: UnsafeBufferPointer<Key>
    @usableFromInline let after: UnsafeBufferPointer<Key>
    @usableFromInline var slots: UnsafeMutableBufferPointer<UInt64>
    @usableFromInline var mask: Int
    /// `64 - log2(capacity)`: the shift that takes a hash's top bits as its home slot.
    @usableFromInline var shift: UInt64
    @usableFromInline var count: Int
    @usableFromInline var growThreshold: Int

    /// Creates an empty table for `before` and `after`.
    @inlinable
    init(before: UnsafeBufferPointer<Key>, after: UnsafeBufferPointer<Key>) {
        self.before = before
        self.after = after
        var bits = 4
        while (1 << bits) < before.count &+ before.count / 2 { bits &+= 1 }
        slots = .allocate(capacity: 1 << bits)
        slots.initialize(repeating: 0)
        mask = (1 << bits) &- 1
        shift = UInt64(64 &- bits)
        count = 0
        growThreshold = (1 << bits) / 4 &* 3
    }

    @inlinable
    deinit {
        slots.deallocate()
    }

    @inlinable
    func key(atPosition position: Int) -> Key {
        position <= before.count ? before[position &- 1] : after[position &- before.count &- 1]
    }

    /// The slot holding `identifier` (whose hash is `hash`), or the empty slot where it would go.
    @inlinable
    func find(_ identifier: Key, hash: UInt64) -> Int {
        let tag = hash & 0xFFFF_FFFF
        var slot = Int(truncatingIfNeeded: hash &>> shift)
        while true {
            let entry = slots[slot]
            if entry == 0 { return slot }
            if entry &>> 32 == tag && key(atPosition: Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)) == identifier {
                return slot
            }
            slot = (slot &+ 1) & mask
        }
    }

    @inlinable
    mutating func store(position: Int, hash: UInt64, at slot: Int) {
        slots[slot] = (hash &<< 32) | UInt64(truncatingIfNeeded: position)
        count &+= 1
        if count > growThreshold { grow() }
    }

    /// Doubles the table. The home slots come from hash bits that are not stored, so every identifier is
    /// hashed again (rare: only when many identifiers are seen in `after` only).
    @inlinable
    mutating func grow() {
        let old = slots
        let bits = (mask &+ 1).trailingZeroBitCount &+ 1
        slots = .allocate(capacity: 1 << bits)
        slots.initialize(repeating: 0)
        mask = (1 << bits) &- 1
        shift = UInt64(64 &- bits)
        growThreshold = (1 << bits) / 4 &* 3
        for entry in old where entry != 0 {
            let hash = Hashing.hash(key(atPosition: Int(truncatingIfNeeded: entry & 0xFFFF_FFFF)))
            var slot = Int(truncatingIfNeeded: hash &>> shift)
            while slots[slot] != 0 { slot = (slot &+ 1) & mask }
            slots[slot] = entry
        }
        old.deallocate()
    }

    @inlinable
    mutating func insertAllBefore() -> Int? {
        for index in before.indices {
            let identifier = before[index]
            let hash = Hashing.hash(identifier)
            let slot = find(identifier, hash: hash)
            guard slots[slot] == 0 else { return index }
            store(position: index &+ 1, hash: hash, at: slot)
        }
        return nil
    }

    @inlinable
    mutating func matchAfter(at index: Int) -> Int {
        let identifier = after[index]
        let hash = Hashing.hash(identifier)
        let slot = find(identifier, hash: hash)
        let position = Int(truncatingIfNeeded: slots[slot] & 0xFFFF_FFFF)
        if position == 0 {
            store(position: before.count &+ 1 &+ index, hash: hash, at: slot)
            return PositionTableResult.inserted
        }
        return position <= before.count ? position &- 1 : PositionTableResult.duplicate
    }

    @inlinable
    func beforeIndex(of key: Key) -> Int {
        let position = Int(truncatingIfNeeded: slots[find(key, hash: Hashing.hash(key))] & 0xFFFF_FFFF)
        return position >= 1 && position <= before.count ? position &- 1 : -1
    }
}
