import Foundation
import Testing

@testable import FetchPredicate

@Suite("Errors name the problem and its position")
struct ErrorTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let text: String
        let kind: PredicateError.Kind
        let position: Int
        var testDescription: String { text }
        init(_ text: String, _ kind: PredicateError.Kind, at position: Int) {
            self.text = text
            self.kind = kind
            self.position = position
        }
    }

    static let keys = Item.schema.keyNames

    static let cases: [Case] = [
        Case("", .unexpectedEnd, at: 0),
        Case("   ", .unexpectedEnd, at: 3),
        Case("count ==", .unexpectedEnd, at: 8),
        Case("count == 1 AND", .unexpectedEnd, at: 14),
        Case("(flag", .unexpectedEnd, at: 5),
        Case("count IN {1, 2", .unexpectedEnd, at: 14),
        Case("flag)", .unexpectedToken(")"), at: 4),
        Case("flag optFlag", .unexpectedToken("optFlag"), at: 5),
        Case("count == == 3", .unexpectedToken("=="), at: 9),
        Case("count BETWEEN {1}", .unexpectedToken("}"), at: 16),
        Case("count BETWEEN {1, 2, 3}", .unexpectedToken(","), at: 19),
        Case("count IN 1", .unexpectedToken("1"), at: 9),
        Case("count IN {1 2}", .unexpectedToken("2"), at: 12),
        Case("AND flag", .unexpectedToken("AND"), at: 0),
        Case("3 == count", .unexpectedToken("3"), at: 0),
        Case("count - 3", .unexpectedToken("-"), at: 6),
        Case("count @ 3", .unexpectedCharacter("@"), at: 6),
        Case("flag & optFlag", .unexpectedCharacter("&"), at: 5),
        Case("title == \"abc", .unterminatedString, at: 9),
        Case("title == 'abc\\'", .unterminatedString, at: 9),
        Case("title == 'a\\qb'", .invalidEscape("\\q"), at: 11),
        Case("title == 'a\\u{110000}'", .invalidEscape("\\u{110000}"), at: 11),
        Case("title == 'a\\u12'", .invalidEscape("\\u12'"), at: 11),
        Case("title == 'a\\u{0}'", .invalidValue("\\u{0}"), at: 11),
        Case("count == 12abc", .invalidNumber("12abc"), at: 9),
        Case("count == 1.2.3", .invalidNumber("1.2.3"), at: 9),
        Case("count == 1e", .invalidNumber("1e"), at: 9),
        Case("count == 99999999999999999999", .invalidNumber("99999999999999999999"), at: 9),
        Case("score == 1e999", .invalidNumber("1e999"), at: 9),
        Case("creation > 3", .unknownKey(name: "creation", validKeys: keys), at: 0),
        Case("flag AND Title == 'x'", .unknownKey(name: "Title", validKeys: keys), at: 9),
        Case("flag > \"x\"", .typeMismatch(key: "flag"), at: 5),
        Case("flag BETWEEN {NO, YES}", .typeMismatch(key: "flag"), at: 5),
        Case("flag == \"x\"", .typeMismatch(key: "flag"), at: 8),
        Case("flag == 2", .typeMismatch(key: "flag"), at: 8),
        Case("count == 'x'", .typeMismatch(key: "count"), at: 9),
        Case("count == flag", .typeMismatch(key: "count"), at: 9),
        Case("title == 3", .typeMismatch(key: "title"), at: 9),
        Case("title == YES", .typeMismatch(key: "title"), at: 9),
        Case("date == YES", .typeMismatch(key: "date"), at: 8),
        Case("count", .typeMismatch(key: "count"), at: 0),
        Case("NOT title AND flag", .typeMismatch(key: "title"), at: 4),
        Case("count CONTAINS 'a'", .typeMismatch(key: "count"), at: 6),
        Case("flags BEGINSWITH 'a'", .typeMismatch(key: "flags"), at: 6),
        Case("title CONTAINS 3", .typeMismatch(key: "title"), at: 15),
        Case("title LIKE nil", .typeMismatch(key: "title"), at: 11),
        Case("flags CONTAINS nil", .typeMismatch(key: "flags"), at: 15),
        Case("title CONTAINS[x] 'a'", .invalidOption("x"), at: 15),
        Case("title CONTAINS[cn] 'a'", .invalidOption("cn"), at: 15),
        Case("flags CONTAINS[c] hdr", .invalidOption("[c]"), at: 14),
        Case(
            "kind == picture",
            .unknownCase(name: "picture", key: "kind", validCases: ["unknown", "image", "video", "audio"]), at: 8),
        Case(
            "kind IN {image, 'photo'}",
            .unknownCase(name: "photo", key: "kind", validCases: ["unknown", "image", "video", "audio"]), at: 16),
        Case(
            "flags CONTAINS hd",
            .unknownCase(name: "hd", key: "flags", validCases: ["panorama", "hdr", "screenshot", "streamed"]), at: 15),
        Case("date > \"2024-02-30\"", .invalidValue("2024-02-30"), at: 7),
        Case("date > \"2023-02-29\"", .invalidValue("2023-02-29"), at: 7),
        Case("date > \"2024-13-01\"", .invalidValue("2024-13-01"), at: 7),
        Case("date > \"2024-1-1\"", .invalidValue("2024-1-1"), at: 7),
        Case("date > \"2024-01-01T24:00\"", .invalidValue("2024-01-01T24:00"), at: 7),
        Case("date > \"2024-01-01T10:60\"", .invalidValue("2024-01-01T10:60"), at: 7),
        Case("date > \"2024-01-01T10:30:60\"", .invalidValue("2024-01-01T10:30:60"), at: 7),
        Case("date > \"2024-01-01T10:30:00.\"", .invalidValue("2024-01-01T10:30:00."), at: 7),
        Case("date > \"2024-01-01T10:30:00.1234567890Z\"", .invalidValue("2024-01-01T10:30:00.1234567890Z"), at: 7),
        Case("date > \"2024-01-01Z\"", .invalidValue("2024-01-01Z"), at: 7),
        Case("date > \"2024-01-01T10:30+25:00\"", .invalidValue("2024-01-01T10:30+25:00"), at: 7),
        Case("date > \"yesterday\"", .invalidValue("yesterday"), at: 7),
        Case("date > \"0000-01-01\"", .invalidValue("0000-01-01"), at: 7),
        // Positions count Characters: "é" written as e + U+0301 and "😀" are one each.
        Case("title == \"e\u{301}😀\" AND @", .unexpectedCharacter("@"), at: 18),
        Case("title == \"👩‍👩‍👧\" OR tilte", .unknownKey(name: "tilte", validKeys: keys), at: 16),
    ]

    @Test("kind and exact position of each error", arguments: cases)
    func error(_ testCase: Case) throws {
        let error = try #require(parseError(testCase.text), "\(testCase.text) parsed")
        #expect(error.kind == testCase.kind, "\(error)")
        #expect(error.position == testCase.position, "\(error)")
        #expect(error.description.hasPrefix("at position \(testCase.position): "))
    }

    @Test("an unknown key lists the valid keys and suggests a near match")
    func unknownKeyMessage() throws {
        let error = try #require(parseError("count > 1 AND Title == 'x'"))
        #expect(error.position == 14)
        #expect(error.description.contains("unknown key 'Title'"))
        #expect(error.description.contains("did you mean 'title'?"))
        for key in Item.schema.keyNames {
            #expect(error.message.contains(key))
        }
        guard case .unknownKey(let name, let validKeys) = error.kind else {
            Issue.record("wrong kind \(error.kind)")
            return
        }
        #expect(name == "Title")
        #expect(validKeys == Item.schema.keyNames)
    }

    @Test("an unknown enumeration case lists the valid ones")
    func unknownCaseMessage() throws {
        let error = try #require(parseError("mediaType == photo", schema: AssetExample.schema))
        #expect(error.message == "'photo' is not a case of key 'mediaType'; valid cases: unknown, image, video, audio")
    }

    @Test("type mismatches explain what the key accepts")
    func typeMismatchMessages() throws {
        #expect(
            parseError("flag > \"x\"")?.message
                == "operator > does not apply to bool key 'flag' (use == or !=)")
        #expect(
            parseError("count == 'x'")?.message
                == "integer key 'count' cannot be compared with the string \"x\" (use a number)")
        #expect(parseError("count")?.message.contains("only bool keys can") == true)
    }

    @Test("nesting is limited, so hostile input cannot exhaust the stack")
    func nestingLimit() throws {
        let parentheses = String(repeating: "(", count: 5000) + "flag" + String(repeating: ")", count: 5000)
        let error = try #require(parseError(parentheses))
        #expect(error.kind == .nestingTooDeep(limit: 100))
        #expect(error.position == 100)
        let nots = String(repeating: "NOT ", count: 5000) + "flag"
        #expect(parseError(nots)?.kind == .nestingTooDeep(limit: 100))
        #expect(parseError(nots)?.position == 400)
        let deepButFine = String(repeating: "(", count: 100) + "flag" + String(repeating: ")", count: 100)
        #expect(try parse(deepButFine) == .key("flag"))
        // Long flat chains are not nested and have no limit.
        let chain = Array(repeating: "flag", count: 20_000).joined(separator: " AND ")
        guard case .and(let operands) = try parse(chain) else {
            Issue.record("not an AND")
            return
        }
        #expect(operands.count == 20_000)
    }

    @Test("the diagnostic shows a caret under the position")
    func diagnostic() throws {
        let text = "count > 1 AND\ttitle ~ 2"
        let error = try #require(parseError(text))
        #expect(
            error.diagnostic(for: text)
                == "count > 1 AND title ~ 2\n                    ^\nat position 20: unexpected character '~'")
    }

    @Test("compiling a predicate built in code checks it, without a position")
    func compileErrors() throws {
        func compileError(_ predicate: Predicate) -> PredicateError? {
            do {
                _ = try predicate.sql(Item.schema)
                return nil
            } catch {
                return error
            }
        }
        #expect(
            compileError(.comparison(key: "nope", op: .equal, value: .integer(1)))?.kind
                == .unknownKey(name: "nope", validKeys: Item.schema.keyNames))
        #expect(compileError(.and([.key("flag"), .key("nope")]))?.position == nil)
        #expect(
            compileError(.comparison(key: "flag", op: .less, value: .bool(true)))?.kind == .typeMismatch(key: "flag"))
        #expect(
            compileError(.comparison(key: "count", op: .equal, value: .string("1")))?.kind
                == .typeMismatch(key: "count"))
        #expect(compileError(.key("count"))?.kind == .typeMismatch(key: "count"))
        #expect(
            compileError(.stringMatch(key: "count", op: .like, pattern: "*", options: []))?.kind
                == .typeMismatch(key: "count"))
        #expect(compileError(.containsFlags(key: "kind", mask: 1))?.kind == .typeMismatch(key: "kind"))
        #expect(
            compileError(.between(key: "optFlag", lower: .bool(false), upper: .bool(true)))?.kind
                == .typeMismatch(key: "optFlag"))
        #expect(compileError(.in(key: "date", values: [.string("2024-01-01")]))?.kind == .typeMismatch(key: "date"))
        #expect(
            compileError(.comparison(key: "title", op: .equal, value: .string("a\0b")))?.kind == .invalidValue("a\0b"))
        #expect(
            compileError(.stringMatch(key: "title", op: .like, pattern: "*", options: StringOptions(rawValue: 4)))?.kind
                == .invalidOption("4"))
        // Evaluation checks the same way.
        #expect(throws: PredicateError.self) {
            try Predicate.key("nope").evaluate(Item.sample, schema: Item.schema)
        }
    }

    @Test("errors are values: equatable, hashable, and printable")
    func errorValue() {
        let error = PredicateError(.unexpectedEnd, position: 3, message: "m")
        #expect(error == PredicateError(.unexpectedEnd, position: 3, message: "m"))
        #expect(Set([error, error]).count == 1)
        #expect(error.description == "at position 3: m")
        #expect(PredicateError(.unexpectedEnd, position: nil, message: "m").description == "m")
    }
}

extension Item {
    static let sample = Item(
        id: 1, flag: true, optFlag: nil, count: 3, optCount: nil, score: 1.5, optScore: nil, date: nil, name: nil,
        title: "Été", kind: .image, flags: [.panorama, .hdr])
}
