import Foundation
import Testing

@testable import FetchPredicate

@Suite("Parsing the text format")
struct ParserTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let text: String
        let expected: Predicate
        var testDescription: String { text }
        init(_ text: String, _ expected: Predicate) {
            self.text = text
            self.expected = expected
        }
    }

    static let comparisons: [Case] = [
        Case("count == 3", .comparison(key: "count", op: .equal, value: .integer(3))),
        Case("count = 3", .comparison(key: "count", op: .equal, value: .integer(3))),
        Case("count != 3", .comparison(key: "count", op: .notEqual, value: .integer(3))),
        Case("count <> 3", .comparison(key: "count", op: .notEqual, value: .integer(3))),
        Case("count < -3", .comparison(key: "count", op: .less, value: .integer(-3))),
        Case("count <= +3", .comparison(key: "count", op: .lessOrEqual, value: .integer(3))),
        Case("count =< 3", .comparison(key: "count", op: .lessOrEqual, value: .integer(3))),
        Case("count > 3", .comparison(key: "count", op: .greater, value: .integer(3))),
        Case("count >= 3", .comparison(key: "count", op: .greaterOrEqual, value: .integer(3))),
        Case("count => 3", .comparison(key: "count", op: .greaterOrEqual, value: .integer(3))),
        Case("count==3", .comparison(key: "count", op: .equal, value: .integer(3))),
        Case("count > 2.5", .comparison(key: "count", op: .greater, value: .double(2.5))),
        Case("score > 3.5", .comparison(key: "score", op: .greater, value: .double(3.5))),
        Case("score > 3", .comparison(key: "score", op: .greater, value: .double(3))),
        Case("score > -1.5e3", .comparison(key: "score", op: .greater, value: .double(-1500))),
        Case("score > 1E-3", .comparison(key: "score", op: .greater, value: .double(0.001))),
        Case("score > 2e+2", .comparison(key: "score", op: .greater, value: .double(200))),
        Case(
            "count == -9223372036854775808",
            .comparison(key: "count", op: .equal, value: .integer(Int64.min))),
        Case("flag == YES", .comparison(key: "flag", op: .equal, value: .bool(true))),
        Case("flag == no", .comparison(key: "flag", op: .equal, value: .bool(false))),
        Case("flag == TRUE", .comparison(key: "flag", op: .equal, value: .bool(true))),
        Case("flag == false", .comparison(key: "flag", op: .equal, value: .bool(false))),
        Case("flag == 1", .comparison(key: "flag", op: .equal, value: .bool(true))),
        Case("flag != 0", .comparison(key: "flag", op: .notEqual, value: .bool(false))),
        Case("title == \"abc\"", .comparison(key: "title", op: .equal, value: .string("abc"))),
        Case("title == 'abc'", .comparison(key: "title", op: .equal, value: .string("abc"))),
        Case(#"title == "a\"b\\c\n\t\r""#, .comparison(key: "title", op: .equal, value: .string("a\"b\\c\n\t\r"))),
        Case(#"title == 'it\'s "quoted"'"#, .comparison(key: "title", op: .equal, value: .string("it's \"quoted\""))),
        Case(#"title == "\u00E9\u{1F600}""#, .comparison(key: "title", op: .equal, value: .string("é😀"))),
        Case("title == \"Été 日本語 😀\"", .comparison(key: "title", op: .equal, value: .string("Été 日本語 😀"))),
        Case("name == nil", .comparison(key: "name", op: .equal, value: .null)),
        Case("name == NULL", .comparison(key: "name", op: .equal, value: .null)),
        Case("name != nil", .comparison(key: "name", op: .notEqual, value: .null)),
        Case("optCount < nil", .comparison(key: "optCount", op: .less, value: .null)),
        Case("kind == image", .comparison(key: "kind", op: .equal, value: .integer(1))),
        Case("kind == \"video\"", .comparison(key: "kind", op: .equal, value: .integer(2))),
        Case("kind == 3", .comparison(key: "kind", op: .equal, value: .integer(3))),
        Case("kind >= video", .comparison(key: "kind", op: .greaterOrEqual, value: .integer(2))),
        Case("flags == hdr", .comparison(key: "flags", op: .equal, value: .integer(2))),
        Case("flags == 0", .comparison(key: "flags", op: .equal, value: .integer(0))),
    ]

    @Test("comparisons, operators' spellings and literals", arguments: comparisons)
    func comparison(_ testCase: Case) throws {
        #expect(try parse(testCase.text) == testCase.expected)
    }

    static let constructs: [Case] = [
        Case("count IN {1, 2, 3}", .in(key: "count", values: [.integer(1), .integer(2), .integer(3)])),
        Case("count IN {}", .in(key: "count", values: [])),
        Case("kind IN {image, video}", .in(key: "kind", values: [.integer(1), .integer(2)])),
        Case("name in {'a', nil}", .in(key: "name", values: [.string("a"), .null])),
        Case("count BETWEEN {100, 2000}", .between(key: "count", lower: .integer(100), upper: .integer(2000))),
        Case("score between {1, 2.5}", .between(key: "score", lower: .double(1), upper: .double(2.5))),
        Case(
            "title CONTAINS \"img\"",
            .stringMatch(key: "title", op: .contains, pattern: "img", options: [])),
        Case(
            "title CONTAINS[c] \"img\"",
            .stringMatch(key: "title", op: .contains, pattern: "img", options: .caseInsensitive)),
        Case(
            "title contains[d] 'e'",
            .stringMatch(key: "title", op: .contains, pattern: "e", options: .diacriticInsensitive)),
        Case(
            "title BEGINSWITH[cd] \"é\"",
            .stringMatch(
                key: "title", op: .beginsWith, pattern: "é", options: [.caseInsensitive, .diacriticInsensitive])),
        Case(
            "title BeginsWith [ DC ] \"é\"",
            .stringMatch(
                key: "title", op: .beginsWith, pattern: "é", options: [.caseInsensitive, .diacriticInsensitive])),
        Case("name ENDSWITH \".jpg\"", .stringMatch(key: "name", op: .endsWith, pattern: ".jpg", options: [])),
        Case("name LIKE \"IMG_*.?\"", .stringMatch(key: "name", op: .like, pattern: "IMG_*.?", options: [])),
        Case("flags CONTAINS panorama", .containsFlags(key: "flags", mask: 1)),
        Case("flags CONTAINS 'streamed'", .containsFlags(key: "flags", mask: 65536)),
        Case("flags CONTAINS 3", .containsFlags(key: "flags", mask: 3)),
        Case("flag", .key("flag")),
        Case("optFlag", .key("optFlag")),
        Case("NOT flag", .not(.key("flag"))),
        Case("!flag", .not(.key("flag"))),
        Case("not not flag", .not(.not(.key("flag")))),
        Case("TRUEPREDICATE", .constant(true)),
        Case("falsepredicate", .constant(false)),
        Case("(flag)", .key("flag")),
        Case("((flag))", .key("flag")),
    ]

    @Test("IN, BETWEEN, string operators, option sets, bare keys, NOT, constants", arguments: constructs)
    func construct(_ testCase: Case) throws {
        #expect(try parse(testCase.text) == testCase.expected)
    }

    static let a = Predicate.key("flag")
    static let b = Predicate.key("optFlag")
    static let c = Predicate.comparison(key: "count", op: .equal, value: .integer(1))

    static let precedence: [Case] = [
        Case("flag AND optFlag AND count == 1", .and([a, b, c])),
        Case("flag && optFlag && count == 1", .and([a, b, c])),
        Case("flag OR optFlag || count == 1", .or([a, b, c])),
        Case("flag OR optFlag AND count == 1", .or([a, .and([b, c])])),
        Case("flag AND optFlag OR count == 1", .or([.and([a, b]), c])),
        Case("NOT flag AND optFlag", .and([.not(a), b])),
        Case("NOT flag OR optFlag", .or([.not(a), b])),
        Case("NOT (flag OR optFlag)", .not(.or([a, b]))),
        Case("NOT count == 1", .not(c)),
        Case("(flag OR optFlag) AND count == 1", .and([.or([a, b]), c])),
        Case("flag AND (optFlag AND count == 1)", .and([a, .and([b, c])])),
        Case("flag and optFlag or not count == 1", .or([.and([a, b]), .not(c)])),
        Case("! flag || ! optFlag && count == 1", .or([.not(a), .and([.not(b), c])])),
    ]

    @Test("NOT binds tighter than AND, which binds tighter than OR; parentheses group", arguments: precedence)
    func precedenceAndGrouping(_ testCase: Case) throws {
        #expect(try parse(testCase.text) == testCase.expected)
    }

    @Test("the examples of the format parse against an asset-like schema")
    func assetExamples() throws {
        let schema = AssetExample.schema
        let utc = TimeZone(secondsFromGMT: 0)!
        let first = try Predicate.parse(
            "mediaType == image AND creationDate >= \"2024-01-01\" AND NOT isHidden", schema: schema, timeZone: utc)
        #expect(
            first
                == .and([
                    .comparison(key: "mediaType", op: .equal, value: .integer(1)),
                    .comparison(
                        key: "creationDate", op: .greaterOrEqual, value: .date(FetchPredicateTests.utc(2024, 1, 1))),
                    .not(.key("isHidden")),
                ]))
        #expect(
            try Predicate.parse("originalFilename CONTAINS[c] \"img\"", schema: schema)
                == .stringMatch(key: "originalFilename", op: .contains, pattern: "img", options: .caseInsensitive))
        #expect(
            try Predicate.parse("pixelWidth BETWEEN {100, 2000}", schema: schema)
                == .between(key: "pixelWidth", lower: .integer(100), upper: .integer(2000)))
        #expect(
            try Predicate.parse("mediaType IN {image, video}", schema: schema)
                == .in(key: "mediaType", values: [.integer(1), .integer(2)]))
        #expect(
            try Predicate.parse("burstIdentifier != nil", schema: schema)
                == .comparison(key: "burstIdentifier", op: .notEqual, value: .null))
        #expect(
            try Predicate.parse("(isFavorite OR isHidden) && duration > 3.5", schema: schema)
                == .and([
                    .or([.key("isFavorite"), .key("isHidden")]),
                    .comparison(key: "duration", op: .greater, value: .double(3.5)),
                ]))
        #expect(
            try Predicate.parse("mediaSubtypes CONTAINS photoPanorama", schema: schema)
                == .containsFlags(key: "mediaSubtypes", mask: 1))
        #expect(
            try Predicate("mediaType = 1", schema: schema)
                == .comparison(key: "mediaType", op: .equal, value: .integer(1)))
    }

    @Test("date strings in every accepted form, in the parse call's time zone unless they name one")
    func dates() throws {
        let paris = TimeZone(identifier: "Europe/Paris")!
        func date(_ literal: String, _ zone: TimeZone = paris) throws -> Date? {
            guard
                case .comparison(_, _, .date(let date)) = try Predicate.parse(
                    "date == \"\(literal)\"", schema: Item.schema, timeZone: zone)
            else { return nil }
            return date
        }
        // Midnight in Paris is 23:00 UTC the day before in winter, 22:00 in summer.
        #expect(try date("2024-01-01") == utc(2023, 12, 31, 23))
        #expect(try date("2024-07-01") == utc(2024, 6, 30, 22))
        #expect(try date("2024-01-01T10:30") == utc(2024, 1, 1, 9, 30))
        #expect(try date("2024-01-01 10:30:15") == utc(2024, 1, 1, 9, 30, 15))
        #expect(try date("2024-01-01T10:30:00Z") == utc(2024, 1, 1, 10, 30))
        #expect(try date("2024-01-01t10:30:00z") == utc(2024, 1, 1, 10, 30))
        #expect(try date("2024-01-01T10:30:00+02:00") == utc(2024, 1, 1, 8, 30))
        #expect(try date("2024-01-01T10:30-0530") == utc(2024, 1, 1, 16, 0))
        #expect(try date("2024-01-01T10:30:00+02") == utc(2024, 1, 1, 8, 30))
        #expect(try date("2024-01-01T10:30:00.25Z") == utc(2024, 1, 1, 10, 30, 0.25))
        #expect(try date("2024-01-01T10:30:00.123456789Z") == utc(2024, 1, 1, 10, 30, 0.123456789))
        #expect(try date("2024-02-29", TimeZone(secondsFromGMT: 0)!) == utc(2024, 2, 29))
        #expect(try date("1969-07-20T20:17:40Z") == Date(timeIntervalSince1970: -14_182_940))
        // Numbers are seconds since 1970.
        #expect(
            try parse("date > 1704067200")
                == .comparison(key: "date", op: .greater, value: .date(utc(2024, 1, 1))))
        #expect(
            try parse("date > 1704067200.5")
                == .comparison(key: "date", op: .greater, value: .date(utc(2024, 1, 1, 0, 0, 0.5))))
    }

    @Test("the default time zone is the current one")
    func defaultTimeZone() throws {
        let parsed = try Predicate.parse("date == \"2024-03-10T12:00\"", schema: Item.schema)
        let explicit = try Predicate.parse("date == \"2024-03-10T12:00\"", schema: Item.schema, timeZone: .current)
        #expect(parsed == explicit)
    }

    @Test("keywords are case-insensitive; key names are not")
    func caseSensitivity() throws {
        #expect(
            try parse("flag and NOT optFlag Or TruePredicate") == .or([.and([Self.a, .not(Self.b)]), .constant(true)]))
        #expect(parseError("Flag")?.kind == .unknownKey(name: "Flag", validKeys: Item.schema.keyNames))
    }

    @Test("whitespace of any kind separates tokens and is otherwise ignored")
    func whitespace() throws {
        #expect(try parse("\n\tcount\u{00A0}==\r\n3 ") == .comparison(key: "count", op: .equal, value: .integer(3)))
    }
}

/// An asset-like schema, as the library declares it.
enum AssetExample {
    enum MediaType: Int, CaseIterable, Sendable, PredicateEnumeration, CustomStringConvertible {
        case unknown = 0, image = 1, video = 2, audio = 3
        var description: String { ["unknown", "image", "video", "audio"][rawValue] }
    }

    struct MediaSubtypes: PredicateOptionSet {
        let rawValue: Int
        static let photoPanorama = MediaSubtypes(rawValue: 1 << 0)
        static let photoHDR = MediaSubtypes(rawValue: 1 << 1)
        static let videoTimelapse = MediaSubtypes(rawValue: 1 << 18)
        static var predicateFlags: [(name: String, value: MediaSubtypes)] {
            [("photoPanorama", .photoPanorama), ("photoHDR", .photoHDR), ("videoTimelapse", .videoTimelapse)]
        }
    }

    struct Asset: Sendable {
        var mediaType: MediaType
        var mediaSubtypes: MediaSubtypes
        var creationDate: Date?
        var isFavorite: Bool
        var isHidden: Bool
        var originalFilename: String
        var pixelWidth: Int
        var duration: Double
        var burstIdentifier: String?

        typealias Key<Value: PredicateValueConvertible> = PredicateKeyPath<Asset, Value>
        static let mediaType = Key<MediaType>("mediaType")
        static let mediaSubtypes = Key<MediaSubtypes>("mediaSubtypes")
        static let creationDate = Key<Date?>("creationDate")
        static let isFavorite = Key<Bool>("isFavorite")
        static let isHidden = Key<Bool>("isHidden")
        static let originalFilename = Key<String>("originalFilename")
        static let pixelWidth = Key<Int>("pixelWidth")
        static let duration = Key<Double>("duration")
        static let burstIdentifier = Key<String?>("burstIdentifier")
    }

    static let schema = PredicateSchema<Asset>([
        PredicateKey(Asset.mediaType, sql: "asset.mediaType") { $0.mediaType },
        PredicateKey(Asset.mediaSubtypes, sql: "asset.mediaSubtypes") { $0.mediaSubtypes },
        PredicateKey(Asset.creationDate, sql: "asset.creationDate") { $0.creationDate },
        PredicateKey(Asset.isFavorite, sql: "asset.isFavorite") { $0.isFavorite },
        PredicateKey(Asset.isHidden, sql: "asset.isHidden") { $0.isHidden },
        PredicateKey(Asset.originalFilename, sql: "resource.originalFilename") { $0.originalFilename },
        PredicateKey(Asset.pixelWidth, sql: "asset.pixelWidth") { $0.pixelWidth },
        PredicateKey(Asset.duration, sql: "asset.duration") { $0.duration },
        PredicateKey(Asset.burstIdentifier, sql: "asset.burstIdentifier") { $0.burstIdentifier },
    ])
}
