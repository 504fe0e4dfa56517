import SeededRandom
import Foundation
import Testing

@testable import FetchPredicate

@Suite("Garbage never crashes the parser")
struct FuzzTests {
    /// Characters that matter to the lexer, plus letters, digits and awkward Unicode.
    static let alphabet: [String] = [
        "(", ")", "{", "}", "[", "]", ",", "=", "!", "<", ">", "&", "|", "-", "+", ".", "*", "?", "\"", "'", "\\",
        "u", "{", "0", "1", "9", "e", "E", "c", "d", "a", "z", "_", " ", "\t", "\n", "@", "#", "%", "é", "e\u{301}",
        "😀", "👩‍👩‍👧", "\u{0}", "\u{FEFF}", "\u{200B}", "İ", "ß", "日",
    ]

    /// Tokens of the language, valid and not.
    static let vocabulary: [String] = [
        "flag", "optFlag", "count", "halfCount", "optCount", "score", "optScore", "date", "name", "title", "kind",
        "flags", "nope", "Flag", "AND", "and", "&&", "OR", "||", "NOT", "!", "(", ")", "{", "}", "[c]", "[cd]", "[x]",
        "[", "]", ",", "==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>", "IN", "BETWEEN", "CONTAINS",
        "BEGINSWITH", "ENDSWITH", "LIKE", "TRUEPREDICATE", "FALSEPREDICATE", "YES", "NO", "true", "false", "nil",
        "NULL", "image", "video", "hdr", "panorama", "0", "1", "-1", "3.5", "1e3", "1e999", "99999999999999999999",
        "\"abc\"", "'x'", "\"2024-01-01\"", "\"2024-02-30\"", "\"2024-01-01T10:30:00Z\"", "\"unterminated", "'\\q'",
        "\"\\u{1F600}\"", "\"é\"", "@", "-", "+",
    ]

    @Test("random strings from the lexer's alphabet parse or throw a positioned error")
    func randomStrings() {
        var rng = SplitMix64(seed: 0xF00D)
        for _ in 0..<3000 {
            let length = Int.random(in: 0...40, using: &rng)
            let text = (0..<length).map { _ in rng.pick(Self.alphabet) }.joined()
            check(text)
        }
    }

    @Test("random token soups parse or throw a positioned error; those that parse round-trip")
    func tokenSoups() {
        var rng = SplitMix64(seed: 0xBEEF)
        var parsed = 0
        for _ in 0..<4000 {
            let count = Int.random(in: 1...12, using: &rng)
            let text = (0..<count).map { _ in rng.pick(Self.vocabulary) }.joined(separator: rng.chance(0.8) ? " " : "")
            if check(text) { parsed += 1 }
        }
        // Some soups must be valid, or the round-trip check above checked nothing.
        #expect(parsed > 20)
    }

    @Test("random sort lists parse or throw a positioned error")
    func sortLists() {
        var rng = SplitMix64(seed: 0x5027)
        let pieces = [
            "count", "-title", "+date", "nope", ",", ", ", "-", "+", " ", "--flag", "kind,", "@", "\"x\"", "1",
        ]
        for _ in 0..<2000 {
            let text = (0..<Int.random(in: 0...8, using: &rng)).map { _ in rng.pick(pieces) }.joined()
            do {
                let descriptors = try SortDescriptor.parseList(text, schema: Item.schema)
                let again = try SortDescriptor.parseList(
                    SortDescriptor.listDescription(descriptors), schema: Item.schema)
                #expect(again == descriptors, "\(text)")
            } catch {
                #expect((0...text.count).contains(error.position ?? -1), "\(text): \(error)")
            }
        }
    }

    /// Parses; on success checks the round trip, on failure that the position lies within the text.
    @discardableResult
    private func check(_ text: String) -> Bool {
        do {
            let predicate = try parse(text)
            let reparsed = try? parse(predicate.description)
            #expect(reparsed == predicate, "\(text) → \(predicate)")
            #expect((try? predicate.compiled(for: Item.schema)) != nil, "\(text)")
            return true
        } catch {
            #expect((0...text.count).contains(error.position ?? -1), "\(text): \(error)")
            #expect(!error.message.isEmpty)
            return false
        }
    }
}
