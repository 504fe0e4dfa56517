import Foundation
import GRDB
import SeededRandom
import Testing

@testable import PhotoLibrary

/// The rows' hand-written column access (`Rows+Decoding.swift`, `AssetRow+Insert.swift`) against GRDB's
/// `Codable` encoding, the oracle: what one writes the other reads, column for column.
@Suite("Rows read and written column by column")
struct RowCodingTests {
    static func randomAsset(_ id: Int64, _ random: inout SplitMix64) -> AssetRow {
        func maybe<T>(_ value: T) -> T? { random.chance(0.3) ? nil : value }
        var row = AssetRow(id: id, localIdentifier: "asset-\(id)", addedDate: Double(random.int(in: 0...2_000_000_000)) + 0.25)
        row.mediaType = random.int(in: 0...3)
        row.mediaSubtypes = random.int(in: 0...1 << 20)
        row.pixelWidth = random.int(in: 0...100_000)
        row.pixelHeight = random.int(in: 0...100_000)
        row.creationDate = maybe(Double.random(in: -5e9...5e9, using: &random))
        row.creationTimeZoneOffset = maybe(random.int(in: -64_800...64_800))
        row.modificationDate = maybe(Double(random.int(in: 0...2_000_000_000)))
        if random.chance(0.6) {
            row.latitude = Double.random(in: -90...90, using: &random)
            row.longitude = Double.random(in: -180...180, using: &random)
            row.altitude = maybe(Double.random(in: -400...9000, using: &random))
        }
        row.duration = random.chance(0.5) ? 0 : Double.random(in: 0...10_000, using: &random)
        row.isFavorite = random.chance(0.5)
        row.isHidden = random.chance(0.5)
        row.burstIdentifier = maybe("burst-\(random.int(in: 0...9))")
        row.representsBurst = row.burstIdentifier != nil && random.chance(0.5)
        row.burstSelectionTypes = random.int(in: 0...3)
        row.sourceType = random.int(in: 1...8)
        row.hasAdjustments = random.chance(0.2)
        row.originalFilename = random.chance(0.1) ? "" : "IMG_\(random.int(in: 0...9999)) é.JPG"
        row.uniformTypeIdentifier = maybe("public.jpeg")
        row.fileSize = Int64(random.int(in: 0...1 << 40))
        row.contentHash = maybe(String(repeating: "ab", count: 16))
        row.storage = random.int(in: 0...1)
        row.filePath = maybe("/photos/\(random.int(in: 0...99))/x.jpg")
        row.adjustedContentHash = maybe(String(repeating: "cd", count: 16))
        return row
    }

    @Test("An asset row written by GRDB's Codable insert reads back equal; the multi-row insert writes the same columns, with the same storage classes, on SQLite's fast path and through arguments", arguments: [1, 2, 3] as [UInt64])
    func assetRows(seed: UInt64) throws {
        // A library without SQLite's fast paths: its connections take the path of every engine, and the GRDB
        // connection under them the fast path.
        let test = try TestLibrary(paths: .generic)
        var random = SplitMix64(seed: seed)
        try test.library.storage.write { connection in
            let db = connection.unmovedDatabase
            // 300 rows: chunks of 32 and of every smaller size (300 = 9 × 32 + 8 + 4).
            var rows: [AssetRow] = []
            for index in 0..<300 {
                var row = Self.randomAsset(Int64(1_000_000 + index), &random)
                try row.insert(db)
                rows.append(row)
            }
            func copies(_ offset: Int64, _ suffix: String) -> [AssetRow] {
                rows.map { row in
                    var copy = row
                    copy.id += offset
                    copy.localIdentifier += suffix
                    return copy
                }
            }
            let prepared = copies(500_000, "-prepared")
            let generic = copies(1_000_000, "-generic")
            try AssetRow.insert(prepared, into: db)
            try AssetRow.insert(generic, into: connection)
            let columns = "mediaType, mediaSubtypes, pixelWidth, pixelHeight, creationDate, creationTimeZoneOffset, modificationDate, latitude, longitude, altitude, duration, isFavorite, isHidden, burstIdentifier, representsBurst, burstSelectionTypes, sourceType, hasAdjustments, originalFilename, uniformTypeIdentifier, fileSize, contentHash, storage, filePath, addedDate, momentId, adjustedContentHash"
            let sql = "SELECT \(columns), \(columns.split(separator: ",").map { "typeof(\($0))" }.joined(separator: ",")) FROM asset WHERE id = ?"
            for (index, row) in rows.enumerated() {
                #expect(try AssetRow.fetchOne(db, key: row.id) == row, "seed \(seed) #\(index)")
                #expect(try AssetRow.fetchOne(db, key: prepared[index].id) == prepared[index], "seed \(seed) #\(index)")
                #expect(try AssetRow.fetchOne(db, key: generic[index].id) == generic[index], "seed \(seed) #\(index)")
                let written = try Row.fetchOne(db, sql: sql, arguments: [row.id])
                let writtenPrepared = try Row.fetchOne(db, sql: sql, arguments: [prepared[index].id])
                let writtenGeneric = try Row.fetchOne(db, sql: sql, arguments: [generic[index].id])
                #expect(written != nil && written == writtenPrepared, "seed \(seed) #\(index)")
                #expect(written == writtenGeneric, "seed \(seed) #\(index)")
            }
        }
    }

    @Test("A collection row written by GRDB's Codable insert reads back equal", arguments: [4, 5] as [UInt64])
    func collectionRows(seed: UInt64) throws {
        let test = try TestLibrary()
        var random = SplitMix64(seed: seed)
        try test.library.database.write { db in
            for index in 0..<200 {
                func maybe<T>(_ value: T) -> T? { random.chance(0.3) ? nil : value }
                var row = AssetCollectionRow(
                    id: Int64(1_000_000 + index), localIdentifier: "collection-\(index)", type: random.int(in: 1...3),
                    subtype: random.int(in: 0...300), title: maybe("Trip \(index) ü"), startDate: maybe(Double(random.int(in: 0...1 << 31))),
                    endDate: maybe(Double(random.int(in: 0...1 << 31)) + 0.5), assetCount: random.int(in: 0...100_000),
                    latitude: maybe(Double.random(in: -90...90, using: &random)), longitude: maybe(Double.random(in: -180...180, using: &random)),
                    momentDay: maybe("day-\(index)"), locatedCount: random.int(in: 0...100), createdAt: Double(random.int(in: 0...1 << 31)))
                try row.insert(db)
                #expect(try AssetCollectionRow.fetchOne(db, key: row.id) == row, "seed \(seed) #\(index)")
            }
        }
    }

    @Test("Collection and list rows read by position (a change block's reads) equal GRDB's Codable reading of every column", arguments: StoragePaths.allCases)
    func collectionRowsByPosition(paths: StoragePaths) throws {
        let test = try TestLibrary(paths: paths)
        var random = SplitMix64(seed: 6)
        func maybe<T>(_ value: T) -> T? { random.chance(0.3) ? nil : value }
        try test.library.storage.write { db in
            for index in 0..<100 {
                let id = Int64(1_000_000 + index)
                try db.execute(
                    sql: """
                        INSERT INTO asset_collection (id, localIdentifier, type, subtype, title, startDate, endDate, assetCount, latitude, longitude, momentDay, locatedCount, createdAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        id, "collection-\(index)", random.int(in: 1...3), random.int(in: 0...300), maybe("Trip \(index) ü"),
                        maybe(Double(random.int(in: 0...1 << 31))), maybe(Double(random.int(in: 0...1 << 31)) + 0.5), random.int(in: 0...100_000),
                        maybe(Double.random(in: -90...90, using: &random)), maybe(Double.random(in: -180...180, using: &random)),
                        maybe("day-\(index)"), random.int(in: 0...100), Double(random.int(in: 0...1 << 31)) + 0.25,
                    ])
                try db.execute(
                    sql: """
                        INSERT INTO collection_list (id, localIdentifier, type, subtype, title, startDate, endDate, momentYear, createdAt)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        id, "list-\(index)", random.int(in: 1...3), random.int(in: 0...300), maybe("Folder \(index)"),
                        maybe(Double(random.int(in: 0...1 << 31)) + 0.5), maybe(Double(random.int(in: 0...1 << 31))), maybe(1900 + index),
                        Double(random.int(in: 0...1 << 31)),
                    ])
            }
            // The library's own rows (smart albums, the moment list) with them.
            let collections = try db.fetchRecords(AssetCollectionRow.self, sql: "SELECT * FROM asset_collection", arguments: [], cached: false)
            let lists = try db.fetchRecords(CollectionListRow.self, sql: "SELECT * FROM collection_list", arguments: [], cached: false)
            #expect(collections.count > 100 && lists.count >= 100)
            for row in collections { #expect(try AssetCollectionRow.fetch(id: row.id, db) == row, "\(paths) #\(row.id)") }
            for row in lists { #expect(try CollectionListRow.fetch(id: row.id, db) == row, "\(paths) #\(row.id)") }
            #expect(try AssetCollectionRow.fetch(id: 42_000_000, db) == nil)
            #expect(try CollectionListRow.fetch(id: 42_000_000, db) == nil)
        }
    }
}
