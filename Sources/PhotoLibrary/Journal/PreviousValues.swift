import Foundation
import GRDB
import IndexDiff

/// The journal's encoding of an object's values before a change: `change_record.previousValues` (schema 5).
///
/// Byte 0 is ``binaryFormat``, then the number of columns (a varint); then the row's columns in the order of
/// its type's ``JournaledRow/journalColumns`` (the table's column order), each a tag byte and its payload:
///
/// | tag | value | payload |
/// |---|---|---|
/// | 0 | NULL | none |
/// | 1 | integer | zigzag LEB128 varint |
/// | 2 | real | 8 bytes: the IEEE 754 bits, little-endian |
/// | 3 | text | varint byte count, then the UTF-8 bytes |
/// | 4 | blob | varint byte count, then the bytes |
///
/// An encoding with fewer columns than the type has now (written before a migration added one) reads the
/// missing ones as absent; bytes that don't hold the columns they announce are refused.
/// Rows journaled before schema 5 hold JSON (they start with `{`); ``decode(_:from:)`` reads both. An
/// asset's encoding is about a third of its JSON, and writing or reading one column of it costs a few
/// hundred instructions instead of a JSON coder's tens of thousands.
enum PreviousValues {
    /// The first byte of a binary encoding. JSON starts with `{` (0x7B).
    static let binaryFormat: UInt8 = 1

    enum Tag: UInt8 {
        case null = 0
        case integer = 1
        case real = 2
        case text = 3
        case blob = 4
    }

    /// Encodings appended one after another to one buffer: the previous values of a whole transaction share
    /// it, and each record takes its range.
    struct Writer {
        private(set) var bytes: [UInt8] = []

        init(capacity: Int = 0) {
            bytes.reserveCapacity(capacity)
        }

        /// Appends the encoding of `row` and returns its range in ``bytes``.
        mutating func append<Row: JournaledRow>(_ row: Row) -> Range<Int> {
            let start = bytes.count
            bytes.append(PreviousValues.binaryFormat)
            varint(UInt64(Row.journalColumns.count))
            row.writePreviousValues(to: &self)
            return start..<bytes.count
        }

        mutating func null() { bytes.append(Tag.null.rawValue) }

        mutating func integer(_ value: Int64) {
            bytes.append(Tag.integer.rawValue)
            varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
        }

        mutating func integer(_ value: Int) { integer(Int64(value)) }
        mutating func integer(_ value: Int?) { if let value { integer(Int64(value)) } else { null() } }
        mutating func integer(_ value: Int64?) { if let value { integer(value) } else { null() } }
        mutating func bool(_ value: Bool) { integer(Int64(value ? 1 : 0)) }

        mutating func real(_ value: Double) {
            bytes.append(Tag.real.rawValue)
            var bits = value.bitPattern
            for _ in 0..<8 {
                bytes.append(UInt8(truncatingIfNeeded: bits))
                bits >>= 8
            }
        }

        mutating func real(_ value: Double?) { if let value { real(value) } else { null() } }

        mutating func text(_ value: String) {
            bytes.append(Tag.text.rawValue)
            var value = value
            value.withUTF8 { utf8 in
                varint(UInt64(utf8.count))
                bytes.append(contentsOf: utf8)
            }
        }

        mutating func text(_ value: String?) { if let value { text(value) } else { null() } }

        private mutating func varint(_ value: UInt64) {
            var value = value
            while value >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
                value >>= 7
            }
            bytes.append(UInt8(value))
        }
    }

    /// Reads the columns of one binary encoding in order.
    struct Reader {
        private let bytes: UnsafeRawBufferPointer
        private var offset: Int

        /// The number of columns the encoding holds.
        let columnCount: Int
        private var columnsRead = 0

        /// A reader of `bytes`, or nil when they are not a binary encoding.
        init?(_ bytes: UnsafeRawBufferPointer) {
            guard bytes.first == PreviousValues.binaryFormat else { return nil }
            self.bytes = bytes
            offset = 1
            guard let count = try? Self.varint(bytes, &offset), count <= UInt64(bytes.count) else { return nil }
            columnCount = Int(count)
        }

        /// Whether every column was read: all the encoding announced, and no byte is left.
        var isAtEnd: Bool { columnsRead == columnCount && offset == bytes.count }

        /// The next column's value; nil after the last one.
        ///
        /// - Throws: ``PreviousValues/Malformed`` when the bytes are cut short or hold an unknown tag.
        mutating func next() throws(Malformed) -> DatabaseValue? {
            guard columnsRead < columnCount else { return nil }
            columnsRead += 1
            switch try tag() {
            case .null: return .null
            case .integer:
                let zigzag = try varint()
                return Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1))).databaseValue
            case .real:
                guard offset + 8 <= bytes.count else { throw Malformed() }
                var bits: UInt64 = 0
                for index in (0..<8).reversed() { bits = bits << 8 | UInt64(bytes[offset + index]) }
                offset += 8
                return Double(bitPattern: bits).databaseValue
            case .text:
                return String(decoding: try payload(), as: UTF8.self).databaseValue
            case .blob:
                return Data(try payload()).databaseValue
            }
        }

        /// Steps over the next column without reading it; false after the last one.
        mutating func skip() throws(Malformed) -> Bool {
            guard columnsRead < columnCount else { return false }
            columnsRead += 1
            switch try tag() {
            case .null: break
            case .integer: _ = try varint()
            case .real:
                guard offset + 8 <= bytes.count else { throw Malformed() }
                offset += 8
            case .text, .blob: _ = try payload()
            }
            return true
        }

        private mutating func tag() throws(Malformed) -> Tag {
            guard offset < bytes.count, let tag = Tag(rawValue: bytes[offset]) else { throw Malformed() }
            offset += 1
            return tag
        }

        private mutating func varint() throws(Malformed) -> UInt64 {
            try Self.varint(bytes, &offset)
        }

        private static func varint(_ bytes: UnsafeRawBufferPointer, _ offset: inout Int) throws(Malformed) -> UInt64 {
            var value: UInt64 = 0
            var shift: UInt64 = 0
            while true {
                guard offset < bytes.count, shift < 64 else { throw Malformed() }
                let byte = bytes[offset]
                offset += 1
                value |= UInt64(byte & 0x7F) << shift
                if byte < 0x80 { return value }
                shift += 7
            }
        }

        private mutating func payload() throws(Malformed) -> UnsafeRawBufferPointer {
            let count = try varint()
            guard count <= UInt64(bytes.count - offset) else { throw Malformed() }
            let start = offset
            offset += Int(count)
            return UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
        }
    }

    /// Bytes that are not a valid binary encoding.
    struct Malformed: Error {}

    /// The values of the columns at `indexes` (positions in the type's ``JournaledRow/journalColumns``, in any order)
    /// of an encoding, binary or JSON; nil when it can't be read or lacks one of them.
    ///
    /// - Complexity: a single pass over a binary encoding up to the last index; a full decode of a JSON one.
    static func values<Record: JournaledRow & Decodable>(at indexes: [Int], of type: Record.Type, in data: Data) -> [DatabaseValue]? {
        guard data.first == binaryFormat else {
            // A row journaled before schema 5: decode it, then read its binary encoding.
            guard let row = try? JSONDecoder().decode(Record.self, from: data) else { return nil }
            var writer = Writer()
            let range = writer.append(row)
            return writer.bytes[range].withUnsafeBytes { values(at: indexes, in: $0) }
        }
        return data.withUnsafeBytes { values(at: indexes, in: $0) }
    }

    /// The same, over bytes read in place (a blob column during a step).
    static func values<Record: JournaledRow & Decodable>(
        at indexes: [Int], of type: Record.Type, in bytes: UnsafeRawBufferPointer
    ) -> [DatabaseValue]? {
        guard bytes.first == binaryFormat else { return values(at: indexes, of: type, in: Data(bytes)) }
        return values(at: indexes, in: bytes)
    }

    private static func values(at indexes: [Int], in bytes: UnsafeRawBufferPointer) -> [DatabaseValue]? {
        guard var reader = Reader(bytes), let last = indexes.max() else { return nil }
        var result = [DatabaseValue](filled: .null, count: indexes.count)
        do {
            for column in 0...last {
                guard indexes.contains(column) else {
                    guard try reader.skip() else { return nil }
                    continue
                }
                guard let value = try reader.next() else { return nil }
                for (position, index) in indexes.enumerated() where index == column { result[position] = value }
            }
        } catch {
            return nil
        }
        return result
    }

    /// The row an encoding holds, binary or JSON; nil when it can't be read.
    static func decode<Record: JournaledRow & FetchableRecord & Decodable>(_ type: Record.Type, from data: Data) -> Record? {
        guard data.first == binaryFormat else { return try? JSONDecoder().decode(Record.self, from: data) }
        return data.withUnsafeBytes { bytes -> Record? in
            guard var reader = Reader(bytes) else { return nil }
            var dictionary: [String: DatabaseValue] = [:]
            dictionary.reserveCapacity(Record.journalColumns.count)
            do {
                for column in Record.journalColumns {
                    guard let value = try reader.next() else { break }
                    dictionary[column] = value
                }
            } catch {
                return nil
            }
            guard reader.isAtEnd else { return nil }  // Bytes left over, or more columns than this build knows.
            return try? Record(row: GRDB.Row(dictionary))
        }
    }
}

/// A row the journal keeps previous values of, in ``PreviousValues``' binary encoding.
protocol JournaledRow {
    /// The columns of the encoding, in order: the table's columns, in the table's order. Never reorder them;
    /// a column added by a migration goes at the end (encodings written before read it as missing).
    static var journalColumns: [String] { get }
    /// Writes every column of ``journalColumns``, in order.
    func writePreviousValues(to writer: inout PreviousValues.Writer)
}

extension AssetRow: JournaledRow {
    static let journalColumns = [
        "id", "localIdentifier", "mediaType", "mediaSubtypes", "pixelWidth", "pixelHeight", "creationDate",
        "creationTimeZoneOffset", "modificationDate", "latitude", "longitude", "altitude", "duration", "isFavorite",
        "isHidden", "burstIdentifier", "representsBurst", "burstSelectionTypes", "sourceType", "hasAdjustments",
        "originalFilename", "uniformTypeIdentifier", "fileSize", "contentHash", "storage", "filePath", "addedDate",
        "momentId", "adjustedContentHash",
    ]

    func writePreviousValues(to writer: inout PreviousValues.Writer) {
        writer.integer(id)
        writer.text(localIdentifier)
        writer.integer(mediaType)
        writer.integer(mediaSubtypes)
        writer.integer(pixelWidth)
        writer.integer(pixelHeight)
        writer.real(creationDate)
        writer.integer(creationTimeZoneOffset)
        writer.real(modificationDate)
        writer.real(latitude)
        writer.real(longitude)
        writer.real(altitude)
        writer.real(duration)
        writer.bool(isFavorite)
        writer.bool(isHidden)
        writer.text(burstIdentifier)
        writer.bool(representsBurst)
        writer.integer(burstSelectionTypes)
        writer.integer(sourceType)
        writer.bool(hasAdjustments)
        writer.text(originalFilename)
        writer.text(uniformTypeIdentifier)
        writer.integer(fileSize)
        writer.text(contentHash)
        writer.integer(storage)
        writer.text(filePath)
        writer.real(addedDate)
        writer.integer(momentId)
        writer.text(adjustedContentHash)
    }
}

extension AssetRow {
    /// The value of the column at `index` of ``journalColumns``, as ``writePreviousValues(to:)`` encodes it
    /// (and as SQLite returns it): booleans as integers, absent values as NULL.
    func journalValue(at index: Int) -> DatabaseValue {
        func integer(_ value: Int64?) -> DatabaseValue { value.map { $0.databaseValue } ?? .null }
        func integer(_ value: Int?) -> DatabaseValue { integer(value.map { Int64($0) }) }
        func integer(_ value: Bool) -> DatabaseValue { Int64(value ? 1 : 0).databaseValue }
        func real(_ value: Double?) -> DatabaseValue { value.map { $0.databaseValue } ?? .null }
        func text(_ value: String?) -> DatabaseValue { value.map { $0.databaseValue } ?? .null }
        switch index {
        case 0: return integer(id)
        case 1: return text(localIdentifier)
        case 2: return integer(mediaType)
        case 3: return integer(mediaSubtypes)
        case 4: return integer(pixelWidth)
        case 5: return integer(pixelHeight)
        case 6: return real(creationDate)
        case 7: return integer(creationTimeZoneOffset)
        case 8: return real(modificationDate)
        case 9: return real(latitude)
        case 10: return real(longitude)
        case 11: return real(altitude)
        case 12: return real(duration)
        case 13: return integer(isFavorite)
        case 14: return integer(isHidden)
        case 15: return text(burstIdentifier)
        case 16: return integer(representsBurst)
        case 17: return integer(burstSelectionTypes)
        case 18: return integer(sourceType)
        case 19: return integer(hasAdjustments)
        case 20: return text(originalFilename)
        case 21: return text(uniformTypeIdentifier)
        case 22: return integer(fileSize)
        case 23: return text(contentHash)
        case 24: return integer(storage)
        case 25: return text(filePath)
        case 26: return real(addedDate)
        case 27: return integer(momentId)
        case 28: return text(adjustedContentHash)
        default: preconditionFailure("no journal column \(index) in asset")
        }
    }
}

extension PreviousValues.Writer {
    /// The first columns of both collection tables (`asset_collection`, `collection_list`), in their order.
    mutating func collectionColumns(
        _ id: Int64, _ localIdentifier: String, _ type: Int, _ subtype: Int, _ title: String?, _ startDate: Double?, _ endDate: Double?
    ) {
        integer(id)
        text(localIdentifier)
        integer(type)
        integer(subtype)
        text(title)
        real(startDate)
        real(endDate)
    }
}

extension AssetCollectionRow: JournaledRow {
    static let journalColumns = [
        "id", "localIdentifier", "type", "subtype", "title", "startDate", "endDate", "assetCount", "latitude", "longitude",
        "momentDay", "locatedCount", "createdAt",
    ]

    func writePreviousValues(to writer: inout PreviousValues.Writer) {
        writer.collectionColumns(id, localIdentifier, type, subtype, title, startDate, endDate)
        writer.integer(assetCount)
        writer.real(latitude)
        writer.real(longitude)
        writer.text(momentDay)
        writer.integer(locatedCount)
        writer.real(createdAt)
    }
}

extension CollectionListRow: JournaledRow {
    static let journalColumns = [
        "id", "localIdentifier", "type", "subtype", "title", "startDate", "endDate", "momentYear", "createdAt",
    ]

    func writePreviousValues(to writer: inout PreviousValues.Writer) {
        writer.collectionColumns(id, localIdentifier, type, subtype, title, startDate, endDate)
        writer.integer(momentYear)
        writer.real(createdAt)
    }
}
