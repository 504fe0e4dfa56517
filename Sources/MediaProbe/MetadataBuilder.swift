import Foundation

/// Turns what the containers and libexif said into validated ``MediaMetadata``: every rule that decides
/// whether a value is believed lives here.
struct MetadataBuilder {
    let context: ProbeContext
    let timeZone: TimeZone
    let now: Date
    let fileName: String?
    var metadata = MediaMetadata()

    /// The largest believable side of an image or movie, in pixels.
    static let maximumSide = 1_000_000
    /// The largest believable pixel count (≈ 69 gigapixels: more than the largest stitched panoramas).
    static let maximumArea = 1 << 36
    /// The longest believable movie: one week.
    static let maximumDuration: Double = 7 * 86_400

    init(context: ProbeContext, timeZone: TimeZone, now: Date, fileName: String?) {
        self.context = context
        self.timeZone = timeZone
        self.now = now
        self.fileName = fileName
    }

    // MARK: Size

    /// Sets the displayed size from a stored size, validating it.
    mutating func setSize(width: Int?, height: Int?, swap: Bool, field: String) {
        guard let width, let height else { return }
        guard width > 0, height > 0, width <= Self.maximumSide, height <= Self.maximumSide,
            width.multipliedReportingOverflow(by: height).partialValue <= Self.maximumArea
        else {
            context.note(.implausibleDimensions, field, "\(width)×\(height)")
            return
        }
        metadata.pixelWidth = swap ? height : width
        metadata.pixelHeight = swap ? width : height
    }

    // MARK: Images

    /// Fills in an image's metadata from its container and EXIF.
    mutating func buildImage(format: MediaFormat, container: ImageContainerInfo, exif: ExifValues?) {
        if container.exifOutOfReach {
            context.note(.exifOutOfReach, "EXIF", "the first IFD lies beyond the first 64 KiB")
        }
        // Orientation: HEIF's transform properties, else EXIF.
        if format.isHEIF {
            metadata.orientation = container.transformOrientation
        } else if let raw = exif?.orientation {
            if let orientation = UInt8(exactly: raw).flatMap(ImageOrientation.init(rawValue:)) {
                metadata.orientation = orientation
            } else {
                context.note(.invalidOrientation, "Orientation", "\(raw)")
            }
        }
        // Size: the container's; for raw files the EXIF pixel size when the container has none.
        var width = container.width
        var height = container.height
        if let exif, let x = exif.pixelXDimension, let y = exif.pixelYDimension, x > 0, y > 0 {
            if format.isRawImage && format != .dng || width == nil || height == nil {
                width = x
                height = y
            } else if let w = width, let h = height, (x, y) != (w, h), !format.isHEIF, format != .tiff,
                format != .dng
            {
                context.note(.inconsistent, "PixelXDimension", "EXIF says \(x)×\(y), the image is \(w)×\(h)")
            }
        }
        let swap = !format.isHEIF && (metadata.orientation?.swapsDimensions ?? false)
        setSize(width: width, height: height, swap: swap, field: "size")

        if let exif {
            metadata.make = exif.make
            metadata.model = exif.model
            setExifDate(exif)
            setExifLocation(exif)
            if let makerNote = exif.makerNote { readAppleMakerNote(makerNote) }
        }
        inferImageSubtypes(format: format, exif: exif, xmp: container.xmp)
    }

    private mutating func setExifDate(_ exif: ExifValues) {
        let candidates: [(String, String?, String?, String?, CreationDateSource)] = [
            ("DateTimeOriginal", exif.dateTimeOriginal, exif.subSecTimeOriginal,
             exif.offsetTimeOriginal ?? exif.offsetTime, .exifDateTimeOriginal),
            ("DateTimeDigitized", exif.dateTimeDigitized, exif.subSecTimeDigitized,
             exif.offsetTimeDigitized ?? exif.offsetTime, .exifDateTimeDigitized),
            ("DateTime", exif.dateTime, exif.subSecTime, exif.offsetTime, .exifDateTime),
        ]
        for (field, text, subSeconds, offsetText, source) in candidates {
            guard let text, !DateRules.isBlank(text) else { continue }
            guard let wall = DateRules.parseExifDateTime(text, subSeconds: subSeconds) else {
                context.note(.unparseableDate, field, text)
                continue
            }
            var offset: Int?
            if let offsetText, !DateRules.isBlank(offsetText) {
                offset = DateRules.parseOffset(Substring(offsetText))
                if offset == nil { context.note(.invalidTimeZoneOffset, field, offsetText) }
            }
            if accept(wall, offset: offset, field: field, raw: text, source: source) { return }
        }
    }

    /// Validates a wall-clock date and sets it as the creation date; false (with a problem) if implausible.
    private mutating func accept(
        _ wall: WallClockTime, offset: Int?, field: String, raw: String, source: CreationDateSource
    ) -> Bool {
        guard let date = DateRules.instant(of: wall, offset: offset, timeZone: timeZone),
            DateRules.isPlausible(date, now: now)
        else {
            context.note(.implausibleDate, field, raw)
            return false
        }
        metadata.creationDate = date
        metadata.creationDateOffset = offset
        metadata.creationDateSource = source
        return true
    }

    private mutating func setExifLocation(_ exif: ExifValues) {
        guard exif.hasGPSIFD, exif.gpsLatitude != nil || exif.gpsLongitude != nil else { return }
        func degrees(_ parts: [ExifRationalValue]?, field: String) -> Double? {
            guard let parts, !parts.isEmpty else {
                context.note(.malformedLocation, field, "missing")
                return nil
            }
            var total = 0.0
            for (index, part) in parts.prefix(3).enumerated() {
                guard let value = part.value else {
                    context.note(.malformedLocation, field, "zero denominator")
                    return nil
                }
                total += value / [1.0, 60.0, 3600.0][index]
            }
            return total
        }
        func sign(_ ref: String?, positive: Character, negative: Character, field: String) -> Double? {
            guard let first = ref?.uppercased().first else {
                context.note(.malformedLocation, field, "missing reference; assumed \(positive)")
                return 1
            }
            switch first {
            case positive: return 1
            case negative: return -1
            default:
                context.note(.malformedLocation, field, "reference \(ref ?? "")")
                return nil
            }
        }
        guard let latitude = degrees(exif.gpsLatitude, field: "GPSLatitude"),
            let longitude = degrees(exif.gpsLongitude, field: "GPSLongitude"),
            let latitudeSign = sign(exif.gpsLatitudeRef, positive: "N", negative: "S", field: "GPSLatitudeRef"),
            let longitudeSign = sign(exif.gpsLongitudeRef, positive: "E", negative: "W", field: "GPSLongitudeRef")
        else { return }
        var altitude: Double?
        if let value = exif.gpsAltitude?.first?.value {
            altitude = exif.gpsAltitudeRef == 1 ? -value : value
        }
        setLocation(latitude: latitude * latitudeSign, longitude: longitude * longitudeSign, altitude: altitude,
                    field: "GPS")
    }

    /// Validates and sets a location: finite, on the globe, not exactly 0,0 ("null island", what GPS chips
    /// write without a fix); altitude within −12 km…+100 km or dropped alone.
    mutating func setLocation(latitude: Double, longitude: Double, altitude: Double?, field: String) {
        guard latitude.isFinite, longitude.isFinite, abs(latitude) <= 90, abs(longitude) <= 180,
            !(latitude == 0 && longitude == 0)
        else {
            context.note(.implausibleLocation, field, "\(latitude), \(longitude)")
            return
        }
        var location = GeoLocation(latitude: latitude, longitude: longitude)
        if let altitude {
            if altitude.isFinite, altitude >= -12_000, altitude <= 100_000 {
                location.altitude = altitude
            } else {
                context.note(.implausibleAltitude, field, "\(altitude)")
            }
        }
        metadata.location = location
    }

    /// Apple's maker note (`Apple iOS\0`, version, `MM`, then an IFD whose offsets are relative to the note):
    /// tag 0x0A HDRImageType (3: HDR), 0x0B BurstUUID, 0x11 ContentIdentifier (Live Photo pairing).
    private mutating func readAppleMakerNote(_ note: [UInt8]) {
        let header = Array("Apple iOS".utf8) + [0]
        guard note.starts(with: header), note.count > 16 else { return }
        let structure = TIFFStructure(
            reader: BoundedReader(MemorySource(bytes: note), byteBudget: 1 << 16, readBudget: 256),
            bigEndian: note[12] == UInt8(ascii: "M"))
        guard let ifd = structure.directory(at: 14) else { return }
        if let entry = ifd.entry(0x000A), structure.integers(entry).first == 3 {
            metadata.mediaSubtypes.insert(.photoHDR)
        }
        if let burst = ifd.entry(0x000B).flatMap({ structure.text($0) }) {
            metadata.burstIdentifier = burst
        }
        if let identifier = ifd.entry(0x0011).flatMap({ structure.text($0) }) {
            metadata.contentIdentifier = identifier
            metadata.mediaSubtypeHints.insert(.photoLive)
        }
    }

    /// The subtype rules for stills (documented on ``MediaProbe``).
    private mutating func inferImageSubtypes(format: MediaFormat, exif: ExifValues?, xmp: String?) {
        let camera = exif?.hasCameraIdentity ?? false
        // Screenshot: EXIF UserComment "Screenshot" (what iOS and macOS write), or the same in XMP.
        let comment = exif?.userComment?.lowercased()
        if comment == "screenshot" || (xmp.map(Self.xmpSaysScreenshot) ?? false) {
            metadata.mediaSubtypes.insert(.photoScreenshot)
        } else if !camera, let fileName, Self.looksLikeScreenshotName(fileName) {
            metadata.mediaSubtypeHints.insert(.photoScreenshot)
        }
        // Panorama: Apple's CustomRendered 6, GPano XMP, or a camera photo at least twice as wide as high
        // (or high as wide).
        if exif?.customRendered == 6 || (xmp.map(Self.xmpSaysPanorama) ?? false) {
            metadata.mediaSubtypes.insert(.photoPanorama)
        } else if camera, let w = metadata.pixelWidth, let h = metadata.pixelHeight, max(w, h) >= 2 * min(w, h) {
            metadata.mediaSubtypes.insert(.photoPanorama)
        }
        // HDR: Apple's CustomRendered 2 (HDR, no original kept), 3 (HDR, original kept), 7 (portrait HDR).
        if let rendered = exif?.customRendered, [2, 3, 7].contains(rendered) {
            metadata.mediaSubtypes.insert(.photoHDR)
        }
        if metadata.burstIdentifier == nil, let fileName {
            metadata.burstIdentifier = Self.burstIdentifier(fileName: fileName)
        }
    }

    static func xmpSaysScreenshot(_ xmp: String) -> Bool {
        guard let range = xmp.range(of: "UserComment") else { return false }
        let tail = xmp[range.upperBound...].prefix(400)
        return tail.range(of: ">Screenshot<") != nil || tail.range(of: "=\"Screenshot\"") != nil
    }

    static func xmpSaysPanorama(_ xmp: String) -> Bool {
        xmp.contains("GPano:ProjectionType") || xmp.range(of: "GPano:UsePanoramaViewer=\"True\"", options: .caseInsensitive) != nil
            || xmp.range(of: "<GPano:UsePanoramaViewer>True", options: .caseInsensitive) != nil
    }

    /// Screenshot file names of the common systems and languages (a weak hint only).
    static let screenshotNameMarkers = [
        "screenshot", "screen shot", "screen_shot", "bildschirmfoto", "capture d’écran", "capture d'écran",
        "captura de pantalla", "captura de tela", "schermafbeelding", "schermata", "istantanea schermo",
        "skärmavbild", "skjermbilde", "skærmbillede", "näyttökuva", "kuvakaappaus", "zrzut ekranu",
        "snímek obrazovky", "снимок экрана", "スクリーンショット", "屏幕截图", "截屏", "螢幕截圖", "스크린샷",
    ]

    static func looksLikeScreenshotName(_ path: String) -> Bool {
        let name = (path.split(separator: "/").last.map(String.init) ?? path).lowercased()
        return screenshotNameMarkers.contains { name.contains($0) }
    }

    /// Burst identifiers in camera file names: Pixel-style `…_BURST<timestamp>…` (the timestamp, shared by
    /// the burst), or `<prefix>_BURST<n>` (the prefix, shared by the burst).
    static func burstIdentifier(fileName: String) -> String? {
        let name = fileName.split(separator: "/").last.map(String.init) ?? fileName
        guard let range = name.range(of: "_BURST", options: .caseInsensitive) else { return nil }
        let digits = name[range.upperBound...].prefix { $0.isASCII && $0.isNumber }
        guard !digits.isEmpty else { return nil }
        if digits.count >= 12 { return "BURST" + digits }
        let prefix = name[..<range.lowerBound]
        let stem = prefix.drop { $0.isASCII && $0.isNumber }  // Pixel's leading frame counter
        return stem.isEmpty ? nil : String(stem) + "_BURST"
    }

    // MARK: Movies

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
