import SeededRandom
import Foundation
import GRDB
import Testing

@testable import FetchPredicate

@Suite("String operators: exact, Unicode-correct, identical in SQL and in memory")
struct StringMatchingTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let value: String
        let op: StringOperator
        let pattern: String
        let options: StringOptions
        let expected: Bool
        var testDescription: String { "\(value.debugDescription) \(op)\(options) \(pattern.debugDescription)" }
        init(_ value: String, _ op: StringOperator, _ options: StringOptions, _ pattern: String, _ expected: Bool) {
            self.value = value
            self.op = op
            self.pattern = pattern
            self.options = options
            self.expected = expected
        }
    }

    static let c: StringOptions = .caseInsensitive
    static let d: StringOptions = .diacriticInsensitive
    static let cd: StringOptions = [.caseInsensitive, .diacriticInsensitive]

    static let cases: [Case] = [
        // Exact: binary, no normalisation.
        Case("IMG_0001.HEIC", .contains, [], "0001", true),
        Case("IMG_0001.HEIC", .contains, [], "img", false),
        Case("abc", .contains, [], "", true),
        Case("", .contains, [], "", true),
        Case("", .contains, [], "a", false),
        Case("Été", .contains, [], "é", true),
        Case("Été", .contains, [], "É", true),
        Case("ete", .contains, [], "é", false),
        Case("e\u{301}te\u{301}", .contains, [], "é", false),
        Case("e\u{301}te\u{301}", .contains, [], "e", true),
        Case("a😀b", .contains, [], "😀", true),
        Case("a😀b", .beginsWith, [], "a😀", true),
        Case("a😀b", .endsWith, [], "😀b", true),
        Case("a😀b", .endsWith, [], "b", true),
        Case("abc", .beginsWith, [], "abcd", false),
        Case("abc", .endsWith, [], "", true),
        // [c]: full Unicode case folding, canonical equivalence.
        Case("IMG_0001.HEIC", .contains, c, "img", true),
        Case("Été", .contains, c, "ÉTÉ", true),
        Case("Été", .contains, c, "ete", false),
        Case("e\u{301}te\u{301}", .contains, c, "É", true),
        Case("straße", .contains, c, "SS", true),
        Case("STRASSE", .contains, c, "ß", true),
        Case("straße", .endsWith, c, "SSE", true),
        Case("ﬁle", .beginsWith, c, "fi", true),
        Case("Zoë", .endsWith, c, "Ë", true),
        Case("Zoe\u{308}", .endsWith, c, "ë", true),
        // [d]: diacritics removed, case kept.
        Case("Été", .contains, d, "Ete", true),
        Case("Été", .contains, d, "ete", false),
        Case("e\u{301}te\u{301}", .beginsWith, d, "ete", true),
        Case("Zoë", .contains, d, "oe", true),
        // [cd]: both.
        Case("Été", .contains, cd, "ETE", true),
        Case("ÉTÉ", .beginsWith, cd, "eté", true),
        Case("İstanbul", .beginsWith, cd, "istanbul", true),
        Case("STRASSE", .like, cd, "straße", true),
        // LIKE: whole value, * and ? wildcards.
        Case("IMG_0001.HEIC", .like, [], "IMG_????.*", true),
        Case("IMG_0001.HEIC", .like, [], "IMG_???.*", false),
        Case("IMG_0001.HEIC", .like, [], "img*", false),
        Case("IMG_0001.HEIC", .like, c, "img*", true),
        Case("abc", .like, [], "a*", true),
        Case("abc", .like, [], "*c", true),
        Case("abc", .like, [], "*b", false),
        Case("abc", .like, [], "a*b*c", true),
        Case("abc", .like, [], "a**c", true),
        Case("abcbc", .like, [], "*bc", true),
        Case("abcbd", .like, [], "*bc", false),
        Case("mississippi", .like, [], "m*iss*ppi", true),
        Case("mississippi", .like, [], "m*iss*x", false),
        Case("", .like, [], "*", true),
        Case("", .like, [], "", true),
        Case("", .like, [], "?", false),
        Case("a", .like, [], "", false),
        Case("x*y", .like, [], "x*y", true),
        Case("xay", .like, [], "x*y", true),
        Case("é", .like, [], "?", true),
        Case("e\u{301}", .like, [], "?", false),
        Case("e\u{301}", .like, [], "??", true),
        Case("e\u{301}", .like, c, "?", true),
        Case("😀", .like, [], "?", true),
        Case("日本語", .like, [], "日?語", true),
    ]

    @Test("matching rules, in memory and through the SQL functions", arguments: cases)
    func matches(_ testCase: Case) throws {
        #expect(
            StringMatcher.matches(testCase.value, testCase.op, testCase.pattern, options: testCase.options)
                == testCase.expected)
        let queue = try DatabaseQueue()
        let result = try queue.read { db in
            PredicateFunctions.register(in: db)
            return try Bool.fetchOne(
                db, sql: "SELECT \(PredicateFunctions.name(for: testCase.op))(?, ?, ?)",
                arguments: [testCase.value, testCase.pattern, testCase.options.rawValue])
        }
        #expect(result == testCase.expected)
    }

    @Test("LIKE agrees with a simple recursive reference matcher on random inputs")
    func likeReference() {
        func reference(_ value: Substring.UnicodeScalarView, _ pattern: Substring.UnicodeScalarView) -> Bool {
            guard let first = pattern.first else { return value.isEmpty }
            let rest = pattern.dropFirst()
            if first == "*" {
                var suffix = value
                while true {
                    if reference(suffix, rest) { return true }
                    if suffix.isEmpty { return false }
                    suffix = suffix.dropFirst()
                }
            }
            guard let head = value.first, first == "?" || first == head else { return false }
            return reference(value.dropFirst(), rest)
        }
        var rng = SplitMix64(seed: 42)
        let letters = ["a", "b", "é", "😀"]
        for _ in 0..<5000 {
            let value = (0..<Int.random(in: 0...7, using: &rng)).map { _ in rng.pick(letters) }.joined()
            let pattern = (0..<Int.random(in: 0...5, using: &rng)).map { _ in rng.pick(letters + ["*", "?"]) }.joined()
            let expected = reference(Substring(value).unicodeScalars, Substring(pattern).unicodeScalars)
            #expect(StringMatcher.matches(value, .like, pattern, options: []) == expected, "\(value) LIKE \(pattern)")
        }
    }

    @Test("the ASCII fast path folds exactly like the Unicode path")
    func asciiFastPath() {
        var rng = SplitMix64(seed: 99)
        let options: [(StringOptions, String.CompareOptions)] = [
            (.caseInsensitive, .caseInsensitive), (.diacriticInsensitive, .diacriticInsensitive),
            ([.caseInsensitive, .diacriticInsensitive], [.caseInsensitive, .diacriticInsensitive]),
        ]
        for _ in 0..<2000 {
            let ascii = String(
                decoding: (0..<Int.random(in: 0...12, using: &rng)).map { _ in UInt8.random(in: 1...127, using: &rng) },
                as: UTF8.self)
            for (option, folding) in options {
                #expect(
                    StringMatcher.fold(ascii, options: option) == StringMatcher.unicodeFold(ascii, folding),
                    "\(ascii.debugDescription)")
            }
        }
    }

    @Test("strings are cut at U+0000 in memory as GRDB cuts them for SQL functions")
    func nulTruncation() {
        #expect(StringMatcher.matches("ab\u{0}cd", .endsWith, "b", options: []))
        #expect(!StringMatcher.matches("ab\u{0}cd", .contains, "cd", options: []))
    }
}
