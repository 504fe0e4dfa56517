// Copying a SQLite library's rows into a PostgreSQL library's tables, unchanged.
import Foundation
import GRDB

/// Copies the object model and the journal of a SQLite library into an empty PostgreSQL library of the same
/// schema: what the library wrote, row for row, with `COPY` — minutes instead of the hours a million commits
/// through the library would take on PostgreSQL.
///
/// The two schemas are the same tables and columns (`SchemaParityTests` holds them so); the copy checks it
/// again for every table it copies and refuses a difference. Identity sequences continue from SQLite's
/// (`sqlite_sequence`), so the copy draws new ids and sequence numbers as the original would. The library
/// row (the identity tokens carry) and the tables PostgreSQL alone has stay the PostgreSQL library's own.
struct TableCopy {
    /// The tables copied, parents first; the journal's state row is copied apart (an update of its one row).
    static let tables = [
        "asset_collection", "collection_list", "collection_list_child", "asset", "album_asset", "asset_adjustment",
        "change_transaction", "change_record",
    ]
    static let journalState = "change_journal"

    let source: DatabaseQueue
    let server: PostgresServer
    let database: String
    /// Where the CSV files are written (removed after the copy).
    let scratch: URL

    /// Copies every table in one transaction, then analyses the database.
    func run() throws {
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        var script = "BEGIN;\nTRUNCATE \(Self.tables.joined(separator: ", ")) CASCADE;\n"
        for table in Self.tables {
            let columns = try matchingColumns(table)
            let file = scratch.appending(path: "\(table).csv")
            try source.read { db in try CSVDump(db: db, table: table, columns: columns).write(to: file) }
            script += "\\copy \(table) (\(columns.joined(separator: ", "))) FROM '\(file.path)' WITH (FORMAT csv)\n"
        }
        script += try journalStateUpdate() + sequenceUpdates() + "COMMIT;\nVACUUM ANALYZE;\n"
        try server.psql(script, database: database)
    }

    /// The table's columns, which must be the same on both sides (PostgreSQL folds names to lower case).
    private func matchingColumns(_ table: String) throws -> [String] {
        let sqlite = try source.read { db in try db.columns(in: table).map(\.name) }
        let postgres = try server.psql(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = '\(table)'",
            database: database
        ).split(separator: "\n").map(String.init)
        guard Set(sqlite.map { $0.lowercased() }) == Set(postgres) else {
            throw TableCopyError.schemasDiffer(table: table, sqlite: sqlite, postgres: postgres)
        }
        return sqlite
    }

    private func journalStateUpdate() throws -> String {
        let columns = try matchingColumns(Self.journalState).filter { $0 != "id" }
        let row = try source.read { db in try Row.fetchOne(db, sql: "SELECT * FROM \(Self.journalState) WHERE id = 1") }
        guard let row else { throw TableCopyError.missingJournalState }
        let assignments = columns.map { column in "\(column) = \(CSVDump.literal(row[column] as DatabaseValue))" }
        return "UPDATE \(Self.journalState) SET \(assignments.joined(separator: ", ")) WHERE id = 1;\n"
    }

    /// Identity sequences continue where SQLite's AUTOINCREMENT counters are.
    private func sequenceUpdates() throws -> String {
        let counters = try source.read { db in
            try Row.fetchAll(db, sql: "SELECT name, seq FROM sqlite_sequence").map { (name: $0["name"] as String, seq: $0["seq"] as Int64) }
        }
        return counters.filter { Self.tables.contains($0.name) && $0.seq > 0 }.map { counter in
            let column = counter.name == "change_transaction" ? "seq" : "id"
            return "SELECT setval(pg_get_serial_sequence('\(counter.name)', '\(column)'), \(counter.seq));\n"
        }.joined()
    }
}

/// One table's rows as CSV in PostgreSQL's conventions: NULL unquoted and empty, text quoted, BYTEA as `\x…`.
struct CSVDump {
    let db: Database
    let table: String
    let columns: [String]

    func write(to file: URL) throws {
        guard FileManager.default.createFile(atPath: file.path, contents: nil), let handle = try? FileHandle(forWritingTo: file) else {
            throw TableCopyError.cannotWrite(file.path)
        }
        defer { try? handle.close() }
        var buffer = ""
        let rows = try Row.fetchCursor(db, sql: "SELECT \(columns.joined(separator: ", ")) FROM \(table)")
        while let row = try rows.next() {
            buffer += (0..<columns.count).map { Self.field(row[$0] as DatabaseValue) }.joined(separator: ",")
            buffer += "\n"
            if buffer.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(buffer.utf8))
                buffer = ""
            }
        }
        try handle.write(contentsOf: Data(buffer.utf8))
    }

    /// A CSV field: numbers as Swift prints them (a Double's shortest exact form), text and bytes quoted.
    static func field(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: ""
        case .int64(let integer): String(integer)
        case .double(let double): "\(double)"
        case .string(let text): "\"" + text.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        case .blob(let data): "\"\\x" + data.map { String(format: "%02x", $0) }.joined() + "\""
        }
    }

    /// An SQL literal of the same value.
    static func literal(_ value: DatabaseValue) -> String {
        switch value.storage {
        case .null: "NULL"
        case .int64(let integer): String(integer)
        case .double(let double): "\(double)"
        case .string(let text): "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
        case .blob(let data): "'\\x" + data.map { String(format: "%02x", $0) }.joined() + "'"
        }
    }
}

enum TableCopyError: Error, CustomStringConvertible {
    case schemasDiffer(table: String, sqlite: [String], postgres: [String])
    case missingJournalState
    case cannotWrite(String)

    var description: String {
        switch self {
        case .schemasDiffer(let table, let sqlite, let postgres):
            "\(table): the engines' columns differ (SQLite \(sqlite), PostgreSQL \(postgres)): the copy would not be the library's own rows"
        case .missingJournalState: "the SQLite library has no change_journal row"
        case .cannotWrite(let path): "cannot write \(path)"
        }
    }
}
