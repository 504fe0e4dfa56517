public import GRDB

/// A SQLite connection without its fast paths: ``sqliteDatabase`` is nil, so the library takes the paths
/// every engine takes. Tests run the library's suites through it to prove those paths on SQLite too.
final class SQLiteGenericConnection: SQLConnection {
    /// The GRDB connection it runs on.
    let base: Database

    init(_ base: Database) {
        self.base = base
    }

    var dialect: SQLDialect { .sqlite }

    var sqliteDatabase: Database? { nil }

    func execute(sql: String, arguments: StatementArguments) throws {
        try base.execute(sql: sql, arguments: arguments)
    }

    func forEachRow(
        sql: String, arguments: StatementArguments, cached: Bool, _ body: (any SQLColumns) throws -> Bool
    ) throws {
        try base.forEachRow(sql: sql, arguments: arguments, cached: cached, body)
    }

    func fetchRows(sql: String, arguments: StatementArguments, cached: Bool) throws -> [Row] {
        try base.fetchRows(sql: sql, arguments: arguments, cached: cached)
    }

    var changesCount: Int { base.changesCount }
}

extension SQLConnection {
    /// Transitional, while the library moves behind the storage boundary: the GRDB connection under a SQLite
    /// connection (with or without its fast paths), for code not moved yet. It stops the process on another
    /// engine; it goes away when the last such code has moved.
    public var unmovedDatabase: Database {
        if let database = sqliteDatabase { return database }
        if let generic = self as? SQLiteGenericConnection { return generic.base }
        fatalError("code not yet moved behind the storage boundary ran on \(dialect)")
    }
}
