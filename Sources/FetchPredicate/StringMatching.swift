import Foundation
public import GRDB

/// The custom SQL functions that compiled predicates call for `CONTAINS`, `BEGINSWITH`, `ENDSWITH` and
/// `LIKE`; add them to every connection that runs compiled predicates.
///
/// ```swift
/// var configuration = Configuration()
/// configuration.prepareDatabase { db in
///     PredicateFunctions.register(in: db)
/// }
/// let dbPool = try DatabasePool(path: path, configuration: configuration)
/// ```
///
/// Each function takes `(value, pattern, options)` and returns 1 or 0 (0 when the value is NULL or not
/// text). They run the same Swift code as in-memory evaluation, so SQL and memory agree exactly (see
/// ``StringOptions`` for the matching rules). They are deterministic, so SQLite may factor them out.
public enum PredicateFunctions {
    /// The SQL function names, as they appear in compiled SQL.
    static let names: [(StringOperator, String)] = [
        (.contains, "fetchpredicate_contains"),
        (.beginsWith, "fetchpredicate_beginswith"),
        (.endsWith, "fetchpredicate_endswith"),
        (.like, "fetchpredicate_like"),
    ]

    /// The functions: `fetchpredicate_contains`, `fetchpredicate_beginswith`, `fetchpredicate_endswith`
    /// and `fetchpredicate_like`, each with three arguments.
    public static let all: [DatabaseFunction] = names.map { op, name in
        DatabaseFunction(name, argumentCount: 3, pure: true) { arguments in
            guard case .string(let value) = arguments[0].storage,
                case .string(let pattern) = arguments[1].storage,
                case .int64(let options) = arguments[2].storage
            else { return Int64(0) }
            let matches = StringMatcher.matches(
                value, op, pattern, options: StringOptions(rawValue: Int(truncatingIfNeeded: options)))
            return Int64(matches ? 1 : 0)
        }
    }

    /// Adds the functions to a connection. Call it for every connection, e.g. from
    /// `Configuration.prepareDatabase`.
    public static func register(in db: Database) {
        for function in all {
            db.add(function: function)
        }
    }

    /// The SQL function name for a string operator.
    static func name(for op: StringOperator) -> String {
        names.first { $0.0 == op }!.1
    }
}

/// The semantics of the string operators, shared by SQL functions and in-memory evaluation.
enum StringMatcher {
    /// Whether `value` matches `pattern` under a string operator and options.
    ///
    /// Works on the UTF-8 bytes of the folded strings, cut at their first U+0000 (SQL functions receive C
    /// strings from GRDB, so both paths see the same text).
    ///
    /// - Complexity: O(n·m) in the lengths of the value and the pattern in the worst case; O(n + m) to
    ///   fold them first when there are options.
    static func matches(_ value: String, _ op: StringOperator, _ pattern: String, options: StringOptions) -> Bool {
        var value = fold(value, options: options)
        var pattern = fold(pattern, options: options)
        return value.withUTF8 { valueBytes in
            pattern.withUTF8 { patternBytes in
                let value = beforeNUL(valueBytes)
                let pattern = beforeNUL(patternBytes)
                switch op {
                case .contains: return contains(value, pattern)
                case .beginsWith: return value.starts(with: pattern)
                case .endsWith:
                    return value.count >= pattern.count && value.suffix(pattern.count).elementsEqual(pattern)
                case .like: return like(value, pattern)
                }
            }
        }
    }

    /// The canonical form under options: unchanged without options; otherwise NFD, Foundation folding
    /// (case and/or diacritics, no locale), NFC.
    static func fold(_ string: String, options: StringOptions) -> String {
        var folding: String.CompareOptions = []
        if options.contains(.caseInsensitive) { folding.insert(.caseInsensitive) }
        if options.contains(.diacriticInsensitive) { folding.insert(.diacriticInsensitive) }
        if folding.isEmpty { return string }
        if string.utf8.allSatisfy({ $0 < 0x80 }) {
            // ASCII has no diacritics and is its own NFD and NFC; its case folding is lowercasing. This is the
            // common case (file names), and much faster than Foundation's Unicode path.
            guard options.contains(.caseInsensitive) else { return string }
            return String(decoding: string.utf8.map { $0 >= 0x41 && $0 <= 0x5A ? $0 + 0x20 : $0 }, as: UTF8.self)
        }
        return unicodeFold(string, folding)
    }

    /// The Unicode path of ``fold(_:options:)``: NFD, Foundation folding, NFC.
    static func unicodeFold(_ string: String, _ folding: String.CompareOptions) -> String {
        string.decomposedStringWithCanonicalMapping
            .folding(options: folding, locale: nil)
            .precomposedStringWithCanonicalMapping
    }

    private static func beforeNUL(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard let nul = bytes.firstIndex(of: 0) else { return bytes }
        return UnsafeBufferPointer(rebasing: bytes[..<nul])
    }

    /// Whether `needle` occurs in `haystack`. Byte-wise search is scalar-wise search, as UTF-8 is
    /// self-synchronising.
    private static func contains(_ haystack: UnsafeBufferPointer<UInt8>, _ needle: UnsafeBufferPointer<UInt8>) -> Bool {
        if needle.isEmpty { return true }
        if needle.count > haystack.count { return false }
        let first = needle[0]
        var start = 0
        while start <= haystack.count - needle.count {
            if haystack[start] == first {
                var offset = 1
                while offset < needle.count && haystack[start + offset] == needle[offset] { offset += 1 }
                if offset == needle.count { return true }
            }
            start += 1
        }
        return false
    }

    /// The length of the UTF-8 sequence that starts at `index` (at least 1).
    private static func scalarLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int {
        var end = index + 1
        while end < bytes.count && bytes[end] & 0xC0 == 0x80 { end += 1 }
        return end - index
    }

    /// Wildcard matching of the whole value: `*` matches any run of scalars, `?` exactly one scalar.
    ///
    /// Greedy with a single backtracking point, which is exact for these two wildcards. Works on UTF-8 bytes,
    /// keeping every value position on a scalar boundary: `?` and backtracking step over whole sequences,
    /// and a literal scalar of the pattern matches only a whole, equal scalar of the value.
    private static func like(_ value: UnsafeBufferPointer<UInt8>, _ pattern: UnsafeBufferPointer<UInt8>) -> Bool {
        let star = UInt8(ascii: "*")
        let question = UInt8(ascii: "?")
        var v = 0
        var p = 0
        var starPattern: Int?
        var starValue = 0
        while v < value.count {
            if p < pattern.count && pattern[p] == star {
                starPattern = p
                starValue = v
                p += 1
            } else if p < pattern.count && pattern[p] == question {
                v += scalarLength(value, at: v)
                p += 1
            } else if p < pattern.count && literalMatches(value, v, pattern, p) {
                let length = scalarLength(pattern, at: p)
                v += length
                p += length
            } else if let starPattern {
                p = starPattern + 1
                starValue += scalarLength(value, at: starValue)
                v = starValue
            } else {
                return false
            }
        }
        while p < pattern.count && pattern[p] == star { p += 1 }
        return p == pattern.count
    }

    /// Whether the pattern's scalar at `p` equals the value's scalar at `v`.
    private static func literalMatches(
        _ value: UnsafeBufferPointer<UInt8>, _ v: Int, _ pattern: UnsafeBufferPointer<UInt8>, _ p: Int
    ) -> Bool {
        let length = scalarLength(pattern, at: p)
        guard scalarLength(value, at: v) == length else { return false }
        for offset in 0..<length where value[v + offset] != pattern[p + offset] { return false }
        return true
    }
}
