import Foundation
import GRDB
import LibraryTestSupport
import SeededRandom
import Testing
@testable import PhotoLibrary

/// The journal's binary encoding of previous values (``PreviousValues``), and the JSON that libraries
/// journaled before schema 5 still hold.
@Suite struct PreviousValuesTests {
    // MARK: Random rows with every kind of value

    static func text(_ g: inout RandomSource) -> String {
        g.pick(["", "a", "IMG_0001.JPG", "é/ü/ß — 東京 🏔", String(repeating: "x", count: 300), "quote\"back\\slash\u{0}nul"])
    }

    static func integer(_ g: inout RandomSource) -> Int {
        g.pick([0, 1, -1, 63, 64, -64, -65, 127, 128, 300, Int(Int32.max), Int.max, Int.min, g.int(in: -1_000_000...1_000_000)])
    }

    static func real(_ g: inout RandomSource, finite: Bool = false) -> Double {
        let value = g.pick([
            0.0, -0.0, 1.5, -2.25, .leastNormalMagnitude / 4, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
            -.greatestFiniteMagnitude, .infinity, -.infinity, 1_700_000_000.123456, Double(g.int(in: -1_000_000...1_000_000)) / 7,
        ])
        return finite && value.isInfinite ? 0.5 : value
    }

    /// A random asset row; `finite`: without infinities (JSON, what builds before schema 5 journaled, can't
    /// hold them).
    static func asset(_ g: inout RandomSource, finite: Bool = false) -> AssetRow {
        func maybe<T>(_ value: T) -> T? { g.chance(0.3) ? nil : value }
        func real(_ g: inout RandomSource) -> Double { Self.real(&g, finite: finite) }
        var row = AssetRow(id: Int64(integer(&g)), localIdentifier: text(&g), addedDate: real(&g))
        row.mediaType = integer(&g)
        row.mediaSubtypes = integer(&g)
        row.pixelWidth = integer(&g)
        row.pixelHeight = integer(&g)
        row.creationDate = maybe(real(&g))
        row.creationTimeZoneOffset = maybe(integer(&g))
        row.modificationDate = maybe(real(&g))
        row.latitude = maybe(real(&g))
        row.longitude = maybe(real(&g))
        row.altitude = maybe(real(&g))
        row.duration = real(&g)
        row.isFavorite = g.chance(0.5)
        row.isHidden = g.chance(0.5)
        row.burstIdentifier = maybe(text(&g))
        row.representsBurst = g.chance(0.5)
        row.burstSelectionTypes = integer(&g)
        row.sourceType = integer(&g)
        row.hasAdjustments = g.chance(0.5)
        row.originalFilename = text(&g)
        row.uniformTypeIdentifier = maybe(text(&g))
        row.fileSize = Int64(integer(&g))
        row.contentHash = maybe(text(&g))
        row.storage = integer(&g)
        row.filePath = maybe(text(&g))
        row.momentId = maybe(Int64(integer(&g)))
        row.adjustedContentHash = maybe(text(&g))
        return row
    }

    static func collection(_ g: inout RandomSource) -> AssetCollectionRow {
        func maybe<T>(_ value: T) -> T? { g.chance(0.3) ? nil : value }
        return AssetCollectionRow(
            id: Int64(integer(&g)), localIdentifier: text(&g), type: integer(&g), subtype: integer(&g), title: maybe(text(&g)),
            startDate: maybe(real(&g)), endDate: maybe(real(&g)), assetCount: integer(&g), latitude: maybe(real(&g)),
            longitude: maybe(real(&g)), momentDay: maybe(text(&g)), locatedCount: integer(&g), createdAt: real(&g))
    }

    static func list(_ g: inout RandomSource) -> CollectionListRow {
        func maybe<T>(_ value: T) -> T? { g.chance(0.3) ? nil : value }
        return CollectionListRow(
            id: Int64(integer(&g)), localIdentifier: text(&g), type: integer(&g), subtype: integer(&g), title: maybe(text(&g)),
            startDate: maybe(real(&g)), endDate: maybe(real(&g)), momentYear: maybe(integer(&g)), createdAt: real(&g))
    }

    static func encode(_ row: some JournaledRow) -> Data {
        var writer = PreviousValues.Writer()
        let range = writer.append(row)
        return Data(writer.bytes[range])
    }

    /// Every column of `row` read from `data` by position, in a shuffled order, against GRDB's own encoding of
    /// the row (what the incremental path compared before the binary encoding).
    static func expectColumns<Row: JournaledRow & EncodableRecord & Decodable>(
        of row: Row, in data: Data, _ g: inout RandomSource, _ context: String
    ) throws {
        let dictionary = try row.databaseDictionary
        var indexes = Array(Row.journalColumns.indices)
        indexes.shuffle(using: &g)
        let count = g.int(in: 1...indexes.count)
        let wanted = Array(indexes.prefix(count))
        let values = try #require(PreviousValues.values(at: wanted, of: Row.self, in: data), "\(context)")
        for (index, value) in zip(wanted, values) {
            let column = Row.journalColumns[index]
            #expect(value == dictionary[column], "\(context): \(column)")
        }
    }

    // MARK: Tests

    @Test func theLayoutsAreTheTablesColumnsInOrder() throws {
        let test = try TestLibrary()
        let columns = try test.library.database.read { db in
            try ["asset", "asset_collection", "collection_list"].map { try db.columns(in: $0).map(\.name) }
        }
        #expect(columns == [AssetRow.journalColumns, AssetCollectionRow.journalColumns, CollectionListRow.journalColumns])
    }

    @Test(arguments: 0..<60 as Range<UInt64>)
    func everyColumnOfEveryRowTypeRoundTrips(seed: UInt64) throws {
        var g = RandomSource(seed: seed)
        let asset = Self.asset(&g)
        let collection = Self.collection(&g)
        let list = Self.list(&g)
        #expect(PreviousValues.decode(AssetRow.self, from: Self.encode(asset)) == asset, "seed \(seed)")
        #expect(PreviousValues.decode(AssetCollectionRow.self, from: Self.encode(collection)) == collection, "seed \(seed)")
        #expect(PreviousValues.decode(CollectionListRow.self, from: Self.encode(list)) == list, "seed \(seed)")
        try Self.expectColumns(of: asset, in: Self.encode(asset), &g, "seed \(seed)")
        try Self.expectColumns(of: collection, in: Self.encode(collection), &g, "seed \(seed)")
        try Self.expectColumns(of: list, in: Self.encode(list), &g, "seed \(seed)")
        // Encodings appended to one shared buffer keep their own ranges.
        var writer = PreviousValues.Writer()
        let first = writer.append(asset)
        let second = writer.append(list)
        #expect(PreviousValues.decode(AssetRow.self, from: Data(writer.bytes[first])) == asset)
        #expect(PreviousValues.decode(CollectionListRow.self, from: Data(writer.bytes[second])) == list)
    }

    @Test(arguments: 0..<20 as Range<UInt64>)
    func jsonJournaledBeforeSchema5IsStillRead(seed: UInt64) throws {
        var g = RandomSource(seed: seed)
        let asset = Self.asset(&g, finite: true)
        let json = try JSONEncoder().encode(asset)
        #expect(PreviousValues.decode(AssetRow.self, from: json) == asset)
        try Self.expectColumns(of: asset, in: json, &g, "seed \(seed)")
    }

    /// An encoding made before a migration added a column (here `adjustedContentHash`, the last one) reads it
    /// as absent.
    @Test func anEncodingWithFewerColumnsReadsTheMissingOnesAsAbsent() throws {
        var g = RandomSource(seed: 9)
        var row = Self.asset(&g)
        row.adjustedContentHash = nil
        let full = Self.encode(row)
        // The same encoding with one column fewer: its count says 28, and the last column (a NULL tag) is gone.
        var older = Data([PreviousValues.binaryFormat, UInt8(AssetRow.journalColumns.count - 1)])
        older.append(full.dropFirst(2).dropLast())
        #expect(full[1] == UInt8(AssetRow.journalColumns.count) && full.last == PreviousValues.Tag.null.rawValue)
        #expect(PreviousValues.decode(AssetRow.self, from: older) == row)
        #expect(PreviousValues.values(at: [AssetRow.journalColumns.count - 1], of: AssetRow.self, in: older) == nil)
        #expect(PreviousValues.values(at: [6], of: AssetRow.self, in: older) == [row.creationDate.databaseValue])
    }

    @Test func malformedEncodingsAreRefusedNotMisread() throws {
        var g = RandomSource(seed: 7)
        let data = Self.encode(Self.asset(&g))
        let columns = Array(AssetRow.journalColumns.indices)
        // Every truncation: refused as a row (a column is missing or cut), never a crash.
        for length in 1..<data.count {
            let prefix = data.prefix(length)
            #expect(PreviousValues.decode(AssetRow.self, from: prefix) == nil, "length \(length)")
            _ = PreviousValues.values(at: columns, of: AssetRow.self, in: prefix)
        }
        #expect(PreviousValues.values(at: [columns.last!], of: AssetRow.self, in: data.prefix(data.count - 1)) == nil)
        // An unknown tag, a column more than this build knows, and bytes that are neither format.
        #expect(PreviousValues.decode(AssetRow.self, from: Data([PreviousValues.binaryFormat, 9])) == nil)
        #expect(PreviousValues.decode(AssetRow.self, from: data + [PreviousValues.Tag.null.rawValue]) == nil)
        #expect(PreviousValues.decode(AssetRow.self, from: Data([0x42, 0x43])) == nil)
        #expect(PreviousValues.values(at: [0], of: AssetRow.self, in: Data()) == nil)
    }

    /// A binary encoding is less than half the JSON one, for a typical asset.
    @Test func theBinaryEncodingIsSmall() throws {
        var row = AssetRow(id: 123_456, localIdentifier: LocalIdentifier.make(.asset), addedDate: 1_700_000_000.5)
        row.creationDate = 1_650_000_000.25
        row.pixelWidth = 4032
        row.pixelHeight = 3024
        row.originalFilename = "IMG_1234.HEIC"
        row.contentHash = String(repeating: "ab", count: 16)
        row.filePath = "/home/me/Pictures/2024/IMG_1234.HEIC"
        let binary = Self.encode(row).count
        let json = try JSONEncoder().encode(row).count
        #expect(binary * 2 < json, "\(binary) bytes vs \(json) in JSON")
    }
}
