/// Reference computations, written for obviousness rather than speed, that the diff is checked
/// against.
enum Oracle {
    /// The length of a longest strictly increasing subsequence, by the O(k²) dynamic programme.
    static func longestIncreasingLengthQuadratic(_ values: [Int]) -> Int {
        var lengthEndingAt = [Int](repeating: 1, count: values.count)
        for k in values.indices {
            for j in 0..<k where values[j] < values[k] {
                lengthEndingAt[k] = max(lengthEndingAt[k], lengthEndingAt[j] + 1)
            }
        }
        return lengthEndingAt.max() ?? 0
    }

    /// The length of a longest strictly increasing subsequence, by patience sorting (length only), for
    /// inputs too large for the quadratic oracle.
    static func longestIncreasingLength(_ values: [Int]) -> Int {
        var tails: [Int] = []
        for value in values {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if tails[middle] < value { low = middle + 1 } else { high = middle }
            }
            if low == tails.count { tails.append(value) } else { tails[low] = value }
        }
        return tails.count
    }

    /// The positions of the longest strictly increasing subsequence that IndexDiff documents as its
    /// tie-break, by enumerating every subset: among the longest, the greatest when positions are compared
    /// from the last backwards. Only for short inputs (2^k subsets).
    static func tieBrokenLongestIncreasingPositions(_ values: [Int]) -> [Int] {
        precondition(values.count <= 16)
        var best: [Int] = []
        for subset in 0..<(1 << values.count) {
            let positions = values.indices.filter { subset & (1 << $0) != 0 }
            guard zip(positions, positions.dropFirst()).allSatisfy({ values[$0] < values[$1] }) else { continue }
            if positions.count > best.count
                || (positions.count == best.count
                    && best.reversed().lexicographicallyPrecedes(positions.reversed()))
            {
                best = positions
            }
        }
        return best
    }
}
