public import Foundation

extension Wire {
    /// An instant with the UTC offset it is shown in: written `2024-07-14T18:02:10+02:00`, with milliseconds
    /// (`…10.250+02:00`) only when the instant has some, and `Z` for offset zero.
    ///
    /// The one way photosync writes a date, in JSON and in text. A capture date is shown in the capture's
    /// own offset when the file recorded one; every other date in the library's time zone (the one its
    /// moments use). Instants are kept to the millisecond, so that encoding and decoding give back an equal
    /// value.
    public struct Timestamp: Sendable, Hashable, Codable, CustomStringConvertible {
        /// The instant, in milliseconds since 1970-01-01T00:00:00Z.
        public let millisecondsSince1970: Int64
        /// The offset from UTC it is shown in, in seconds (whole minutes).
        public let utcOffset: Int

        /// The instant.
        public var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

        /// An instant shown at `utcOffset` seconds from UTC; the instant is rounded to the nearest
        /// millisecond (a date stored as seconds in a `Double` is rarely exact), the offset cut to the minute.
        public init(_ date: Date, utcOffset: Int) {
            self.init(millisecondsSince1970: Int64((date.timeIntervalSince1970 * 1000).rounded()), utcOffset: utcOffset)
        }

        init(millisecondsSince1970: Int64, utcOffset: Int) {
            self.millisecondsSince1970 = millisecondsSince1970
            self.utcOffset = utcOffset / 60 * 60
        }

        /// An instant shown in `timeZone`'s offset at that instant.
        public init(_ date: Date, timeZone: TimeZone) {
            self.init(date, utcOffset: timeZone.secondsFromGMT(for: date))
        }

        /// A capture date: in its own offset when known, else in `timeZone`.
        public init(capture date: Date, offset: Int?, timeZone: TimeZone) {
            if let offset { self.init(date, utcOffset: offset) } else { self.init(date, timeZone: timeZone) }
        }

        /// The ISO 8601 text.
        public var description: String {
            let milliseconds = millisecondsSince1970
            let seconds = Int(milliseconds.floorDivided(by: 1000)) + utcOffset
            let fraction = Int(milliseconds - milliseconds.floorDivided(by: 1000) * 1000)
            let days = seconds.floorDivided(by: 86_400)
            let secondOfDay = seconds - days * 86_400
            let (year, month, day) = Self.civil(fromDays: days)
            var text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", year, month, day,
                              secondOfDay / 3600, secondOfDay % 3600 / 60, secondOfDay % 60)
            if fraction != 0 { text += String(format: ".%03d", fraction) }
            if utcOffset == 0 { return text + "Z" }
            let magnitude = abs(utcOffset)
            return text + String(format: "%@%02d:%02d", utcOffset < 0 ? "-" : "+", magnitude / 3600, magnitude % 3600 / 60)
        }

        /// Parses the text ``description`` writes (any number of fraction digits, `Z` or `±hh:mm`).
        public init?(_ text: String) {
            let pattern = /(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(\.\d+)?(Z|[+-]\d{2}:\d{2})/
            guard let match = text.wholeMatch(of: pattern),
                let year = Int(match.1), let month = Int(match.2), let day = Int(match.3),
                let hour = Int(match.4), let minute = Int(match.5), let second = Int(match.6),
                (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
            else { return nil }
            var offset = 0
            if match.8 != "Z" {
                let sign = match.8.first == "-" ? -1 : 1
                let digits = match.8.dropFirst().split(separator: ":").compactMap { Int($0) }
                offset = sign * (digits[0] * 3600 + digits[1] * 60)
            }
            let digits = match.7.map { String($0.dropFirst().prefix(3)) } ?? ""
            let fraction = Int64(digits.padding(toLength: 3, withPad: "0", startingAt: 0)) ?? 0
            let local = Self.days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
            self.init(millisecondsSince1970: Int64(local - offset) * 1000 + fraction, utcOffset: offset)
        }

        /// Decodes the JSON form, accepting what the type says it accepts.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let value = Timestamp(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date with an offset: \(text)")
            }
            self = value
        }

        /// Encodes the JSON form.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(description)
        }

        /// Year, month, day of a count of days since 1970-01-01 (proleptic Gregorian; Howard Hinnant's method).
        private static func civil(fromDays days: Int) -> (Int, Int, Int) {
            let z = days + 719_468
            let era = z.floorDivided(by: 146_097)
            let dayOfEra = z - era * 146_097
            let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
            let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
            let monthIndex = (5 * dayOfYear + 2) / 153
            let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
            let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
            return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
        }

        /// The inverse of ``civil(fromDays:)``.
        private static func days(fromCivil year: Int, _ month: Int, _ day: Int) -> Int {
            let y = month <= 2 ? year - 1 : year
            let era = y.floorDivided(by: 400)
            let yearOfEra = y - era * 400
            let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
            let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
            return era * 146_097 + dayOfEra - 719_468
        }
    }
}

extension BinaryInteger {
    /// Division rounding toward minus infinity.
    fileprivate func floorDivided(by divisor: Self) -> Self {
        let quotient = self / divisor
        return (self % divisor != 0 && (self < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }
}
