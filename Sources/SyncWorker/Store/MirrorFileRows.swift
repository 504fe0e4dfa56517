import GRDB
import GRDBSQLite
import LibraryStorage
import PhotoLibrary

/// Writing `mirror_file` rows, many to a statement: an upsert by (root, path), each row replacing the one
/// recorded at its path.
enum MirrorFileRows {
    /// A row to write: a record, its asset resolved to a row id.
    struct Row {
        var relativePath: String
        var stamp: FileStamp
        var contentHash: String
        var assetID: Int64?
    }

    /// `INSERT INTO mirror_file … VALUES (…), (…) ON CONFLICT … DO UPDATE`.
    private static let upsertSQL = MultiRowInsert(
        "INSERT INTO mirror_file (rootId, relativePath, device, inode, size, mtimeNs, ctimeNs, contentHash, assetId)",
        columns: 9,
        tail: """
             ON CONFLICT (rootId, relativePath) DO UPDATE SET device = excluded.device, inode = excluded.inode,
                size = excluded.size, mtimeNs = excluded.mtimeNs, ctimeNs = excluded.ctimeNs,
                contentHash = excluded.contentHash, assetId = excluded.assetId
            """)

    /// Writes the rows of root `root`, as many upserts in their order would: the last row of a path wins.
    ///
    /// SQLite applies a statement's rows one after the other; PostgreSQL refuses a statement that upserts a
    /// row twice, so there a path's earlier rows are left out first.
    ///
    /// - Throws: the engine's error.
    static func write(_ rows: [Row], root: Int64, into db: any SQLConnection) throws {
        if let sqlite = db.sqliteDatabase {
            for chunk in upsertSQL.chunks(of: rows.count) { try upsertPrepared(rows[chunk], root: root, sqlite) }
            return
        }
        let rows = lastOfEachPath(rows)
        for chunk in upsertSQL.chunks(of: rows.count) {
            var values: [DatabaseValue] = []
            values.reserveCapacity(9 * chunk.count)
            for row in rows[chunk] {
                values += [
                    root.databaseValue, row.relativePath.databaseValue, Int64(bitPattern: row.stamp.device).databaseValue,
                    Int64(bitPattern: row.stamp.inode).databaseValue, row.stamp.size.databaseValue,
                    row.stamp.mtimeNs.databaseValue, row.stamp.ctimeNs.databaseValue, row.contentHash.databaseValue,
                    row.assetID.databaseValue,
                ]
            }
            try db.execute(sql: upsertSQL.sql(rows: chunk.count), arguments: StatementArguments(values))
        }
    }

    /// The rows without those a later row of the same path replaces, in their order.
    private static func lastOfEachPath(_ rows: [Row]) -> [Row] {
        var seen = Set<String>()
        var kept: [Row] = []
        kept.reserveCapacity(rows.count)
        for row in rows.reversed() where seen.insert(row.relativePath).inserted { kept.append(row) }
        return kept.reversed()
    }

    /// Upserts one chunk through its statement, prepared once per connection, the values bound through
    /// SQLite's C API (GRDB's arguments cost a scan a good part of the row's write). The statement still runs
    /// through GRDB, which tracks what it writes.
    private static func upsertPrepared(_ rows: ArraySlice<Row>, root: Int64, _ db: Database) throws {
        let statement = try db.cachedStatement(sql: upsertSQL.sql(rows: rows.count))
        // The texts bound from one buffer, without a copy each; the bindings are cleared after the run.
        let texts = StaticTexts(capacity: rows.reduce(0) { $0 + $1.relativePath.utf8.count + $1.contentHash.utf8.count })
        try statement.executeBinding(parameterCount: 9 * rows.count, clearingBindings: true) { sqlite in
            var parameter: Int32 = 0
            for row in rows { bind(row, root: root, sqlite, after: &parameter, texts: texts) }
        }
    }

    /// Binds a row's values, in the order of ``upsertSQL``, to the parameters after `parameter` (1-based, as
    /// SQLite counts them), which it leaves at the last it bound; its texts through `texts`.
    private static func bind(_ row: Row, root: Int64, _ sqlite: OpaquePointer, after parameter: inout Int32, texts: StaticTexts) {
        func bind(_ value: Int64) {
            parameter += 1
            sqlite3_bind_int64(sqlite, parameter, value)
        }
        func bind(_ text: String) {
            parameter += 1
            texts.bind(text, to: sqlite, at: parameter)
        }
        bind(root)
        bind(row.relativePath)
        bind(Int64(bitPattern: row.stamp.device))
        bind(Int64(bitPattern: row.stamp.inode))
        bind(row.stamp.size)
        bind(row.stamp.mtimeNs)
        bind(row.stamp.ctimeNs)
        bind(row.contentHash)
        parameter += 1
        if let asset = row.assetID { sqlite3_bind_int64(sqlite, parameter, asset) } else { sqlite3_bind_null(sqlite, parameter) }
    }
}
