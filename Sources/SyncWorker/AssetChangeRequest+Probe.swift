public import MediaProbe
public import PhotoLibrary

extension AssetChangeRequest {
    /// Sets what a file's headers say on an asset being created or updated: media type and type identifier
    /// (by content), displayed pixel size, capture date with its UTC offset, file modification date,
    /// location, duration, media subtypes (panorama, HDR, screenshot) and burst identifier.
    ///
    /// It never sets `photoLive`, which one file cannot prove (it clears it when rewriting an asset): the
    /// mirror sets it when the still's movie is beside it (see the worker's Live Photo pairing rule).
    ///
    /// Values the probe could not read or rejected (see ``MediaProbe``'s validation rules) are left at
    /// their defaults, so a file whose metadata lies is still mirrored with what is known.
    public func apply(_ probe: ProbeResult) {
        apply(AssetFileProperties(probe))
    }
}

extension AssetFileProperties {
    /// The properties a probe read (see ``AssetChangeRequest/apply(_:)-(ProbeResult)``).
    init(_ probe: ProbeResult) {
        self.init()
        let metadata = probe.metadata
        if let format = probe.format {
            mediaType = format.kind == .video ? .video : .image
            uniformTypeIdentifier = format.typeIdentifier
        }
        pixelWidth = metadata.pixelWidth ?? 0
        pixelHeight = metadata.pixelHeight ?? 0
        creationDate = metadata.creationDate
        creationTimeZoneOffset = metadata.creationDateOffset
        modificationDate = probe.file?.modificationDate
        location = metadata.location.map { Location(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude) }
        duration = metadata.duration ?? 0
        mediaSubtypes = AssetMediaSubtypes(rawValue: Int(metadata.mediaSubtypes.rawValue))
        burstIdentifier = metadata.burstIdentifier
    }
}
