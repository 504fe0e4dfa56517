public import Foundation
import GRDB

/// An app's description of an edit (PhotoKit's `PHAdjustmentData`): opaque to the library, kept with the
/// rendered result so that the app (or another that understands the format) can change the edit later.
public struct AdjustmentData: Sendable, Hashable, Codable {
    /// Who wrote the data, in reverse-DNS form (`com.example.filters`).
    public let formatIdentifier: String
    /// The version of that format (`1.0`).
    public let formatVersion: String
    /// The edit itself, in the app's format.
    public let data: Data

    public init(formatIdentifier: String, formatVersion: String, data: Data) {
        self.formatIdentifier = formatIdentifier
        self.formatVersion = formatVersion
        self.data = data
    }
}

/// An asset's current edit, as stored (see ``PhotoLibrary/fetchAdjustment(for:)``).
public struct AssetAdjustment: Sendable, Hashable {
    /// The app's description of the edit.
    public let adjustmentData: AdjustmentData
    /// XXH3-128 of the rendered result.
    public let renderedContentHash: String
    /// The rendered result, in the library's store (never the original).
    public let renderedFileURL: URL
    /// Its size in bytes.
    public let renderedFileSize: Int64
    /// Its type identifier, from the name the app wrote it under.
    public let renderedUniformTypeIdentifier: String?
    /// The content hash of the file the edit was made from (the original, or an earlier edit's result).
    public let baseContentHash: String?
    /// When the edit was committed.
    public let adjustedAt: Date
}

/// One row of `asset_adjustment` (`Schema/0004_adjustments.sql`). Bookkeeping: never journaled.
struct AdjustmentRow: Codable, Hashable, Sendable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "asset_adjustment"

    var assetId: Int64
    var formatIdentifier: String
    var formatVersion: String
    var data: Data
    var renderedFileSize: Int64
    var renderedUniformTypeIdentifier: String?
    var baseContentHash: String?
    var adjustedAt: Double

    var adjustmentData: AdjustmentData {
        AdjustmentData(formatIdentifier: formatIdentifier, formatVersion: formatVersion, data: data)
    }
}
