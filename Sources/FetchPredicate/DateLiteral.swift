import Foundation

/// Dates written as strings in the predicate text format.
///
/// Accepted forms (ISO 8601 subset, proleptic Gregorian calendar, years 0001–9999):
/// - `2024-01-01`: midnight in the time zone given to the parser;
/// - `2024-01-01T10:30`, `2024-01-01T10:30:15`, `2024-01-01T10:30:15.250` (1–9 fractional digits): in
///   that time zone; `t` or a space may replace `T`;
/// - any of the timed forms followed by `Z`, `+02:00`, `-0530` or `+02`: at that UTC offset.
///
/// Whole seconds are computed exactly; a fraction `.f` with n digits adds `Double(f) / 10^n`.
package enum DateLiteral {
    /// Parses a date string, or returns nil if it is malformed or names a date that does not exist
    /// (e.g. February 30th).
    static func parse(_ text: String, timeZone: TimeZone) -> Date? {
        var reader = Reader(bytes: Array(text.utf8))
        guard let year = reader.digits(4), reader.take("-"), let month = reader.digits(2), reader.take("-"),
            let day = reader.digits(2), year >= 1, (1...12).contains(month),
            (1...daysInMonth(year: year, month: month)).contains(day)
        else { return nil }
        var hour: Int64 = 0
        var minute: Int64 = 0
        var second: Int64 = 0
        var fraction: (value: Int64, digits: Int)?
        var offset: Int64?
        if !reader.isAtEnd {
            guard reader.take("T") || reader.take("t") || reader.take(" "),
                let h = reader.digits(2), reader.take(":"), let m = reader.digits(2)
            else { return nil }
            hour = h
            minute = m
            if reader.take(":") {
                guard let s = reader.digits(2) else { return nil }
                second = s
                if reader.take(".") {
                    var value: Int64 = 0
                    var count = 0
                    while let digit = reader.digit() {
                        guard count < 9 else { return nil }
                        value = value * 10 + digit
                        count += 1
                    }
                    guard count > 0 else { return nil }
                    fraction = (value, count)
                }
            }
            if reader.take("Z") || reader.take("z") {
                offset = 0
            } else if reader.peek == UInt8(ascii: "+") || reader.peek == UInt8(ascii: "-") {
                let sign: Int64 = reader.take("-") ? -1 : 1
                _ = reader.take("+")
                guard let offsetHours = reader.digits(2), offsetHours <= 23 else { return nil }
                var offsetMinutes: Int64 = 0
                if !reader.isAtEnd {
                    _ = reader.take(":")
                    guard let m = reader.digits(2), m <= 59 else { return nil }
                    offsetMinutes = m
                }
                offset = sign * (offsetHours * 3600 + offsetMinutes * 60)
            }
            guard reader.isAtEnd, hour <= 23, minute <= 59, second <= 59 else { return nil }
        }
        let civil = daysFromCivil(year: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second
        let seconds: Int64
        if let offset {
            seconds = civil - offset
        } else {
            // The instant whose local time is `civil`: subtract the zone's offset at a first guess, then
            // correct once if the offset differs there (around daylight-saving transitions).
            let first = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(civil))))
            let second = Int64(timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: Double(civil - first))))
            seconds = civil - second
        }
        var interval = Double(seconds)
        if let fraction {
            interval += Double(fraction.value) / pow10(fraction.digits)
        }
        return Date(timeIntervalSince1970: interval)
    }

    /// The date as a quoted UTC string literal (`"2024-01-01T10:30:00Z"`, with the fewest fractional digits
    /// that parse back to the same `timeIntervalSince1970`), or as a number of seconds since 1970 when no
    /// string does (years outside 0001–9999, sub-nanosecond fractions).
    static func format(_ date: Date) -> String {
        let interval = date.timeIntervalSince1970
        if let string = formatUTC(interval) {
            return "\"\(string)\""
        }
        return PredicateValue.formatDouble(interval)
    }

    private static func formatUTC(_ interval: Double) -> String? {
        guard interval.isFinite, abs(interval) < 3e11 else { return nil }
        let whole = interval.rounded(.down)
        let seconds = Int64(whole)
        let fraction = interval - whole
        var days = seconds / 86_400
        var remainder = seconds % 86_400
        if remainder < 0 {
            days -= 1
            remainder += 86_400
        }
        let (year, month, day) = civilFromDays(days)
        guard (1...9999).contains(year) else { return nil }
        let base =
            pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(remainder / 3600, 2) + ":"
            + pad(remainder % 3600 / 60, 2) + ":" + pad(remainder % 60, 2)
        let utc = TimeZone(secondsFromGMT: 0) ?? TimeZone.current
        for digits in 0...9 {
            let candidate: String
            if digits == 0 {
                candidate = base + "Z"
            } else {
                let scale = pow10(digits)
                let scaled = (fraction * scale).rounded()
                guard scaled < scale else { continue }
                candidate = base + "." + pad(Int64(scaled), digits) + "Z"
            }
            if parse(candidate, timeZone: utc)?.timeIntervalSince1970 == interval {
                return candidate
            }
        }
        return nil
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    private static func pow10(_ exponent: Int) -> Double {
        var result = 1.0
        for _ in 0..<exponent { result *= 10 }
        return result
    }

    static func isLeapYear(_ year: Int64) -> Bool {
        (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
    }

    static func daysInMonth(year: Int64, month: Int64) -> Int64 {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a number of days since 1970-01-01. (Also PhotoLibrary's moment day keys.)
    package static func civilFromDays(_ days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var isAtEnd: Bool { index >= bytes.count }
        var peek: UInt8? { isAtEnd ? nil : bytes[index] }

        mutating func take(_ character: Unicode.Scalar) -> Bool {
            guard peek == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int64? {
            guard let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            index += 1
            return Int64(byte - UInt8(ascii: "0"))
        }

        mutating func digits(_ count: Int) -> Int64? {
            var value: Int64 = 0
            for _ in 0..<count {
                guard let digit = digit() else { return nil }
                value = value * 10 + digit
            }
            return value
        }
    }
}
