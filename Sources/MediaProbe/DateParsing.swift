import Foundation

/// A calendar date and wall-clock time as written in a file, before any time zone is applied.
struct WallClockTime: Equatable {
    var year: Int, month: Int, day: Int
    var hour: Int, minute: Int, second: Int
    var fraction: Double = 0

    /// Seconds since 1970-01-01T00:00:00 as if this wall-clock time were UTC; nil for impossible fields.
    var secondsAsUTC: Double? {
        guard (1...9999).contains(year), (1...12).contains(month), day >= 1,
            day <= DateRules.daysInMonth(year: year, month: month), (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second)
        else { return nil }
        let days = DateRules.daysFromCivil(year: year, month: month, day: day)
        return Double(days) * 86_400 + Double(hour * 3600 + minute * 60 + min(second, 59)) + fraction
    }
}

/// Parsing and validation of the dates found in media files.
enum DateRules {
    /// The earliest believable capture date: 1826-01-01T00:00:00Z (the first surviving photograph).
    static let earliest = Date(timeIntervalSince1970: Double(daysFromCivil(year: 1826, month: 1, day: 1)) * 86_400)
    /// How far after "now" a date may lie (clock skew between cameras and this machine).
    static let futureTolerance: TimeInterval = 86_400
    /// The earliest believable movie-header (`mvhd`) time: 1970-01-01. Earlier values are the 1904 epoch
    /// confused with the Unix one, or a zero-based clock.
    static let earliestMovieHeader = Date(timeIntervalSince1970: 0)
    /// The largest time-zone offset accepted (±18 hours, as ISO 8601 and Foundation allow).
    static let maximumOffset = 18 * 3600

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func daysInMonth(year: Int, month: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Whether a date string is EXIF's way of saying "unknown": empty, or only blanks, zeros and separators.
    static func isBlank(_ text: String) -> Bool {
        text.allSatisfy { $0 == " " || $0 == "0" || $0 == ":" || $0 == "-" || $0 == "T" || $0 == "." }
    }

    /// The numbers in a string, each with its digit count (see ``DateNumbers``).
    private static func numbers(_ text: Substring) -> DateNumbers {
        var result = DateNumbers()
        var current = 0
        var digits = 0
        for byte in text.utf8 {
            if byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") {
                if digits < 12 { current = current * 10 + Int(byte - UInt8(ascii: "0")) }
                digits += 1
            } else if digits > 0 {
                result.append(value: current, digits: digits)
                current = 0
                digits = 0
            }
        }
        if digits > 0 { result.append(value: current, digits: digits) }
        return result
    }

    /// Parses EXIF's `YYYY:MM:DD HH:MM:SS` (also tolerating `-` or `/` in the date, `T` as separator and
    /// missing seconds). Sub-seconds come from the separate SubSecTime tag.
    static func parseExifDateTime(_ text: String, subSeconds: String? = nil) -> WallClockTime? {
        let parts = numbers(Substring(text))
        guard parts.count >= 5, parts.count <= 7, parts[0].digits == 4,
            parts[1...].prefix(5).allSatisfy({ $0.digits <= 2 })
        else { return nil }
        var time = WallClockTime(
            year: parts[0].value, month: parts[1].value, day: parts[2].value, hour: parts[3].value,
            minute: parts[4].value, second: parts.count > 5 ? parts[5].value : 0)
        if let subSeconds, let digits = subSeconds.split(separator: " ").first, digits.allSatisfy(\.isASCII),
            digits.allSatisfy(\.isNumber), !digits.isEmpty, digits.count <= 9, let value = Double("0." + digits)
        {
            time.fraction = value
        }
        return time.secondsAsUTC == nil ? nil : time
    }

    /// Parses a UTC offset: `+HH:MM`, `-HHMM`, `+HH`, or `Z` (blanks around it ignored). Returns seconds east
    /// of UTC; nil if invalid.
    static func parseOffset(_ text: Substring) -> Int? {
        var bytes = text.utf8[...]
        while let first = bytes.first, first == 0x20 || first == 0x09 { bytes = bytes.dropFirst() }
        while let last = bytes.last, last == 0x20 || last == 0x09 { bytes = bytes.dropLast() }
        if bytes.count == 1, bytes.first == UInt8(ascii: "Z") || bytes.first == UInt8(ascii: "z") { return 0 }
        guard let sign = bytes.first, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        // Colons are left out wherever they are; two or four digits remain: hours, then minutes.
        var value = 0
        var digits = 0
        for byte in bytes.dropFirst() where byte != UInt8(ascii: ":") {
            guard byte >= 0x30 && byte <= 0x39, digits < 4 else { return nil }
            value = value * 10 + Int(byte - 0x30)
            digits += 1
        }
        guard digits == 2 || digits == 4 else { return nil }
        let hours = digits == 4 ? value / 100 : value
        let minutes = digits == 4 ? value % 100 : 0
        guard minutes < 60 else { return nil }
        let seconds = hours * 3600 + minutes * 60
        guard seconds <= maximumOffset else { return nil }
        return sign == UInt8(ascii: "-") ? -seconds : seconds
    }

    /// Parses ISO 8601 as QuickTime writes it: `YYYY-MM-DD[THH:MM[:SS[.fff]]][Z|±HH[:]MM]` (also with
    /// a space for `T`). Returns the wall-clock time and the offset when there is one.
    static func parseISO8601(_ text: String) -> (time: WallClockTime, offset: Int?)? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        // The offset: a trailing Z, or the last + or - after the time part.
        var body = Substring(trimmed)
        var offset: Int?
        if body.hasSuffix("Z") || body.hasSuffix("z") {
            offset = 0
            body = body.dropLast()
        } else if let timeStart = body.firstIndex(where: { $0 == "T" || $0 == " " }),
            let signIndex = body[timeStart...].lastIndex(where: { $0 == "+" || $0 == "-" })
        {
            guard let parsed = parseOffset(body[signIndex...]) else { return nil }
            offset = parsed
            body = body[..<signIndex]
        }
        let fractionText: Substring?
        if let dot = body.lastIndex(of: "."), body[..<dot].contains(where: { $0 == "T" || $0 == " " }) {
            fractionText = body[body.index(after: dot)...]
            body = body[..<dot]
        } else {
            fractionText = nil
        }
        let parts = numbers(body)
        guard parts.count >= 3, parts[0].digits == 4, parts.count != 4, parts.count <= 6 else { return nil }
        var time = WallClockTime(
            year: parts[0].value, month: parts[1].value, day: parts[2].value,
            hour: parts.count > 3 ? parts[3].value : 0, minute: parts.count > 4 ? parts[4].value : 0,
            second: parts.count > 5 ? parts[5].value : 0)
        if let fractionText, !fractionText.isEmpty, fractionText.count <= 9,
            fractionText.allSatisfy({ $0.isASCII && $0.isNumber }), let fraction = Double("0." + fractionText)
        {
            time.fraction = fraction
        }
        guard time.secondsAsUTC != nil else { return nil }
        return (time, offset)
    }

    /// Whether an ISO 8601 text is a date of only a year (`2023`) or a year and month (`2023-07`), as XMP
    /// allows.
    static func isPartialISO8601(_ text: String) -> Bool {
        let parts = numbers(Substring(text.trimmingCharacters(in: .whitespaces)))
        return parts.count <= 2 && parts.first?.digits == 4 && text.utf8.allSatisfy {
            ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "-") || $0 == 0x20
        }
    }

    /// The instant of a wall-clock time: with an explicit offset, or else in `timeZone` (daylight saving
    /// time included; for a wall-clock time skipped or repeated by a transition, the offset in force just
    /// before it).
    static func instant(of time: WallClockTime, offset: Int?, timeZone: TimeZone) -> Date? {
        guard let wall = time.secondsAsUTC else { return nil }
        if let offset { return Date(timeIntervalSince1970: wall - Double(offset)) }
        let first = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall))
        let second = timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: wall - Double(first)))
        return Date(timeIntervalSince1970: wall - Double(second))
    }

    /// Whether a date is believable: not before ``earliest``, not more than a day after `now`.
    static func isPlausible(_ date: Date, now: Date) -> Bool {
        date >= earliest && date <= now.addingTimeInterval(futureTolerance)
    }
}
