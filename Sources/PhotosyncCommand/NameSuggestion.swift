/// The "did you mean" of usage errors: the known name closest to a mistyped one.
enum NameSuggestion {
    /// The candidate closest to `name`: one equal but for case, else the nearest by edit distance (case
    /// ignored) when it is at most 2 and less than half of `name`'s length; nil when nothing is that close.
    static func closest(to name: String, among candidates: [String]) -> String? {
        let lowered = name.lowercased()
        if let match = candidates.first(where: { $0.lowercased() == lowered }) { return match }
        let limit = min(2, (lowered.count - 1) / 2)
        let scored = candidates.map { ($0, distance(Array(lowered), Array($0.lowercased()))) }
        guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= limit else { return nil }
        return best.0
    }

    /// Levenshtein distance.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1]
            for (j, y) in b.enumerated() {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (x == y ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}
