extension DiffEngine {
    /// Finds a longest strictly increasing subsequence of `values` by patience sorting, and marks its
    /// elements in place by replacing each member `x` with `~x` (a negative number: `values` must hold
    /// non-negative, distinct numbers). Returns the subsequence's length.
    ///
    /// Tie-break: among all longest increasing subsequences, the one marked is the greatest when their
    /// positions are compared from the last element backwards (each element is the latest possible).
    /// That is what backtracking from the top of the last pile yields: an element's link is the top of
    /// the previous pile when it was placed, i.e. the latest element of the previous length before it,
    /// which is always smaller than it.
    ///
    /// - Complexity: O(*k* log *L*) time for *k* values and a result of length *L*, O(*k*) extra memory
    ///   in two allocations. An element that extends the longest subsequence found so far costs O(1), so
    ///   a nearly sorted input takes nearly linear time.
    @inlinable
    static func markLongestIncreasingSubsequence(in values: UnsafeMutableBufferPointer<Int32>) -> Int {
        let count = values.count
        if count == 0 { return 0 }
        // `tails[t]`: position of the top of pile t (the last element placed there, the smallest value
        // ending an increasing subsequence of length t + 1); `tailValues[t]`: its value, kept apart for
        // a cache-friendly binary search; `links[k]`: position of the element before `k` in the
        // subsequence ending at `k`, or -1.
        let links = UnsafeMutableBufferPointer<Int32>.allocate(capacity: count)
        defer { links.deallocate() }
        let piles = UnsafeMutableBufferPointer<Int32>.allocate(capacity: 2 * count)
        defer { piles.deallocate() }
        let tails = UnsafeMutableBufferPointer(rebasing: piles[0..<count])
        let tailValues = UnsafeMutableBufferPointer(rebasing: piles[count..<(2 * count)])

        var length = 0
        for k in 0..<count {
            let value = values[k]
            let pile: Int
            if length == 0 || tailValues[length &- 1] < value {
                pile = length  // extends the longest subsequence: the common, O(1) case
                length &+= 1
            } else {
                // First pile whose top is greater than `value` (values are distinct); the last pile's
                // top is, so the search stays inside 0..<length.
                var low = 0
                var high = length &- 1
                while low < high {
                    let middle = (low &+ high) &>> 1
                    if tailValues[middle] < value { low = middle &+ 1 } else { high = middle }
                }
                pile = low
            }
            links[k] = pile == 0 ? -1 : tails[pile &- 1]
            tails[pile] = Int32(truncatingIfNeeded: k)
            tailValues[pile] = value
        }

        var member = Int(tails[length &- 1])
        while member >= 0 {
            values[member] = ~values[member]
            member = Int(links[member])
        }
        return length
    }
}
