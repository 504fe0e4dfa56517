/// A hash table from identifiers to their position in the `before` list, which also remembers the
/// identifiers seen only in the `after` list (to find duplicates there). The diff engine is generic over
/// it so that `Int64` identifiers get a specialised open-addressing table (``Int64PositionTable``) and
/// every other `Hashable` type a `Dictionary` (``DictionaryPositionTable``).
@usableFromInline
protocol PositionTable: ~Copyable {
    associatedtype Key: Hashable

    /// Records that `key` is at index `index` of `before`. Returns `false`, recording nothing, when
    /// `key` is already in the table (a duplicate in `before`).
    mutating func insertBefore(_ key: Key, at index: Int32) -> Bool

    /// Looks up `key`, met while scanning `after`:
    /// - its index in `before` (`>= 0`) when `before` holds it;
    /// - ``PositionTableResult/inserted`` when neither list had it yet: it is then recorded as seen in
    ///   `after` only;
    /// - ``PositionTableResult/duplicate`` when it was already recorded as seen in `after` only.
    mutating func matchAfter(_ key: Key) -> Int32

    /// The index of `key` in `before`, or a negative value when `before` does not hold it.
    func beforeIndex(of key: Key) -> Int32
}

/// The negative results of ``PositionTable/matchAfter(_:)``.
@usableFromInline
enum PositionTableResult {
    /// The key is in `after` only, and this is its first occurrence.
    @inlinable static var inserted: Int32 { -1 }
    /// The key is in `after` only, and it occurred before: a duplicate.
    @inlinable static var duplicate: Int32 { -2 }
}

/// A ``PositionTable`` for any `Hashable` identifier, on top of `Dictionary`.
///
/// Values: an index into `before` (`>= 0`), or `-1` for an identifier seen in `after` only.
@usableFromInline
struct DictionaryPositionTable<Key: Hashable>: PositionTable {
    @usableFromInline
    var storage: [Key: Int32]

    /// The value of an entry for an identifier seen in `after` only.
    @inlinable static var afterOnly: Int32 { -1 }
    /// The default value handed out for a missing key, never stored.
    @inlinable static var absent: Int32 { -3 }

    /// Creates an empty table with room for `capacity` identifiers.
    @inlinable
    init(capacity: Int) {
        storage = [:]
        storage.reserveCapacity(capacity)
    }

    @inlinable
    mutating func insertBefore(_ key: Key, at index: Int32) -> Bool {
        // One hash lookup; on a duplicate the overwritten entry no longer matters: the diff fails.
        storage.updateValue(index, forKey: key) == nil
    }

    @inlinable
    mutating func matchAfter(_ key: Key) -> Int32 {
        var result: Int32 = PositionTableResult.inserted
        Self.resolve(&storage[key, default: Self.absent], into: &result)
        return result
    }

    @inlinable
    static func resolve(_ value: inout Int32, into result: inout Int32) {
        switch value {
        case absent:
            value = afterOnly
            result = PositionTableResult.inserted
        case afterOnly:
            result = PositionTableResult.duplicate
        default:
            result = value
        }
    }

    @inlinable
    func beforeIndex(of key: Key) -> Int32 {
        storage[key] ?? -1
    }
}
