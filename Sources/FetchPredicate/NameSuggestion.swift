/// The "did you mean" of error messages: the known name closest to a mistyped one.
enum NameSuggestion {
    /// The candidate closest to `name`: one equal but for case, else the nearest by edit distance
    /// (insertions, deletions, substitutions and swaps of two neighbours, case ignored) when it is at most 2
    /// and less than half of `name`'s length; nil when nothing is that close.
    ///
    /// - Complexity: O(*k* · *m* · *n*) for *k* candidates of length *n* and a name of length *m*.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let lowered = name.lowercased()
        if let match = candidates.first(where: { $0.lowercased() == lowered }) { return match }
        let limit = min(2, (lowered.count - 1) / 2)
        var best: (name: String, distance: Int)?
        for candidate in candidates {
            let distance = editDistance(Array(lowered), Array(candidate.lowercased()))
            if distance <= limit, distance < best?.distance ?? .max { best = (candidate, distance) }
        }
        return best?.name
    }

    /// The optimal-string-alignment distance between two strings of characters.
    static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
