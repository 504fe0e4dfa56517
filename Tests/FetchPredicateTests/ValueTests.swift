import SeededRandom
import Foundation
import Testing

@testable import FetchPredicate

@Suite("Values and date literals")
struct ValueTests {
    @Test("equality and hashing: strings by bytes, dates by seconds since 1970, NaN equal to NaN")
    func equality() {
        #expect(PredicateValue.string("é") != .string("e\u{301}"))
        #expect(Set([PredicateValue.string("é"), .string("e\u{301}")]).count == 2)
        #expect(
            PredicateValue.date(Date(timeIntervalSince1970: 5))
                == .date(Date(timeIntervalSinceReferenceDate: 5 - 978_307_200)))
        #expect(PredicateValue.double(.nan) == .double(.nan))
        #expect(Set([PredicateValue.double(.nan), .double(.nan), .double(0), .double(-0.0)]).count == 2)
        #expect(PredicateValue.integer(1) != .double(1))
        #expect(PredicateValue.bool(true) != .integer(1))
    }

    @Test("values print in the text format")
    func descriptions() {
        #expect(PredicateValue.null.description == "nil")
        #expect(PredicateValue.bool(true).description == "true")
        #expect(PredicateValue.integer(-42).description == "-42")
        #expect(PredicateValue.double(5).description == "5.0")
        #expect(PredicateValue.double(1e-5).description == "1e-05")
        #expect(PredicateValue.string("a\"b\\c\n\u{1}é").description == #""a\"b\\c\n\u{1}é""#)
        #expect(PredicateValue.date(utc(2024, 1, 1, 10, 30)).description == "\"2024-01-01T10:30:00Z\"")
        #expect(PredicateValue.date(utc(2024, 1, 1, 10, 30, 0.25)).description == "\"2024-01-01T10:30:00.25Z\"")
        #expect(PredicateValue.date(utc(1969, 12, 31, 23, 59, 59.5)).description == "\"1969-12-31T23:59:59.5Z\"")
    }

    @Test("random dates print as literals that parse back to the same seconds since 1970")
    func dateRoundTrip() throws {
        var rng = SplitMix64(seed: 7)
        let utcZone = TimeZone(secondsFromGMT: 0)!
        for index in 0..<3000 {
            let seconds: Double =
                switch index % 4 {
                case 0: Double(Int64.random(in: -62_135_596_800...253_402_300_799, using: &rng))
                case 1: Double(Int64.random(in: 0...4_000_000_000_000, using: &rng)) / 1000
                case 2: Double.random(in: -1e10...1e10, using: &rng)
                default: Double(Int64.random(in: -1_000_000...1_000_000, using: &rng)) / 64
                }
            let date = Date(timeIntervalSince1970: seconds)
            let text = DateLiteral.format(date)
            let predicate = try Predicate.parse("date == \(text)", schema: Item.schema, timeZone: utcZone)
            #expect(predicate == .comparison(key: "date", op: .equal, value: .date(date)), "\(seconds) → \(text)")
        }
    }

    @Test("the civil-date arithmetic matches Foundation's Gregorian calendar")
    func civilDates() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0)!
        var rng = SplitMix64(seed: 11)
        for _ in 0..<500 {
            let days = Int64.random(in: -100_000...2_900_000, using: &rng)
            let (year, month, day) = DateLiteral.civilFromDays(days)
            #expect(DateLiteral.daysFromCivil(year: year, month: month, day: day) == days)
            if year >= 1600 {
                let components = calendar.dateComponents(
                    [.year, .month, .day], from: Date(timeIntervalSince1970: Double(days * 86_400)))
                #expect(components.year == Int(year) && components.month == Int(month) && components.day == Int(day))
            }
        }
    }

    @Test("local times around a daylight-saving change resolve to an instant")
    func daylightSaving() throws {
        let paris = TimeZone(identifier: "Europe/Paris")!
        // 2024-03-31 02:30 does not exist in Paris; 2024-10-27 02:30 happens twice.
        #expect(DateLiteral.parse("2024-03-31T01:59", timeZone: paris) == utc(2024, 3, 31, 0, 59))
        #expect(DateLiteral.parse("2024-03-31T03:00", timeZone: paris) == utc(2024, 3, 31, 1, 0))
        #expect(DateLiteral.parse("2024-03-31T02:30", timeZone: paris) != nil)
        #expect(DateLiteral.parse("2024-10-27T02:30", timeZone: paris) != nil)
        #expect(DateLiteral.parse("2024-10-27T04:00", timeZone: paris) == utc(2024, 10, 27, 3, 0))
    }
}
