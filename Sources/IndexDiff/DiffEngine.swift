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
        let beforeCount = before.count
        let afterCount = after.count

        // 1. Index `before`.
        if let duplicate = table.insertAllBefore() {
            return .failure(.duplicateIdentifier(side: .before, index: duplicate))
        }

        // 2. Trim the common prefix and suffix.
        let shorterCount = min(beforeCount, afterCount)
        var prefix = 0
        while prefix < shorterCount && before[prefix] == after[prefix] { prefix &+= 1 }
        var suffix = 0
        while suffix < shorterCount &- prefix
            && before[beforeCount &- 1 &- suffix] == after[afterCount &- 1 &- suffix]
        {
            suffix &+= 1
        }
        let beforeEnd = beforeCount &- suffix
        let afterEnd = afterCount &- suffix
        let middleBeforeCount = beforeEnd &- prefix

        // 3. Match the middle of `after` against `before`, in after order.
        // `afterIndexOfBefore[i - prefix]`: where `before[i]` went in `after`, or -1.
        let afterIndexOfBefore = UnsafeMutableBufferPointer<Int32>.allocate(capacity: middleBeforeCount)
        afterIndexOfBefore.initialize(repeating: -1)
        defer { afterIndexOfBefore.deallocate() }
        var unmoved = IncreasingSubsequence(
            valueCount: middleBeforeCount,
            maximumCount: min(middleBeforeCount, afterEnd &- prefix)
        )
        var matchedCount = 0
        var insertedIndexes: [Int] = []
        var guess = prefix
        for afterIndex in prefix..<afterEnd {
            let beforeIndex: Int
            if guess < beforeEnd && before[guess] == after[afterIndex] {
                beforeIndex = guess
            } else {
                let found = table.matchAfter(at: afterIndex)
                if found == PositionTableResult.inserted {
                    insertedIndexes.append(afterIndex)
                    continue
                }
                // Seen in `after` already, or the twin of an identifier of the trimmed prefix or suffix.
                guard found >= prefix && found < beforeEnd else {
                    return .failure(.duplicateIdentifier(side: .after, index: firstDuplicate(in: after)))
                }
                beforeIndex = found
            }
            let offset = beforeIndex &- prefix
            guard afterIndexOfBefore[offset] < 0 else {
                return .failure(.duplicateIdentifier(side: .after, index: firstDuplicate(in: after)))
            }
            afterIndexOfBefore[offset] = Int32(truncatingIfNeeded: afterIndex)
            unmoved.append(Int32(truncatingIfNeeded: offset))
            matchedCount &+= 1
            guess = beforeIndex &+ 1
        }
        let unmovedCount = unmoved.finish()

        // 4. Removed and moved, in before order.
        var removedIndexes: [Int] = []
        removedIndexes.reserveCapacity(middleBeforeCount &- matchedCount)
        var moves: [IndexDiff.Move] = []
        moves.reserveCapacity(matchedCount &- unmovedCount)
        var movesAscendByTo = true
        if matchedCount < middleBeforeCount || unmovedCount < matchedCount {
            var previousTo = -1
            for offset in 0..<middleBeforeCount {
                let afterIndex = Int(afterIndexOfBefore[offset])
                if afterIndex < 0 {
                    removedIndexes.append(prefix &+ offset)
                } else if !unmoved.isMember(offset) {
                    moves.append(IndexDiff.Move(from: prefix &+ offset, to: afterIndex))
                    movesAscendByTo = movesAscendByTo && afterIndex > previousTo
                    previousTo = afterIndex
                }
            }
        }
        if !movesAscendByTo {
            sortByTarget(&moves, afterRange: prefix..<afterEnd)
        }

        // 5. Changed.
        var changedIndexes: [Int] = []
        if !changed.isEmpty {
            if changed.count <= afterCount / 4 {
                changedIndexes.reserveCapacity(changed.count)
                for identifier in changed {
                    let beforeIndex = table.beforeIndex(of: identifier)
                    if beforeIndex < 0 {
                        continue  // inserted or unknown
                    } else if beforeIndex < prefix {
                        changedIndexes.append(beforeIndex)
                    } else if beforeIndex >= beforeEnd {
                        changedIndexes.append(beforeIndex &- beforeCount &+ afterCount)
                    } else {
                        let afterIndex = afterIndexOfBefore[beforeIndex &- prefix]
                        if afterIndex >= 0 { changedIndexes.append(Int(afterIndex)) }
                    }
                }
                changedIndexes.sort()
            } else {
                var nextInserted = 0
                for index in 0..<afterCount {
                    if nextInserted < insertedIndexes.count && insertedIndexes[nextInserted] == index {
                        nextInserted &+= 1
                    } else if changed.contains(after[index]) {
                        changedIndexes.append(index)
                    }
                }
            }
        }

        return .success(
            IndexDiff(
                beforeCount: beforeCount,
                afterCount: afterCount,
                removedIndexes: removedIndexes,
                insertedIndexes: insertedIndexes,
                moves: moves,
                changedIndexes: changedIndexes
            )
        )
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
