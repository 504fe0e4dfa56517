extension IndexDiff {
    /// Computes the difference from `before` to `after`, two lists of unique identifiers, with the
    /// fewest possible moves.
    ///
    /// `Int64` and `Int` identifiers in contiguous storage (`Array`, `ContiguousArray`, `ArraySlice`,
    /// buffer pointers) take a specialised path with an open-addressing hash table; other identifier
    /// types use a `Dictionary`. The function is `@inlinable` so that callers get it specialised for
    /// their identifier type.
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
    /// - Complexity: O(*n* + *m* + *k* log *L*) expected time, for *n* = `before.count`,
    ///   *m* = `after.count`, *k* identifiers in both lists out of their common prefix and suffix, and *L*
    ///   unmoved ones: every identifier is hashed once (with one comparison instead, for runs in
    ///   unchanged order), and only identifiers that break the increasing run pay a binary search.
    ///   Extra memory is O(*n* + *m*) (for `Int64`, about 16 to 32 bytes per `before` identifier for the
    ///   table, plus 12 bytes per common one). Lists that do not expose contiguous storage are copied
    ///   first. The changed lookup costs O(*c* log *c*) for *c* = `changed.count` up to *m*/4 and O(*m*)
    ///   above.
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

    /// Picks the table for `ID`: the `Int64` table for `Int64` and `Int`, a `Dictionary` otherwise. The
    /// type tests are constant-folded once the function is specialised.
    @inlinable
    static func diff<ID: Hashable>(
        before: UnsafeBufferPointer<ID>,
        after: UnsafeBufferPointer<ID>,
        changed: Set<ID>
    ) -> Result<IndexDiff, IndexDiffError> {
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
        var table = DictionaryPositionTable<ID>(capacity: before.count + after.count / 8)
        return DiffEngine.diff(before: before, after: after, changed: changed, table: &table)
    }

    /// The `Int64` path, compiled once in this module.
    @usableFromInline
    static func diffInt64(
        before: UnsafeBufferPointer<Int64>,
        after: UnsafeBufferPointer<Int64>,
        changed: Set<Int64>
    ) -> Result<IndexDiff, IndexDiffError> {
        var table = Int64PositionTable(expectedCount: before.count)
        return DiffEngine.diff(before: before, after: after, changed: changed, table: &table)
    }
}
