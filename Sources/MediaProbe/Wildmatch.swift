/// Glob matching with git's `wildmatch` semantics, on UTF-8 bytes.
///
/// - `?` matches one byte other than `/`; `*` any run of bytes without `/`.
/// - `**` between slashes (or at either end of the pattern) matches across directories: `**/x` matches `x`
///   at any depth, `x/**` everything inside `x`, `a/**/b` matches `a/b`, `a/x/b`, `a/x/y/b`. Any other `**`
///   is a plain `*`.
/// - `[abc]`, `[a-z]`, `[!a]`/`[^a]`, `[]a]` (a leading `]` is literal), `[[:alpha:]]` and the other POSIX
///   classes; a class never matches `/`. An unterminated or invalid class makes the pattern match nothing.
/// - `\x` matches `x` literally; a trailing lone `\` matches nothing.
///
/// Matching is memoised over (pattern position, text position), so it is O(pattern × text) in time.
///
/// Before that, a text is checked against the bytes the pattern's first and last elements accept (worked
/// out once per pattern): most names fail a pattern there, for the price of two table look-ups.
struct Wildmatch: Sendable, Hashable {
    let pattern: [UInt8]
    /// The bytes a matching text can start with, and end with; nil when any text may match there (the
    /// pattern starts, or ends, with a `*`, or ends with a slash that `**/` may skip).
    private let first: ByteSet?
    private let last: ByteSet?

    init(_ pattern: some StringProtocol) { self.init(bytes: Array(pattern.utf8)) }

    init(bytes: [UInt8]) {
        pattern = bytes
        (first, last) = Self.ends(of: bytes)
    }

    func matches(_ text: some StringProtocol) -> Bool { matches(bytes: Array(text.utf8)) }

    func matches(bytes text: [UInt8]) -> Bool {
        if let first, !(text.first.map(first.contains) ?? false) { return false }
        if let last, !(text.last.map(last.contains) ?? false) { return false }
        return matchesExhaustively(bytes: text)
    }

    /// Whether a non-empty text whose first and last bytes are these may match: false means it cannot.
    func admits(first byte: UInt8, last lastByte: UInt8) -> Bool {
        (first?.contains(byte) ?? true) && (last?.contains(lastByte) ?? true)
    }

    /// The match itself, without the first- and last-byte check (which never changes its answer).
    func matchesExhaustively(bytes text: [UInt8]) -> Bool {
        var memo = [UInt8](repeating: 0, count: (pattern.count + 1) * (text.count + 1))  // 0 unknown, 1 no, 2 yes
        var solver = Solver(pattern: pattern, text: text, memo: memo)
        memo = []
        return solver.match(0, 0)
    }

    /// What the first and the last element of `pattern` accept (see ``first``). A non-`*` element matches
    /// exactly one byte and none can be skipped — but the slash of a `**/`, which only a `**` precedes — so a
    /// pattern that does not start with `*` consumes the text's first byte with its first element, and one
    /// that does not end with `*` (or with a slash) its last byte with its last element. A malformed element
    /// (an unterminated class, a trailing lone backslash) makes the pattern match nothing: an empty set.
    private static func ends(of pattern: [UInt8]) -> (ByteSet?, ByteSet?) {
        let solver = Solver(pattern: pattern, text: [], memo: [])
        var elements: [ByteSet?] = []  // nil: a star
        var index = 0
        while index < pattern.count {
            var set = ByteSet()
            switch pattern[index] {
            case Solver.star:
                elements.append(nil)
                index += 1
                continue
            case UInt8(ascii: "?"):
                set = ByteSet(all: true)
                set.remove(UInt8(ascii: "/"))
                index += 1
            case UInt8(ascii: "["):
                guard let (end, _) = solver.matchClass(at: index, byte: 0) else { return (ByteSet(), ByteSet()) }
                for byte in 0...UInt8.max where byte != UInt8(ascii: "/") && solver.matchClass(at: index, byte: byte)!.1 {
                    set.insert(byte)
                }
                index = end
            case Solver.backslash:
                guard index + 1 < pattern.count else { return (ByteSet(), ByteSet()) }
                set.insert(pattern[index + 1])
                index += 2
            default:
                set.insert(pattern[index])
                index += 1
            }
            elements.append(set)
        }
        let endsWithSlash = elements.last??.isOnly(UInt8(ascii: "/")) ?? false
        return (elements.first ?? nil, endsWithSlash ? nil : elements.last ?? nil)
    }

    private struct Solver {
        let pattern: [UInt8]
        let text: [UInt8]
        var memo: [UInt8]

        static let slash = UInt8(ascii: "/")
        static let star = UInt8(ascii: "*")
        static let backslash = UInt8(ascii: "\\")

        mutating func match(_ pi: Int, _ ti: Int) -> Bool {
            let key = pi * (text.count + 1) + ti
            if memo[key] != 0 { return memo[key] == 2 }
            let result = compute(pi, ti)
            memo[key] = result ? 2 : 1
            return result
        }

        private mutating func compute(_ pi: Int, _ ti: Int) -> Bool {
            guard pi < pattern.count else { return ti == text.count }
            let p = pattern[pi]
            switch p {
            case Self.star:
                var after = pi
                while after < pattern.count, pattern[after] == Self.star { after += 1 }
                let startsComponent = pi == 0 || pattern[pi - 1] == Self.slash
                let endsComponent = after == pattern.count || pattern[after] == Self.slash
                    || (pattern[after] == Self.backslash && after + 1 < pattern.count && pattern[after + 1] == Self.slash)
                if after - pi >= 2, startsComponent, endsComponent {
                    if after == pattern.count { return true }  // trailing "**": everything below
                    let slashAt = pattern[after] == Self.slash ? after : after + 1
                    // "**/": zero directories, or any run ending just before a slash.
                    if match(slashAt + 1, ti) { return true }
                    for k in ti..<text.count where text[k] == Self.slash {
                        if match(slashAt, k) { return true }
                    }
                    return false
                }
                var k = ti
                while true {
                    if match(after, k) { return true }
                    if k == text.count || text[k] == Self.slash { return false }
                    k += 1
                }
            case UInt8(ascii: "?"):
                return ti < text.count && text[ti] != Self.slash && match(pi + 1, ti + 1)
            case UInt8(ascii: "["):
                guard ti < text.count, let (end, matched) = matchClass(at: pi, byte: text[ti]) else { return false }
                return matched && text[ti] != Self.slash && match(end, ti + 1)
            case Self.backslash:
                guard pi + 1 < pattern.count else { return false }
                return ti < text.count && text[ti] == pattern[pi + 1] && match(pi + 2, ti + 1)
            default:
                return ti < text.count && text[ti] == p && match(pi + 1, ti + 1)
            }
        }

        /// Parses the bracket expression starting at `start` and tests `byte` against it. Returns the pattern
        /// index after the closing `]` and whether it matched; nil when the expression is malformed.
        func matchClass(at start: Int, byte: UInt8) -> (Int, Bool)? {
            var i = start + 1
            var negated = false
            if i < pattern.count, pattern[i] == UInt8(ascii: "!") || pattern[i] == UInt8(ascii: "^") {
                negated = true
                i += 1
            }
            var matched = false
            var first = true
            while i < pattern.count {
                var c = pattern[i]
                if c == UInt8(ascii: "]"), !first { return (i + 1, matched != negated) }
                first = false
                if c == UInt8(ascii: "["), i + 1 < pattern.count, pattern[i + 1] == UInt8(ascii: ":") {
                    // [:name:]
                    guard let close = findClassEnd(from: i + 2) else {
                        // Not a class name: a literal '['.
                        if byte == c { matched = true }
                        i += 1
                        continue
                    }
                    let name = String(decoding: pattern[(i + 2)..<close], as: UTF8.self)
                    guard let test = Self.posixClass(name) else { return nil }
                    if test(byte) { matched = true }
                    i = close + 2
                    continue
                }
                if c == Self.backslash {
                    i += 1
                    guard i < pattern.count else { return nil }
                    c = pattern[i]
                }
                // A range c-d (a '-' before the closing ']' is literal).
                if i + 2 < pattern.count, pattern[i + 1] == UInt8(ascii: "-"), pattern[i + 2] != UInt8(ascii: "]") {
                    var upper = pattern[i + 2]
                    var next = i + 3
                    if upper == Self.backslash {
                        guard i + 3 < pattern.count else { return nil }
                        upper = pattern[i + 3]
                        next = i + 4
                    }
                    if byte >= c && byte <= upper { matched = true }
                    i = next
                    continue
                }
                if byte == c { matched = true }
                i += 1
            }
            return nil  // no closing ']'
        }

        /// The index of the ':' of a ":]" after `from`, if it closes a class name.
        private func findClassEnd(from: Int) -> Int? {
            var j = from
            while j + 1 < pattern.count {
                if pattern[j] == UInt8(ascii: ":"), pattern[j + 1] == UInt8(ascii: "]") { return j }
                if pattern[j] == UInt8(ascii: "]") { return nil }
                j += 1
            }
            return nil
        }

        private static func posixClass(_ name: String) -> ((UInt8) -> Bool)? {
            func inRange(_ b: UInt8, _ lo: Character, _ hi: Character) -> Bool {
                b >= lo.asciiValue! && b <= hi.asciiValue!
            }
            switch name {
            case "alnum": return { inRange($0, "a", "z") || inRange($0, "A", "Z") || inRange($0, "0", "9") }
            case "alpha": return { inRange($0, "a", "z") || inRange($0, "A", "Z") }
            case "blank": return { $0 == 0x20 || $0 == 0x09 }
            case "cntrl": return { $0 < 0x20 || $0 == 0x7F }
            case "digit": return { inRange($0, "0", "9") }
            case "graph": return { $0 > 0x20 && $0 < 0x7F }
            case "lower": return { inRange($0, "a", "z") }
            case "print": return { $0 >= 0x20 && $0 < 0x7F }
            case "punct": return {
                ($0 > 0x20 && $0 < 0x7F) && !(inRange($0, "a", "z") || inRange($0, "A", "Z") || inRange($0, "0", "9"))
            }
            case "space": return { $0 == 0x20 || (0x09...0x0D).contains($0) }
            case "upper": return { inRange($0, "A", "Z") }
            case "xdigit": return { inRange($0, "0", "9") || inRange($0, "a", "f") || inRange($0, "A", "F") }
            default: return nil
            }
        }
    }
}

/// A set of bytes: 256 bits.
struct ByteSet: Sendable, Hashable {
    private var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    init(all: Bool = false) {
        if all { words = (.max, .max, .max, .max) }
    }

    func contains(_ byte: UInt8) -> Bool {
        let bit = UInt64(1) << UInt64(byte & 63)
        switch byte >> 6 {
        case 0: return words.0 & bit != 0
        case 1: return words.1 & bit != 0
        case 2: return words.2 & bit != 0
        default: return words.3 & bit != 0
        }
    }

    mutating func insert(_ byte: UInt8) { update(byte, true) }
    mutating func remove(_ byte: UInt8) { update(byte, false) }

    /// Whether `byte` is the set's only member.
    func isOnly(_ byte: UInt8) -> Bool {
        var only = ByteSet()
        only.insert(byte)
        return self == only
    }

    private mutating func update(_ byte: UInt8, _ member: Bool) {
        let bit = UInt64(1) << UInt64(byte & 63)
        func apply(_ word: inout UInt64) { word = member ? word | bit : word & ~bit }
        switch byte >> 6 {
        case 0: apply(&words.0)
        case 1: apply(&words.1)
        case 2: apply(&words.2)
        default: apply(&words.3)
        }
    }

    static func == (a: ByteSet, b: ByteSet) -> Bool {
        a.words.0 == b.words.0 && a.words.1 == b.words.1 && a.words.2 == b.words.2 && a.words.3 == b.words.3
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(words.0)
        hasher.combine(words.1)
        hasher.combine(words.2)
        hasher.combine(words.3)
    }
}
