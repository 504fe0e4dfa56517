import Foundation
import FetchPredicate
import GRDB

/// The rule of moments: the local calendar day of an asset's creation date.
enum MomentDay {
    static let undated = "undated"

    private static let utcCalendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// `YYYY-MM-DD` of the creation date in the capture's own UTC offset when known, else in `timeZone`;
    /// ``undated`` without a creation date.
    static func key(for row: AssetRow, timeZone: TimeZone) -> String {
        guard let seconds = row.creationDate, seconds.isFinite else { return undated }
        let offset = row.creationTimeZoneOffset
            ?? timeZone.secondsFromGMT(for: Date(timeIntervalSince1970: seconds))
        let local = seconds + Double(offset)
        // Years 1601 to 9999 by arithmetic (the calendar is the proleptic Gregorian one there); the calendar
        // itself elsewhere (Julian days before 1582, years of other widths).
        if local >= -11_644_473_600 && local < 253_402_300_800 {
            return dayKey(daysSince1970: Int((local / 86_400).rounded(.down)))
        }
        let components = utcCalendar.dateComponents([.year, .month, .day], from: Date(timeIntervalSince1970: local))
        return String(format: "%04d-%02d-%02d", components.year ?? 0, components.month ?? 0, components.day ?? 0)
    }

    /// `YYYY-MM-DD` of a day counted from 1970-01-01 in the proleptic Gregorian calendar, for years 0…9999.
    static func dayKey(daysSince1970 days: Int) -> String {
        let (year, month, day) = DateLiteral.civilFromDays(Int64(days))
        let bytes: [UInt8] = [
            digit(year / 1000), digit(year / 100), digit(year / 10), digit(year), UInt8(ascii: "-"),
            digit(month / 10), digit(month), UInt8(ascii: "-"), digit(day / 10), digit(day),
        ]
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `YYYY-`, the start of the keys of `year`'s days: built from its digits for years 0…9999 (a
    /// commit builds two per year it touches, and Foundation's formatting costs some 130 K instructions
    /// each), formatted otherwise.
    static func yearPrefix(_ year: Int) -> String {
        guard (0...9999).contains(year) else { return String(format: "%04d-", year) }
        return String(decoding: [digit(year / 1000), digit(year / 100), digit(year / 10), digit(year), UInt8(ascii: "-")], as: UTF8.self)
    }

    /// The ASCII digit of a non-negative value's units: the keys' digits, written without Foundation's formatting.
    private static func digit(_ value: some BinaryInteger) -> UInt8 {
        UInt8(ascii: "0") + UInt8(value % 10)
    }

    static func title(for key: String) -> String {
        key == undated ? "Undated" : key
    }

    static func year(of key: String) -> Int? {
        key == undated ? nil : Int(key.prefix(4))
    }
}

/// The membership rules of the smart albums, evaluated on every change.
///
/// Every smart album but Hidden leaves hidden assets out; Hidden holds exactly the hidden ones. Burst
/// members all count as members; fetches show only each burst's representative unless asked otherwise.
enum SmartAlbumRule {
    static let recentlyAddedDays = 30

    static func contains(_ row: AssetRow, subtype: AssetCollectionSubtype, recentSince: Double) -> Bool {
        if subtype == .smartAlbumAllHidden { return row.isHidden }
        if row.isHidden { return false }
        switch subtype {
        case .smartAlbumUserLibrary: return true
        case .smartAlbumFavorites: return row.isFavorite
        case .smartAlbumVideos: return row.mediaType == AssetMediaType.video.rawValue
        case .smartAlbumRecentlyAdded: return row.addedDate >= recentSince
        case .smartAlbumPanoramas: return row.mediaSubtypes & AssetMediaSubtypes.photoPanorama.rawValue != 0
        case .smartAlbumScreenshots: return row.mediaSubtypes & AssetMediaSubtypes.photoScreenshot.rawValue != 0
        case .smartAlbumBursts: return row.burstIdentifier != nil
        default: return false
        }
    }

    /// The same rule as SQL over `asset` (for fetching a smart album's members).
    static func sql(subtype: AssetCollectionSubtype, recentSince: Double) -> SQL {
        switch subtype {
        case .smartAlbumAllHidden: "asset.isHidden = 1"
        case .smartAlbumUserLibrary: "asset.isHidden = 0"
        case .smartAlbumFavorites: "asset.isHidden = 0 AND asset.isFavorite = 1"
        case .smartAlbumVideos: "asset.isHidden = 0 AND asset.mediaType = 2"
        case .smartAlbumRecentlyAdded: "asset.isHidden = 0 AND asset.addedDate >= \(recentSince)"
        case .smartAlbumPanoramas: "asset.isHidden = 0 AND (asset.mediaSubtypes & 1) != 0"
        case .smartAlbumScreenshots: "asset.isHidden = 0 AND (asset.mediaSubtypes & 4) != 0"
        case .smartAlbumBursts: "asset.isHidden = 0 AND asset.burstIdentifier IS NOT NULL"
        default: "1 = 0"  // No member; a bare 0 is no condition on PostgreSQL.
        }
    }

    /// The columns of `asset` that ``sql(subtype:recentSince:)`` reads, for the same subtype.
    static func columns(subtype: AssetCollectionSubtype) -> [String] {
        switch subtype {
        case .smartAlbumAllHidden, .smartAlbumUserLibrary: ["isHidden"]
        case .smartAlbumFavorites: ["isHidden", "isFavorite"]
        case .smartAlbumVideos: ["isHidden", "mediaType"]
        case .smartAlbumRecentlyAdded: ["isHidden", "addedDate"]
        case .smartAlbumPanoramas, .smartAlbumScreenshots: ["isHidden", "mediaSubtypes"]
        case .smartAlbumBursts: ["isHidden", "burstIdentifier"]
        default: []
        }
    }

    /// The start of the Recently Added window, now.
    static var recentSince: Double {
        Date().timeIntervalSince1970 - Double(recentlyAddedDays) * 86_400
    }
}

/// Makes local identifiers: a UUID (time-ordered: see ``TimeOrderedUUIDs``) and a suffix naming the object
/// type, as PhotoKit's look.
enum LocalIdentifier {
    static func make(_ type: ObjectType) -> String {
        let suffix: String
        switch type {
        case .asset: suffix = "/L0/001"
        case .assetCollection: suffix = "/L0/040"
        case .collectionList: suffix = "/L0/050"
        }
        return TimeOrderedUUIDs.next() + suffix
    }
}
