import Foundation
import GRDB
import GRDBSQLite
import LibraryStorage
import PhotoLibrary

/// Reads a root's file records, in path order, handing each to a visitor as a ``MirroredFileRow``: a rescan
/// of a large root reads every record, so the read makes as little as it can per row.
///
/// On SQLite (its fast paths on) the statement is stepped through the C API and the row's hash and asset
/// identifier are handed over as SQLite's own bytes, no string made; on every other path (PostgreSQL, or
/// SQLite with `sqliteFastPaths` off, which tests use to run this twin on SQLite too) the same query is read
/// through ``SQLColumns``, its text copied into strings whose UTF-8 the row points into.
struct MirroredFileReader {
    let rootID: Int64
    /// The root's path followed by `/`: what a record's asset's `filePath` starts with when it references
    /// the record's own file.
    let prefix: [UInt8]

    init(rootID: Int64, rootPath: String) {
        self.rootID = rootID
        self.prefix = Array((rootPath + "/").utf8)
    }

    static let sql = """
        SELECT f.relativePath, f.device, f.inode, f.size, f.mtimeNs, f.ctimeNs, f.contentHash, a.localIdentifier,
            a.filePath
        FROM mirror_file f LEFT JOIN asset a ON a.id = f.assetId
        WHERE f.rootId = ? ORDER BY f.relativePath
        """

    /// Calls `body` on every record of the root, in path order.
    ///
    /// - Throws: the engine's error.
    func forEachFile(_ db: any SQLConnection, _ body: (borrowing MirroredFileRow) -> Void) throws {
        if let sqlite = db.sqliteDatabase {
            try forEachFile(sqlite, body)
            return
        }
        try db.forEachRow(sql: Self.sql, arguments: [rootID], cached: false) { columns in
            var relativePath = columns.text(0)
            let stamp = Self.stamp(columns)
            var hash = columns.text(6)
            var identifier = columns.optionalText(7)
            var filePath = columns.optionalText(8)
            let references = filePath == nil ? false : filePath!.withUTF8 { whole in relativePath.withUTF8 { isPath(whole, $0) } }
            hash.withUTF8 { hash in
                guard identifier != nil else {
                    body(MirroredFileRow(relativePath: relativePath, stamp: stamp, contentHashUTF8: hash, assetIdentifierUTF8: nil))
                    return
                }
                identifier!.withUTF8 { identifier in
                    body(MirroredFileRow(
                        relativePath: relativePath, stamp: stamp, contentHashUTF8: hash, assetIdentifierUTF8: identifier,
                        assetReferencesFile: references))
                }
            }
            return true
        }
    }

    /// The fast path: the statement stepped through SQLite's C API, its text columns read in place.
    private func forEachFile(_ db: Database, _ body: (borrowing MirroredFileRow) -> Void) throws {
        let statement = try db.makeStatement(sql: Self.sql)
        try statement.setArguments([rootID])
        let sqlite = statement.sqliteStatement
        defer { sqlite3_reset(sqlite) }
        func bytes(_ column: Int32) -> UnsafeBufferPointer<UInt8> {
            // sqlite3_column_text before sqlite3_column_bytes: the count is that of the text form.
            guard let text = sqlite3_column_text(sqlite, column) else { return UnsafeBufferPointer(start: nil, count: 0) }
            return UnsafeBufferPointer(start: text, count: Int(sqlite3_column_bytes(sqlite, column)))
        }
        try statement.stepRows { columns in
            let path = bytes(0)
            let row = MirroredFileRow(
                relativePath: String(decoding: path, as: UTF8.self), stamp: Self.stamp(columns),
                contentHashUTF8: bytes(6), assetIdentifierUTF8: columns.isNull(7) ? nil : bytes(7),
                assetReferencesFile: isPath(bytes(8), path))
            body(row)
            return true
        }
    }

    /// The record's stat stamp, from columns 1–5.
    private static func stamp(_ columns: some SQLColumns) -> FileStamp {
        FileStamp(
            device: UInt64(bitPattern: columns.int64(1)), inode: UInt64(bitPattern: columns.int64(2)),
            size: columns.int64(3), mtimeNs: columns.int64(4), ctimeNs: columns.int64(5))
    }

    /// Whether `whole` is the root's ``prefix`` followed by `path`, compared in place, byte by byte (not as
    /// Swift strings, which would equate different normalisations of one name).
    private func isPath(_ whole: UnsafeBufferPointer<UInt8>, _ path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard whole.count == prefix.count + path.count, let start = whole.baseAddress else { return false }
        return prefix.withUnsafeBufferPointer { prefix in
            memcmp(start, prefix.baseAddress!, prefix.count) == 0
                && (path.isEmpty || memcmp(start + prefix.count, path.baseAddress!, path.count) == 0)
        }
    }
}
