/// A table from identifiers to their index in `before`, which also remembers the identifiers seen only in
/// `after` (to catch duplicates there). The diff engine is generic over it: ``DensePositionTable`` for
/// integer identifiers packed in a narrow range (database row ids), ``HashedPositionTable`` for the rest.
///
/// A table reads the identifiers from the two lists it was created with: it is only valid while their
/// buffers are.
@usableFromInline
protocol PositionTable: ~Copyable {
    associatedtype Key: Hashable

    /// Records the index of every identifier of `before`, in order. Returns the index of the first
    /// identifier already recorded (a duplicate in `before`), or `nil`.
    mutating func insertAllBefore() -> Int?

    /// Looks up `after[index]`:
    /// - its index in `before` (`>= 0`) when `before` holds it;
    /// - ``PositionTableResult/inserted`` when neither list had it yet: it is then recorded as seen in
    ///   `after` only;
    /// - ``PositionTableResult/duplicate`` when it was already recorded as seen in `after` only.
    mutating func matchAfter(at index: Int) -> Int

    /// The index of `key` in `before`, or a negative value when `before` does not hold it.
    func beforeIndex(of key: Key) -> Int
}

/// The negative results of ``PositionTable/matchAfter(at:)``.
@usableFromInline
enum PositionTableResult {
    /// The identifier is in `after` only, and this is its first occurrence.
    @inlinable static var inserted: Int { -1 }
    /// The identifier is in `after` only, and it occurred before: a duplicate.
    @inlinable static var duplicate: Int { -2 }
}
