extension IndexDiff {
    /// Computes the difference from `before` to `after`, two lists of unique identifiers, with the
    /// fewest possible moves.
    ///
    /// `Int64` and `Int` identifiers take a specialised path: a direct-address table when their values
    /// span a narrow range (at most about twice as many values as identifiers, as database row ids do),
    /// else an open-addressing hash table with a fast integer hash. Other identifier types use the same
    /// open-addressing table with the standard `Hasher`. The function is `@inlinable`, so callers get it
    /// specialised for their identifier type.
    ///
    /// - Parameters:
    ///   - before: The identifiers before the change, each at most once.
    ///   - after: The identifiers after the change, each at most once.
    ///   - changed: Identifiers whose objects changed. Those present in both lists end up in
    ///     ``changedIndexes``; the others (inserted, removed or unknown) are ignored.
    /// - Returns: The difference; see ``IndexDiff`` for its index spaces, minimality and tie-break.
    /// - Throws: ``IndexDiffError/duplicateIdentifier(side:index:)`` when an identifier occurs twice in
    ///   one list (`before` is checked first).
    /// - Precondition: Each list holds fewer than 2³¹ − 1 identifiers.
    /// - Complexity: O(*n* + *m* + *k* log *L*) expected time for *n* = `before.count` and
    ///   *m* = `after.count`, where *k* ≤ min(*n*, *m*) counts the common identifiers that neither extend
    ///   the longest run found so far nor follow their predecessor in `after` directly, and *L* is the
    ///   number of unmoved identifiers: every identifier of `before` is hashed once, identifiers of
    ///   `after` that continue a run in unchanged order cost one comparison, and only identifiers that
    ///   break the order pay a binary search. Changed identifiers cost O(*c* log *c*) for
    ///   *c* = `changed.count` up to *m* / 4, else O(*m*). Extra memory: the table (4 bytes per value of
    ///   the range for the direct table, 12 to 24 bytes per `before` identifier for the hash table) plus
    ///   about 12 bytes per identifier outside the common prefix and suffix, plus the result. Collections
    ///   without contiguous storage are copied first.
    @inlinable
    public static func compute<ID: Hashable>(
        from before: some RandomAccessCollection<ID>,
        to after: some RandomAccessCollection<ID>,
        changed: Set<ID> = []
    ) throws(IndexDiffError) -> IndexDiff {
        try withContiguousElements(of: before) { before in
            withContiguousElements(of: after) { after in
                diff(before: before, after: after, changed: changed)
            }
        }.get()
    }

    /// Calls `body` with the elements of `collection` in contiguous memory, copying them only when the
    /// collection does not provide such storage.
    @inlinable
    static func withContiguousElements<C: RandomAccessCollection, R>(
        of collection: C,
        _ body: (UnsafeBufferPointer<C.Element>) -> R
    ) -> R {
        if let result = collection.withContiguousStorageIfAvailable(body) { return result }
        return ContiguousArray(collection).withUnsafeBufferPointer(body)
    }

    /// Picks the table for `ID`: the `Int64` path for `Int64` and `Int`, a ``HashedPositionTable`` with
    /// the standard hashing otherwise. The type tests are constant-folded once the function is
    /// specialised.
    @inlinable
    static func diff<ID: Hashable>(
        before: UnsafeBufferPointer<ID>,
        after: UnsafeBufferPointer<ID>,
        changed: Set<ID>
    ) -> Result<IndexDiff, IndexDiffError> {
        precondition(
            before.count < Int(Int32.max) && after.count < Int(Int32.max),
            "IndexDiff: lists must hold fewer than 2^31 - 1 identifiers"
        )
        if ID.self == Int64.self {
            // Same type: the casts are identities.
            return diffInt64(
                before: UnsafeRawBufferPointer(before).assumingMemoryBound(to: Int64.self),
                after: UnsafeRawBufferPointer(after).assumingMemoryBound(to: Int64.self),
                changed: unsafeBitCast(changed, to: Set<Int64>.self)
            )
        }
        if ID.self == Int.self && MemoryLayout<Int>.size == MemoryLayout<Int64>.size {
            // Same type as `Int`, which has the layout of `Int64` here: rebinding the memory is sound.
            var changed64 = Set<Int64>(minimumCapacity: changed.count)
            for identifier in unsafeBitCast(changed, to: Set<Int>.self) { changed64.insert(Int64(identifier)) }
            return before.withMemoryRebound(to: Int64.self) { before in
                after.withMemoryRebound(to: Int64.self) { after in
                    diffInt64(before: before, after: after, changed: changed64)
                }
            }
        }
        var table = HashedPositionTable<StandardHashing<ID>>(before: before, after: after)
        return DiffEngine.diff(before: before, after: after, changed: changed, table: &table)
    }

    /// The `Int64` path, compiled once in this module: a ``DensePositionTable`` when the identifiers
    /// span a narrow range (row ids), else a ``HashedPositionTable`` with a fast integer hash.
    @usableFromInline
    static func diffInt64(
        before: UnsafeBufferPointer<Int64>,
        after: UnsafeBufferPointer<Int64>,
        changed: Set<Int64>
    ) -> Result<IndexDiff, IndexDiffError> {
        if let range = DensePositionTable.range(before: before, after: after) {
            var table = DensePositionTable(before: before, after: after, lowest: range.lowest, width: range.width)
            return DiffEngine.diff(before: before, after: after, changed: changed, table: &table)
        }
        var table = HashedPositionTable<Int64Hashing>(before: before, after: after)
        return DiffEngine.diff(before: before, after: after, changed: changed, table: &table)
    }
}
