import Foundation
import SeededRandom
import Testing

@testable import PhotoLibrary

/// The moment's day key by arithmetic, against the Gregorian calendar it replaces (the oracle).
@Suite("Moment day keys")
struct MomentDayTests {
    static func calendarKey(_ seconds: Double) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = calendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: seconds))
        return String(format: "%04d-%02d-%02d", components.year ?? 0, components.month ?? 0, components.day ?? 0)
    }

    static func key(_ seconds: Double, offset: Int? = 0) -> String {
        var row = AssetRow(id: 1, localIdentifier: "x", addedDate: 0)
        row.creationDate = seconds
        row.creationTimeZoneOffset = offset
        return MomentDay.key(for: row, timeZone: TimeZone(identifier: "UTC")!)
    }

    @Test("Random instants from 1601 to 9999, with offsets: the calendar's day", arguments: [1, 2] as [UInt64])
    func random(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<20_000 {
            let seconds = Double.random(in: -11_644_473_600..<253_402_300_800, using: &random)
            let offset = random.int(in: -50_400...50_400)
            #expect(Self.key(seconds - Double(offset), offset: offset) == Self.calendarKey(seconds), "\(seconds) \(offset)")
        }
    }

    @Test("Edges: the epoch, leap days, centuries, the range's ends and beyond (the calendar itself there)")
    func edges() {
        let days: [Double] = [
            0, -1, 1, 59, 60, 365, 10_957, 11_016, 11_017, -25_508, -25_509, -134_774, -134_775, 2_932_896, 2_932_897,
            -141_427, -200_000, 3_000_000,
        ]
        for day in days {
            for second in [0, 0.5, 43_200, 86_399, 86_399.75] {
                let seconds = day * 86_400 + second
                #expect(Self.key(seconds) == Self.calendarKey(seconds), "\(seconds)")
            }
        }
        #expect(Self.key(-0.5) == "1969-12-31")
        #expect(Self.key(951_782_400) == "2000-02-29")
    }

    @Test("A year's key prefix is Foundation's %04d- of it, for every year from -20 to 10,020")
    func yearPrefix() {
        for year in -20...10_020 {
            #expect(MomentDay.yearPrefix(year) == String(format: "%04d-", year), "\(year)")
        }
    }
}
