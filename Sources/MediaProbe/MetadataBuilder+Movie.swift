import Foundation

/// Movies: size, duration, QuickTime metadata keys, location and date.
extension MetadataBuilder {
    mutating func buildMovie(_ movie: MovieInfo) {
        setSize(width: movie.width, height: movie.height, swap: false, field: "moov/trak/tkhd")
        if !movie.hasVideoTrack { context.note(.noVideoTrack, "moov/trak", "\(movie.trackCount) tracks, none video") }
        if let units = movie.durationUnits, units != UInt64.max, units > 0 {
            if let scale = movie.timescale, scale > 0 {
                let seconds = Double(units) / Double(scale)
                if seconds <= Self.maximumDuration {
                    metadata.duration = seconds
                } else {
                    context.note(.implausibleDuration, "moov/mvhd", "\(seconds) s")
                }
            } else {
                context.note(.implausibleDuration, "moov/mvhd", "timescale 0")
            }
        }
        let meta = movie.metadata
        metadata.make = meta["com.apple.quicktime.make"] ?? meta["©mak"]
        metadata.model = meta["com.apple.quicktime.model"] ?? meta["©mod"]
        metadata.contentIdentifier = meta["com.apple.quicktime.content.identifier"]
        if let text = meta["com.apple.quicktime.location.ISO6709"] ?? meta["©xyz"] {
            if let (latitude, longitude, altitude) = Self.parseISO6709(text) {
                setLocation(latitude: latitude, longitude: longitude, altitude: altitude, field: "ISO6709")
            } else {
                context.note(.malformedLocation, "ISO6709", text)
            }
        } else if let loci = movie.userDataLocation {
            // 3GPP gives no way to say "no altitude": 0 is taken as absent.
            setLocation(latitude: loci.latitude, longitude: loci.longitude,
                        altitude: loci.altitude == 0 ? nil : loci.altitude, field: "loci")
        }
        setMovieDate(movie)
    }

    private mutating func setMovieDate(_ movie: MovieInfo) {
        let candidates: [(String, CreationDateSource)] = [
            ("com.apple.quicktime.creationdate", .quickTimeCreationDate), ("©day", .quickTimeUserData),
        ]
        for (key, source) in candidates {
            guard let text = movie.metadata[key], !DateRules.isBlank(text) else { continue }
            guard let (wall, offset) = DateRules.parseISO8601(text) else {
                context.note(.unparseableDate, key, text)
                continue
            }
            if accept(wall, offset: offset, field: key, raw: text, source: source) { return }
        }
        guard let seconds1904 = movie.creationSeconds1904, seconds1904 != 0 else { return }
        let unix = Double(seconds1904) - 2_082_844_800
        let date = Date(timeIntervalSince1970: unix)
        guard seconds1904 < UInt64(1) << 40, date >= DateRules.earliestMovieHeader, DateRules.isPlausible(date, now: now)
        else {
            context.note(.implausibleDate, "moov/mvhd", "\(seconds1904) s since 1904")
            return
        }
        metadata.creationDate = date
        metadata.creationDateOffset = nil
        metadata.creationDateSource = .movieHeader
    }

    /// ISO 6709 `±DD.DDDD±DDD.DDDD[±AAA.AAA][CRS…]/`, also with DDMM(.MM) / DDMMSS(.SS) integer parts.
    static func parseISO6709(_ text: String) -> (Double, Double, Double?)? {
        var fields: [String] = []
        var current = ""
        for character in text {
            if character == "+" || character == "-" {
                if !current.isEmpty { fields.append(current) }
                current = String(character)
            } else if character == "/" || character == "C" {
                break
            } else if current.isEmpty {
                return nil
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { fields.append(current) }
        guard fields.count >= 2, fields.count <= 3 else { return nil }
        func coordinate(_ field: String, degreeDigits: Int) -> Double? {
            let sign: Double = field.hasPrefix("-") ? -1 : 1
            let body = field.dropFirst()
            let integerDigits = body.prefix { $0 != "." }.count
            guard body.allSatisfy({ ($0.isASCII && $0.isNumber) || $0 == "." }), let value = Double(body) else {
                return nil
            }
            switch integerDigits - degreeDigits {
            case 0: return sign * value
            case 2:  // DDMM.MM
                let degrees = (value / 100).rounded(.down)
                return sign * (degrees + (value - degrees * 100) / 60)
            case 4:  // DDMMSS.SS
                let degrees = (value / 10_000).rounded(.down)
                let minutes = ((value - degrees * 10_000) / 100).rounded(.down)
                return sign * (degrees + minutes / 60 + (value - degrees * 10_000 - minutes * 100) / 3600)
            default: return nil
            }
        }
        guard let latitude = coordinate(fields[0], degreeDigits: 2),
            let longitude = coordinate(fields[1], degreeDigits: 3)
        else { return nil }
        var altitude: Double?
        if fields.count == 3 {
            let body = fields[2].dropFirst()
            guard let value = Double(body) else { return nil }
            altitude = fields[2].hasPrefix("-") ? -value : value
        }
        return (latitude, longitude, altitude)
    }
}

extension MediaFormat {
    /// HEIF-family formats, whose display orientation comes from `irot`/`imir`, not EXIF.
    var isHEIF: Bool { self == .heic || self == .heics || self == .heif || self == .avif }

    /// Formats stored as a TIFF structure.
    var isTIFFBased: Bool {
        switch self {
        case .tiff, .dng, .cr2, .nef, .nrw, .arw, .sr2, .srf, .orf, .rw2, .pef, .srw, .threeFR, .iiq, .erf, .dcr,
            .kdc, .mos, .mef:
            true
        default: false
        }
    }

    /// Formats stored as ISO base media boxes (or QuickTime atoms).
    var isISOBMFF: Bool { isHEIF || kind == .video || self == .cr3 }
}
