import PhotosyncWire

/// Assets for people: one line in a list, or a field per line for `show`.
enum AssetText {
    /// `ID  2024-07-14T18:02:10+02:00  image  4032x3024  Holidays/Beach/IMG_0102.jpg` (the file name when the
    /// asset is not mirrored; `undated` without a date).
    static func line(_ asset: Wire.Asset) -> String {
        [asset.localIdentifier, asset.creationDate?.description ?? "undated", asset.mediaType,
         "\(asset.pixelWidth)x\(asset.pixelHeight)", asset.path ?? asset.originalFilename].joined(separator: "  ")
    }

    /// Every field of the JSON shape, in its order, aligned; `-` for no value.
    static func fields(_ asset: Wire.Asset) -> [(String, String)] {
        func text(_ value: (any CustomStringConvertible)?) -> String { value.map { "\($0)" } ?? "-" }
        return [
            ("localIdentifier", asset.localIdentifier), ("path", text(asset.path)), ("originalFilename", asset.originalFilename),
            ("mediaType", asset.mediaType),
            ("mediaSubtypes", asset.mediaSubtypes.isEmpty ? "-" : asset.mediaSubtypes.joined(separator: ", ")),
            ("pixelWidth", "\(asset.pixelWidth)"), ("pixelHeight", "\(asset.pixelHeight)"),
            ("creationDate", text(asset.creationDate)), ("modificationDate", text(asset.modificationDate)),
            ("addedDate", asset.addedDate.description), ("duration", asset.duration == 0 ? "0" : "\(asset.duration) s"),
            ("latitude", text(asset.latitude)), ("longitude", text(asset.longitude)), ("altitude", text(asset.altitude)),
            ("isFavorite", "\(asset.isFavorite)"), ("isHidden", "\(asset.isHidden)"),
            ("burstIdentifier", text(asset.burstIdentifier)), ("representsBurst", "\(asset.representsBurst)"),
            ("hasAdjustments", "\(asset.hasAdjustments)"), ("uniformTypeIdentifier", text(asset.uniformTypeIdentifier)),
            ("contentHash", text(asset.contentHash)), ("fileSize", "\(asset.fileSize) bytes"),
        ]
    }
}
