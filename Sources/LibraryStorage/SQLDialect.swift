/// The SQL a storage engine speaks.
///
/// The library's statements are written once, in the SQL both engines accept (`INSERT … ON CONFLICT`, `id`
/// rather than `rowid`, `?` parameters); where they must differ, the code asks the connection's dialect.
public enum SQLDialect: Sendable, Hashable {
    /// SQLite, through GRDB: the embedded default.
    case sqlite
    /// PostgreSQL, through postgres-nio: the shared engine.
    case postgres
}
