package import Foundation

/// What a file's headers say about an asset: the properties a writer that mirrors files sets on every asset
/// it creates or rewrites.
package struct AssetFileProperties: Sendable {
    /// Nil leaves the media type and type identifier as they are.
    package var mediaType: AssetMediaType?
    package var uniformTypeIdentifier: String?
    package var pixelWidth = 0
    package var pixelHeight = 0
    package var creationDate: Date?
    package var creationTimeZoneOffset: Int?
    package var modificationDate: Date?
    package var location: Location?
    package var duration: Double = 0
    package var mediaSubtypes: AssetMediaSubtypes = []
    package var burstIdentifier: String?

    package init() {}
}

extension AssetChangeRequest {
    /// Sets every property of `properties` with one change of the asset as the block has it: what setting
    /// each through its own setter does (the same values in the same columns), for a writer that sets the same
    /// dozen on every asset of a large block — the setters each take a step of the block (its checks, the
    /// asset found among those pending) that a scan would otherwise take twelve times per file.
    ///
    /// The media type and type identifier are left as they are when ``AssetFileProperties/mediaType`` is nil.
    package func apply(_ properties: AssetFileProperties) {
        edit { row in
            if let mediaType = properties.mediaType {
                row.mediaType = mediaType.rawValue
                row.uniformTypeIdentifier = properties.uniformTypeIdentifier
            }
            row.pixelWidth = properties.pixelWidth
            row.pixelHeight = properties.pixelHeight
            row.creationDate = properties.creationDate?.timeIntervalSince1970
            row.creationTimeZoneOffset = properties.creationTimeZoneOffset
            row.modificationDate = properties.modificationDate?.timeIntervalSince1970
            row.location = properties.location
            row.duration = properties.duration
            row.mediaSubtypes = properties.mediaSubtypes.rawValue
            row.burstIdentifier = properties.burstIdentifier
        }
    }
}
