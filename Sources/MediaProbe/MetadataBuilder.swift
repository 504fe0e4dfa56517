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

    /// Fills in an image's metadata from its container, EXIF, XMP and maker note.
    mutating func buildImage(format: MediaFormat, container: ImageContainerInfo, exif: ExifValues?) {
        if container.exifOutOfReach {
            context.note(.exifOutOfReach, "EXIF", "the first IFD lies beyond the first 64 KiB")
        }
        let xmp = container.xmp.flatMap(readXMP)
        setOrientation(format: format, container: container, exif: exif)
        setImageSize(format: format, container: container, exif: exif)
        metadata.make = exif?.make ?? xmp?.make
        metadata.model = exif?.model ?? xmp?.model
        if let exif {
            setExifDate(exif)
            setExifLocation(exif)
        }
        if metadata.creationDate == nil, let xmp { setXMPDate(xmp) }
        let notes = exif?.makerNote.map { MakerNotes.read($0, bigEndian: exif?.bigEndian ?? false) } ?? MakerNoteFacts()
        if let identifier = notes.contentIdentifier {
            metadata.contentIdentifier = identifier
            metadata.mediaSubtypeHints.insert(.photoLive)
        }
        inferImageSubtypes(format: format, exif: exif, xmp: xmp, makerNote: notes)
    }

    /// The XMP packet's values; a packet that cannot be read is a `malformed` problem, never a failure.
    private func readXMP(_ packet: ArraySlice<UInt8>) -> XMPValues? {
        switch XMPParser.parse(packet) {
        case .success(let values):
            return values
        case .failure(let failure):
            context.note(.malformed, "XMP", failure.description)
            return nil
        }
    }

    /// Orientation: HEIF's transform properties, else EXIF's (1…8).
    private mutating func setOrientation(format: MediaFormat, container: ImageContainerInfo, exif: ExifValues?) {
        if format.isHEIF {
            metadata.orientation = container.transformOrientation
        } else if let raw = exif?.orientation {
            if let orientation = UInt8(exactly: raw).flatMap(ImageOrientation.init(rawValue:)) {
                metadata.orientation = orientation
            } else {
                context.note(.invalidOrientation, "Orientation", "\(raw)")
            }
        }
    }

    /// Size: the container's; for raw files (and containers without one) EXIF's pixel size. EXIF sizes that
    /// disagree with the image are a problem only when no edit explains them (``ExifDimensions``).
    private mutating func setImageSize(format: MediaFormat, container: ImageContainerInfo, exif: ExifValues?) {
        var width = container.width
        var height = container.height
        if let exif, let x = exif.pixelXDimension, let y = exif.pixelYDimension, x > 0, y > 0 {
            if format.isRawImage && format != .dng || width == nil || height == nil {
                width = x
                height = y
            } else if let w = width, let h = height, !format.isHEIF, format != .tiff, format != .dng,
                !ExifDimensions.explain(exif: (x, y), image: (w, h))
            {
                context.note(.inconsistent, "PixelXDimension", "EXIF says \(x)×\(y), the image is \(w)×\(h)")
            }
        }
        let swap = !format.isHEIF && (metadata.orientation?.swapsDimensions ?? false)
        setSize(width: width, height: height, swap: swap, field: "size")
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

    /// XMP dates, for files whose EXIF has none: `exif:DateTimeOriginal`, then `photoshop:DateCreated`, then
    /// `xmp:CreateDate` (ISO 8601; without an offset, in the caller's zone). A date of only a year or a month
    /// (which XMP allows) is too vague to place a photo and is skipped without a problem.
    private mutating func setXMPDate(_ xmp: XMPValues) {
        let candidates: [(String, String?, CreationDateSource)] = [
            ("XMP exif:DateTimeOriginal", xmp.dateTimeOriginal, .xmpDateTimeOriginal),
            ("XMP photoshop:DateCreated", xmp.dateCreated, .xmpDateCreated),
            ("XMP xmp:CreateDate", xmp.createDate, .xmpCreateDate),
        ]
        for (field, text, source) in candidates {
            guard let text, !DateRules.isBlank(text), !DateRules.isPartialISO8601(text) else { continue }
            guard let (wall, offset) = DateRules.parseISO8601(text) else {
                context.note(.unparseableDate, field, text)
                continue
            }
            if accept(wall, offset: offset, field: field, raw: text, source: source) { return }
        }
    }

    /// Validates a wall-clock date and sets it as the creation date; false (with a problem) if implausible.
    mutating func accept(
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
}
