import Foundation
import PostgresNIO
import PostgresStore
import PostgresTestSupport
import SeededRandom
import Testing

@testable import FetchPredicate

@Suite("PostgreSQL folds strings as Foundation does ([c], [d], [cd])")
struct PostgresFoldTests {
    /// Base characters that exercise the folding rules: every one with a case folding, ASCII, joiners, and
    /// letters of many scripts, below and above U+0510 (where the rules for the marks after them change).
    static let bases: [Unicode.Scalar] = {
        // Letters with a case folding from the Basic Multilingual Plane only: Foundation mis-folds one from
        // the other planes when a mark follows it (see Schema/postgres/README.md).
        var values = PostgresFoldData.current.scalars.filter { !$0.nonBase }.compactMap { $0.scalar.unicodeScalars.first?.value }
            .filter { $0 <= 0xFFFF }
        values += Array(0x20...0x7E) + [0x200D, 0x200C, 0x5D0, 0x627, 0x915, 0x65E5, 0xAC00, 0x1100, 0x1161, 0xE01]
        values += [0x10428, 0x1F600, 0x1F3FB, 0x510, 0x511, 0x561, 0x212A, 0x2126, 0x130, 0x131, 0xDF, 0x1E9E, 0xFB01]
        return values.compactMap(Unicode.Scalar.init)
    }()

    /// The combining marks of the Basic Multilingual Plane.
    static let marks: [Unicode.Scalar] = PostgresFoldData.current.scalars
        .filter { $0.nonBase }.compactMap { $0.scalar.unicodeScalars.first }.filter { $0.value <= 0xFFFF }

    /// A random string that begins with a base character: bases, each followed by up to three marks.
    static func randomString(_ rng: inout SplitMix64) -> String {
        var string = String.UnicodeScalarView()
        for _ in 0..<rng.int(in: 1...4) {
            string.append(rng.pick(bases))
            for _ in 0..<rng.int(in: 0...3) where rng.chance(0.5) { string.append(rng.pick(marks)) }
        }
        return String(string)
    }

    @Test("random strings fold to the same text in PostgreSQL and in Swift", arguments: [1, 2, 3] as [UInt64])
    func randomStrings(seed: UInt64) async throws {
        var rng = SplitMix64(seed: seed)
        var strings: [String] = []
        for _ in 0..<4_000 { strings.append(Self.randomString(&rng)) }
        // Text as users write it, too: decomposed and precomposed accents, ligatures, Greek, Cyrillic.
        strings += ["Été", "e\u{301}te\u{301}", "STRASSE", "ﬁle", "İstanbul", "ΣΊΣΥΦΟΣ", "Ёлка", "Zoe\u{308}", "日本語"]
        let store = try await PostgresStore.open(url: try PostgresCluster.shared().makeDatabase(prefix: "fold"))
        defer { Task { await store.close() } }
        for options in [1, 2, 3] {
            let expected = strings.map { StringMatcher.fold($0, options: StringOptions(rawValue: options)) }
            let actual = try await store.withConnection { connection in
                try await connection.query(
                    "SELECT fetchpredicate_fold(s, \(Int64(options))) FROM unnest(\(strings)) WITH ORDINALITY AS t(s, n) ORDER BY n",
                    logger: postgresLogger
                ).collect().map { try $0.decode(String.self) }
            }
            var mismatches = 0
            for (index, string) in strings.enumerated() where actual[index] != expected[index] {
                mismatches += 1
                if mismatches <= 5 {
                    Issue.record(
                        "options \(options): \(Self.hex(string)) folds to \(Self.hex(actual[index])) in PostgreSQL, \(Self.hex(expected[index])) in Swift")
                }
            }
            #expect(mismatches == 0, "options \(options): \(mismatches) of \(strings.count) strings differ")
        }
    }

    static func hex(_ string: String) -> String {
        string.unicodeScalars.map { String($0.value, radix: 16, uppercase: true) }.joined(separator: " ")
    }
}
