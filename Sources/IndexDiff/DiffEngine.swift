/// The diff algorithm, generic over the identifier table so that each kind of identifier gets the
/// fastest table for it.
///
/// 1. Every identifier of `before` goes into the table with its index (which finds duplicates there).
/// 2. The common prefix and suffix of the two lists are unmoved and need no more work.
/// 3. One pass over the rest of `after` finds each identifier's index in `before`: first by guessing that
///    it follows the previous match (true along runs of unchanged order, and a guess costs one
///    comparison), else through the table. Identifiers not in `before` are inserted; the table and an
///    after-index per before-index catch duplicates in `after`. The before-indexes of the matches feed,
///    in after order, a longest increasing subsequence (patience sorting) as they come.
/// 4. One pass over the rest of `before` collects the removed identifiers and the moves: the matches
///    outside the subsequence.
/// 5. Changed identifiers are looked up in the table (few of them) or checked while scanning `after`
///    (many of them).
@usableFromInline
enum DiffEngine {
    @inlinable
    static func diff<Table: PositionTable & ~Copyable>(
        before: UnsafeBufferPointer<Table.Key>,
        after: UnsafeBufferPointer<Table.Key>,
        changed: Set<Table.Key>,
        table: inout Table
    ) -> Result<IndexDiff, IndexDiffError> {
        // 1. Index `before`.
        if let duplicate = table.insertAllBefore() {
            return .failure(.duplicateIdentifier(side: .before, index: duplicate))
        }
        // 2. Trim the common prefix and suffix.
        let middle = Middle(before: before, after: after)
        // 3. Match the middle of `after` against `before`, in after order.
        // `afterIndexOfBefore[i - prefix]`: where `before[i]` went in `after`, or -1.
        let afterIndexOfBefore = UnsafeMutableBufferPointer<Int32>.allocate(capacity: middle.beforeCount)
        afterIndexOfBefore.initialize(repeating: -1)
        defer { afterIndexOfBefore.deallocate() }
        var unmoved = IncreasingSubsequence(
            valueCount: middle.beforeCount, maximumCount: min(middle.beforeCount, middle.afterRange.count))
        let matched = match(middle, before: before, after: after, table: &table, into: afterIndexOfBefore, &unmoved)
        guard case .success(let (insertedIndexes, matchedCount)) = matched else {
            return .failure(.duplicateIdentifier(side: .after, index: firstDuplicate(in: after)))
        }
        let unmovedCount = unmoved.finish()
        // 4. Removed and moved, in before order.
        var removedIndexes: [Int] = []
        var moves: [IndexDiff.Move] = []
        if matchedCount < middle.beforeCount || unmovedCount < matchedCount {
            (removedIndexes, moves) = removedAndMoved(
                middle, afterIndexOfBefore, unmoved,
                removedCount: middle.beforeCount &- matchedCount, movedCount: matchedCount &- unmovedCount)
        }
        // 5. Changed.
        let changedIndexes = changed.isEmpty ? [] : changedIndexes(
            changed, middle, before: before, after: after, table: table, afterIndexOfBefore, inserted: insertedIndexes)
        return .success(
            IndexDiff(
                beforeCount: before.count, afterCount: after.count, removedIndexes: removedIndexes,
                insertedIndexes: insertedIndexes, moves: moves, changedIndexes: changedIndexes))
    }

    /// The part of both lists between their common prefix and their common suffix (unmoved, no more work).
    @usableFromInline
    struct Middle {
        /// The length of the common prefix: the middle's first index on both sides.
        @usableFromInline let prefix: Int
        /// The end of the middle in `before`.
        @usableFromInline let beforeEnd: Int
        /// The middle's indexes in `after`.
        @usableFromInline let afterRange: Range<Int>
        /// How many identifiers of `before` are in the middle.
        @inlinable var beforeCount: Int { beforeEnd &- prefix }

        @inlinable @inline(__always)
        init<Key: Hashable>(before: UnsafeBufferPointer<Key>, after: UnsafeBufferPointer<Key>) {
            let shorterCount = min(before.count, after.count)
            var prefix = 0
            while prefix < shorterCount && before[prefix] == after[prefix] { prefix &+= 1 }
            var suffix = 0
            while suffix < shorterCount &- prefix
                && before[before.count &- 1 &- suffix] == after[after.count &- 1 &- suffix]
            {
                suffix &+= 1
            }
            self.prefix = prefix
            beforeEnd = before.count &- suffix
            afterRange = prefix..<(after.count &- suffix)
        }
    }

    /// Finds each identifier of the middle of `after` in `before`: first by guessing that it follows the
    /// previous match (one comparison along runs of unchanged order), else through the table. Records where
    /// each identifier of `before` went, and feeds the matches' before-offsets, in after order, to `unmoved`.
    ///
    /// - Returns: the inserted indexes and the number of matches, or failure for a duplicate in `after`.
    @inlinable @inline(__always)
    static func match<Table: PositionTable & ~Copyable>(
        _ middle: Middle, before: UnsafeBufferPointer<Table.Key>, after: UnsafeBufferPointer<Table.Key>,
        table: inout Table, into afterIndexOfBefore: UnsafeMutableBufferPointer<Int32>,
        _ unmoved: inout IncreasingSubsequence
    ) -> Result<(inserted: [Int], matchedCount: Int), DuplicateInAfter> {
        var matchedCount = 0
        var insertedIndexes: [Int] = []
        var guess = middle.prefix
        for afterIndex in middle.afterRange {
            let beforeIndex: Int
            if guess < middle.beforeEnd && before[guess] == after[afterIndex] {
                beforeIndex = guess
            } else {
                let found = table.matchAfter(at: afterIndex)
                if found == PositionTableResult.inserted {
                    insertedIndexes.append(afterIndex)
                    continue
                }
                // Seen in `after` already, or the twin of an identifier of the trimmed prefix or suffix.
                guard found >= middle.prefix && found < middle.beforeEnd else { return .failure(DuplicateInAfter()) }
                beforeIndex = found
            }
            let offset = beforeIndex &- middle.prefix
            guard afterIndexOfBefore[offset] < 0 else { return .failure(DuplicateInAfter()) }
            afterIndexOfBefore[offset] = Int32(truncatingIfNeeded: afterIndex)
            unmoved.append(Int32(truncatingIfNeeded: offset))
            matchedCount &+= 1
            guess = beforeIndex &+ 1
        }
        return .success((insertedIndexes, matchedCount))
    }

    /// A duplicate identifier met in `after` while matching; its first index is found afterwards.
    @usableFromInline
    struct DuplicateInAfter: Error {
        @inlinable init() {}
    }

    /// One pass over the middle of `before`: the removed identifiers, and the moves (the matches outside the
    /// unmoved subsequence), sorted by target.
    @inlinable @inline(__always)
    static func removedAndMoved(
        _ middle: Middle, _ afterIndexOfBefore: UnsafeMutableBufferPointer<Int32>,
        _ unmoved: borrowing IncreasingSubsequence, removedCount: Int, movedCount: Int
    ) -> (removed: [Int], moves: [IndexDiff.Move]) {
        var removedIndexes: [Int] = []
        removedIndexes.reserveCapacity(removedCount)
        var moves: [IndexDiff.Move] = []
        moves.reserveCapacity(movedCount)
        var movesAscendByTo = true
        var previousTo = -1
        for offset in 0..<middle.beforeCount {
            let afterIndex = Int(afterIndexOfBefore[offset])
            if afterIndex < 0 {
                removedIndexes.append(middle.prefix &+ offset)
            } else if !unmoved.isMember(offset) {
                moves.append(IndexDiff.Move(from: middle.prefix &+ offset, to: afterIndex))
                movesAscendByTo = movesAscendByTo && afterIndex > previousTo
                previousTo = afterIndex
            }
        }
        if !movesAscendByTo {
            sortByTarget(&moves, afterRange: middle.afterRange)
        }
        return (removedIndexes, moves)
    }

    /// The after-indexes of the changed identifiers still present: looked up in the table when they are few,
    /// else checked while scanning `after` (skipping the inserted indexes).
    @inlinable @inline(__always)
    static func changedIndexes<Table: PositionTable & ~Copyable>(
        _ changed: Set<Table.Key>, _ middle: Middle, before: UnsafeBufferPointer<Table.Key>,
        after: UnsafeBufferPointer<Table.Key>, table: borrowing Table,
        _ afterIndexOfBefore: UnsafeMutableBufferPointer<Int32>, inserted insertedIndexes: [Int]
    ) -> [Int] {
        var changedIndexes: [Int] = []
        guard changed.count <= after.count / 4 else {
            var nextInserted = 0
            for index in 0..<after.count {
                if nextInserted < insertedIndexes.count && insertedIndexes[nextInserted] == index {
                    nextInserted &+= 1
                } else if changed.contains(after[index]) {
                    changedIndexes.append(index)
                }
            }
            return changedIndexes
        }
        changedIndexes.reserveCapacity(changed.count)
        for identifier in changed {
            let beforeIndex = table.beforeIndex(of: identifier)
            if beforeIndex < 0 {
                continue  // inserted or unknown
            } else if beforeIndex < middle.prefix {
                changedIndexes.append(beforeIndex)
            } else if beforeIndex >= middle.beforeEnd {
                changedIndexes.append(beforeIndex &- before.count &+ after.count)
            } else {
                let afterIndex = afterIndexOfBefore[beforeIndex &- middle.prefix]
                if afterIndex >= 0 { changedIndexes.append(Int(afterIndex)) }
            }
        }
        changedIndexes.sort()
        return changedIndexes
    }

    /// Sorts `moves`, whose distinct targets lie in `afterRange`, by target: by comparison when they are
    /// few, else by placing each at its target in a table over the range.
    ///
    /// - Complexity: O(*k* log *k*) for *k* ≤ *r* / 64 moves and a range of *r* indexes, else O(*r*).
    @inlinable
    static func sortByTarget(_ moves: inout [IndexDiff.Move], afterRange: Range<Int>) {
        if moves.count &* 64 <= afterRange.count {
            moves.sort { $0.to < $1.to }
            return
        }
        let fromByTarget = UnsafeMutableBufferPointer<Int32>.allocate(capacity: afterRange.count)
        defer { fromByTarget.deallocate() }
        fromByTarget.initialize(repeating: -1)
        for move in moves {
            fromByTarget[move.to &- afterRange.lowerBound] = Int32(truncatingIfNeeded: move.from)
        }
        var next = 0
        for offset in 0..<afterRange.count where fromByTarget[offset] >= 0 {
            moves[next] = IndexDiff.Move(from: Int(fromByTarget[offset]), to: afterRange.lowerBound &+ offset)
            next &+= 1
        }
    }

    /// The smallest index at which an identifier occurs for the second time in `list`, which must hold
    /// a duplicate. Only used to report an error, so simple rather than fast.
    ///
    /// - Complexity: O(*n*) expected.
    @inlinable
    static func firstDuplicate<ID: Hashable>(in list: UnsafeBufferPointer<ID>) -> Int {
        var seen = Set<ID>(minimumCapacity: list.count)
        for (index, identifier) in list.enumerated() where !seen.insert(identifier).inserted {
            return index
        }
        preconditionFailure("IndexDiff: a duplicate was detected but not found")
    }
}
