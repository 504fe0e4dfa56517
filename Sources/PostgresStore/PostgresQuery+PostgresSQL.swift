public import FetchPredicate
public import PostgresNIO

extension PostgresQuery {
    /// A query from a compiled predicate's or sort order's ``PostgresSQL`` (placeholders from `$1`).
    ///
    /// ```swift
    /// let condition = try predicate.compiled(for: assetSchema).postgresSQL
    /// let query = PostgresQuery("SELECT id FROM asset WHERE \(condition) ORDER BY id" as PostgresSQL)
    /// ```
    public init(_ sql: PostgresSQL) {
        let (text, arguments) = sql.rendered()
        var bindings = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .integer(let value): bindings.append(value)
            case .double(let value): bindings.append(value)
            case .text(let value): bindings.append(value)
            }
        }
        self.init(unsafeSQL: text, binds: bindings)
    }
}
