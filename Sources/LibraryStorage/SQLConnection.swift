public import GRDB

/// One connection of a storage engine, inside a read snapshot or a write transaction the engine opened
/// (``StorageEngine``): what the library's SQL runs through, on SQLite and on PostgreSQL alike.
///
/// Statements use `?` parameters and the SQL both engines accept; ``dialect`` says which one runs them where
/// they must differ. Values are GRDB's vocabulary (`StatementArguments`, `DatabaseValue`, `Row`) on both
/// engines: a row read from PostgreSQL is a `Row` whose columns are looked up by name (case-insensitively,
/// as GRDB does), and a SMALLINT, INTEGER or BIGINT reads as an `Int64`, a BOOLEAN as 0 or 1.
///
/// A connection is used by one thread at a time, inside the engine's call that handed it out, and never
/// kept after that call returns.
public protocol SQLConnection: AnyObject {
    /// The SQL this connection speaks.
    var dialect: SQLDialect { get }

    /// The GRDB connection when the engine is SQLite: the door of the fast paths that bind and read through
    /// SQLite's C API. Nil on other engines.
    var sqliteDatabase: Database? { get }

    /// Runs one or more statements, discarding any rows.
    ///
    /// - Throws: the engine's error (`DatabaseError` on SQLite, `PostgresStoreError` on PostgreSQL).
    func execute(sql: String, arguments: StatementArguments) throws

    /// Runs a query and calls `body` on each row, in order, until the rows end or `body` returns false.
    ///
    /// - Parameter cached: whether the engine keeps the statement prepared for the next call with the same
    ///   SQL (worth it for statements a loop or every round runs; not for SQL made per call).
    /// - Throws: the engine's error; what `body` throws.
    func forEachRow(
        sql: String, arguments: StatementArguments, cached: Bool, _ body: (any SQLColumns) throws -> Bool
    ) throws

    /// Runs a query and returns its rows.
    ///
    /// Read their columns **by name** (`row["name"]`): on engines other than SQLite a row is built from its
    /// columns by name, so positions are not kept and, of two columns of the same name, the later one wins.
    /// To read by position, use ``forEachRow(sql:arguments:cached:_:)``.
    ///
    /// - Throws: the engine's error.
    func fetchRows(sql: String, arguments: StatementArguments, cached: Bool) throws -> [Row]

    /// How many rows the last `INSERT`, `UPDATE` or `DELETE` run through ``execute(sql:arguments:)`` changed.
    var changesCount: Int { get }
}
