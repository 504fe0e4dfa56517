extension IndexDiff {
    /// Applies the difference to an array the way a UIKit batch update does, and returns the result;
    /// for a difference computed from `before` to `after`, the result equals `after`.
    ///
    /// Steps: remove the elements at ``removedIndexes`` and at every move's `from` (in descending
    /// order), then insert, in ascending order of index, `after[i]` at each of ``insertedIndexes`` and
    /// `before[from]` at each move's `to`. Elements of `after` are read only at inserted indexes; this is
    /// how a client replays the difference on its own copy of the data.
    ///
    /// - Parameters:
    ///   - before: An array of ``beforeCount`` elements, the objects of the list before the change.
    ///   - after: An array of ``afterCount`` elements, the objects of the list after the change.
    /// - Precondition: The counts match and the difference is well formed (as ``compute(from:to:changed:)``
    ///   makes it).
    /// - Complexity: O(*n* + *m*) for *n* = `before.count` and *m* = `after.count`.
    public func applied<T>(to before: [T], after: [T]) -> [T] {
        precondition(before.count == beforeCount, "IndexDiff.applied: before has \(before.count) elements, not \(beforeCount)")
        precondition(after.count == afterCount, "IndexDiff.applied: after has \(after.count) elements, not \(afterCount)")

        // Removal: equivalent to removing the marked indexes one by one in descending order.
        var isTakenOut = [Bool](repeating: false, count: beforeCount)
        for index in removedIndexes { isTakenOut[index] = true }
        for move in moves { isTakenOut[move.from] = true }
        var remaining: [T] = []
        remaining.reserveCapacity(beforeCount)
        for index in 0..<beforeCount where !isTakenOut[index] { remaining.append(before[index]) }

        // Insertion in ascending order of index: each inserted element ends up at its own index (later
        // insertions land after it), and the remaining elements fill the other places in order.
        let resultCount = remaining.count + insertedIndexes.count + moves.count
        var result: [T] = []
        result.reserveCapacity(resultCount)
        var nextInserted = 0
        var nextMove = 0
        var nextRemaining = 0
        while result.count < resultCount {
            let index = result.count
            if nextInserted < insertedIndexes.count && insertedIndexes[nextInserted] == index {
                result.append(after[index])
                nextInserted += 1
            } else if nextMove < moves.count && moves[nextMove].to == index {
                result.append(before[moves[nextMove].from])
                nextMove += 1
            } else {
                precondition(nextRemaining < remaining.count, "IndexDiff.applied: an insertion index is out of range")
                result.append(remaining[nextRemaining])
                nextRemaining += 1
            }
        }
        precondition(
            nextInserted == insertedIndexes.count && nextMove == moves.count,
            "IndexDiff.applied: insertion indexes are out of range, not ascending or not distinct"
        )
        return result
    }
}
