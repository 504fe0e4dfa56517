/// Finds a longest strictly increasing subsequence of distinct values fed one at a time (patience
/// sorting), then tells which values belong to it.
///
/// Values must be distinct and in `0..<valueCount`. Piles are kept as their top values only; each value
/// remembers the top of the previous pile when it was placed (its *link*), indexed by value, so memory
/// is 4 bytes per possible value plus 4 per pile.
///
/// **Tie-break.** Among all longest increasing subsequences, the one chosen is the greatest when
/// positions in the input are compared from the last element backwards: each element is the latest
/// possible. That is what backtracking from the top of the last pile gives: a value's link is the top of
/// the previous pile when it was placed, i.e. the latest element of the previous length before it, and
/// that element is always smaller than it.
///
/// - Complexity: amortised O(1) per value that extends the longest subsequence so far, or that follows
///   the previous value by exactly 1 (a run of unchanged order); O(log *L*) for the others, with *L* the
///   result's length. ``finish()`` is O(*L*).
@usableFromInline
struct IncreasingSubsequence: ~Copyable {
    /// `links[value]`: the value before `value` in the subsequence ending at it, or -1;
    /// ``member`` once ``finish()`` found `value` in the result. Only written for values fed.
    @usableFromInline let links: UnsafeMutableBufferPointer<Int32>
    /// `tops[pile]`: the top (smallest value ending an increasing subsequence of length `pile + 1`).
    @usableFromInline let tops: UnsafeMutableBufferPointer<Int32>
    @usableFromInline var pileCount: Int
    @usableFromInline var lastValue: Int32
    @usableFromInline var lastPile: Int

    /// The link value of members, after ``finish()``.
    @inlinable static var member: Int32 { .min }

    /// Prepares for at most `maximumCount` distinct values in `0..<valueCount`.
    @inlinable
    init(valueCount: Int, maximumCount: Int) {
        links = .allocate(capacity: valueCount)
        tops = .allocate(capacity: maximumCount)
        pileCount = 0
        lastValue = -2
        lastPile = 0
    }

    @inlinable
    deinit {
        links.deallocate()
        tops.deallocate()
    }

    /// Places `value` (not fed before) on its pile.
    @inlinable
    mutating func append(_ value: Int32) {
        let pile: Int
        if value == lastValue &+ 1 {
            // The previous value's pile `p` has top `value - 1`; the next pile's top is greater and not
            // `value` (values are distinct), so `value` belongs on pile `p + 1`: runs of consecutive
            // values, the bulk of an edit, cost O(1) each.
            pile = lastPile &+ 1
        } else if pileCount == 0 || tops[pileCount &- 1] < value {
            pile = pileCount
        } else {
            // The first pile whose top is greater than `value`; the last pile's is.
            var low = 0
            var high = pileCount &- 1
            while low < high {
                let middle = (low &+ high) &>> 1
                if tops[middle] < value { low = middle &+ 1 } else { high = middle }
            }
            pile = low
        }
        links[Int(value)] = pile == 0 ? -1 : tops[pile &- 1]
        tops[pile] = value
        if pile == pileCount { pileCount &+= 1 }
        lastValue = value
        lastPile = pile
    }

    /// Marks the members of the chosen longest increasing subsequence and returns its length. Call once,
    /// after the last ``append(_:)``.
    @inlinable
    mutating func finish() -> Int {
        guard pileCount > 0 else { return 0 }
        var value = Int(tops[pileCount &- 1])
        while value >= 0 {
            let previous = links[value]
            links[value] = Self.member
            value = Int(previous)
        }
        return pileCount
    }

    /// Whether `value`, which was fed, is in the subsequence; valid after ``finish()``.
    @inlinable
    func isMember(_ value: Int) -> Bool {
        links[value] == Self.member
    }
}
