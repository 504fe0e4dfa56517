/// The diff algorithm, generic over the identifier table so that each identifier type gets the fastest
/// table for it.
///
/// 1. Every identifier of `before` goes into the table with its index (this finds duplicates there).
/// 2. The common prefix and suffix of the two lists are unmoved and need no more work.
/// 3. One pass over the rest of `after` finds each identifier's index in `before`: first by guessing
///    that it follows the previous match (true in runs of unchanged order, and a guess costs one
///    comparison), else through the table. Identifiers not in `before` are inserted; the table and an
///    after-index per before-index catch duplicates in `after`.
/// 4. The before-indexes of the matched identifiers, in after order, go through a longest increasing
///    subsequence (patience sorting); matched identifiers outside it are the moves.
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
        precondition(
            beforeCount < Int(Int32.max) && afterCount < Int(Int32.max),
            "IndexDiff: lists must hold fewer than 2^31 - 1 identifiers"
        )

        // 1. Index `before`.
        for index in 0..<beforeCount {
            guard table.insertBefore(before[index], at: Int32(truncatingIfNeeded: index)) else {
                return .failure(.duplicateIdentifier(side: .before, index: index))
            }
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

        // 3. Match the middle of `after` against `before`.
        // `afterIndexOfBefore[i - prefix]`: where `before[i]` went in `after`, or -1.
        let afterIndexOfBefore = UnsafeMutableBufferPointer<Int32>.allocate(capacity: middleBeforeCount)
        afterIndexOfBefore.initialize(repeating: -1)
        defer { afterIndexOfBefore.deallocate() }
        // `sequence[0..<matchedCount]`: the before-indexes of the matched identifiers, in after order.
        let sequence = UnsafeMutableBufferPointer<Int32>.allocate(
            capacity: min(middleBeforeCount, afterEnd &- prefix)
        )
        defer { sequence.deallocate() }
        var matchedCount = 0
        var insertedIndexes: [Int] = []
        var guess = prefix
        var afterIndex = prefix
        while afterIndex < afterEnd {
            let identifier = after[afterIndex]
            let beforeIndex: Int
            if guess < beforeEnd && before[guess] == identifier {
                beforeIndex = guess
            } else {
                let found = table.matchAfter(identifier)
                if found == PositionTableResult.inserted {
                    insertedIndexes.append(afterIndex)
                    afterIndex &+= 1
                    continue
                }
                // Seen in `after` already, or the twin of an identifier in the trimmed prefix or suffix.
                guard found >= 0, Int(found) >= prefix, Int(found) < beforeEnd else {
                    return .failure(.duplicateIdentifier(side: .after, index: firstDuplicate(in: after)))
                }
                beforeIndex = Int(found)
            }
            guard afterIndexOfBefore[beforeIndex &- prefix] < 0 else {
                return .failure(.duplicateIdentifier(side: .after, index: firstDuplicate(in: after)))
            }
            afterIndexOfBefore[beforeIndex &- prefix] = Int32(truncatingIfNeeded: afterIndex)
            sequence[matchedCount] = Int32(truncatingIfNeeded: beforeIndex)
            matchedCount &+= 1
            guess = beforeIndex &+ 1
            afterIndex &+= 1
        }

        // Removed: the middle of `before` that was not matched.
        var removedIndexes: [Int] = []
        removedIndexes.reserveCapacity(middleBeforeCount &- matchedCount)
        if matchedCount < middleBeforeCount {
            for offset in 0..<middleBeforeCount where afterIndexOfBefore[offset] < 0 {
                removedIndexes.append(prefix &+ offset)
            }
        }

        // 4. Moves: matched identifiers outside a longest increasing subsequence.
        let matched = UnsafeMutableBufferPointer(rebasing: sequence[0..<matchedCount])
        let unmovedCount = markLongestIncreasingSubsequence(in: matched)
        var moves: [IndexDiff.Move] = []
        moves.reserveCapacity(matchedCount &- unmovedCount)
        if unmovedCount < matchedCount {
            for value in matched where value >= 0 {  // members were marked negative
                let from = Int(value)
                moves.append(IndexDiff.Move(from: from, to: Int(afterIndexOfBefore[from &- prefix])))
            }
        }

        // 5. Changed.
        var changedIndexes: [Int] = []
        if !changed.isEmpty {
            if changed.count <= afterCount / 4 {
                changedIndexes.reserveCapacity(changed.count)
                for identifier in changed {
                    let found = table.beforeIndex(of: identifier)
                    guard found >= 0 else { continue }
                    let beforeIndex = Int(found)
                    if beforeIndex < prefix {
                        changedIndexes.append(beforeIndex)
                    } else if beforeIndex >= beforeEnd {
                        changedIndexes.append(beforeIndex &- beforeCount &+ afterCount)
                    } else {
                        let target = afterIndexOfBefore[beforeIndex &- prefix]
                        if target >= 0 { changedIndexes.append(Int(target)) }
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
