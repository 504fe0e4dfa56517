import Foundation
public import GRDB
public import LibraryStorage
import Logging
import PostgresNIO

/// A PostgreSQL connection as the library's ``SQLConnection``: GRDB's `?` statements and values, run through
/// postgres-nio, blocking the calling thread until the server answers (see ``Blocking``).
///
/// - Placeholders: `?` becomes `$1, $2…` (not inside literals, quoted identifiers or comments:
///   ``PostgresStatementText``).
/// - Arguments are positional. An integer is bound as BIGINT, a double as DOUBLE PRECISION, text as TEXT
///   and a blob as BYTEA: PostgreSQL converts a BIGINT to a SMALLINT, INTEGER or DOUBLE column on
///   assignment and compares it with them directly, and `LIMIT`, `OFFSET` take it as is. A NULL is written
///   into the statement as the literal `NULL`, which PostgreSQL types from its context (`? IS NULL` works,
///   where an untyped NULL parameter has no type to take).
/// - Results: see ``PostgresColumns/values(of:sql:)``. A query's rows are read whole before the visitor
///   runs (postgres-nio's future API); a visitor that stops early saves the conversions, not the transfer.
/// - Several statements separated by `;` run one after the other when there are no arguments (scripts,
///   DDL); with arguments they are refused.
/// - `cached` is accepted and ignored: each statement is sent as an unnamed statement, parsed, bound and
///   run in one round trip.
///
/// Errors are ``PostgresStoreError``; a server error's message ends with the statement.
public final class PostgresSQLConnection: SQLConnection {
    let connection: PostgresConnection
    let configuration: PostgresConfiguration
    let logger: Logger
    /// Rows changed by the last INSERT, UPDATE, DELETE or MERGE (also one run as a query, with RETURNING).
    public private(set) var changesCount = 0

    init(_ connection: PostgresConnection, configuration: PostgresConfiguration, logger: Logger) {
        self.connection = connection
        self.configuration = configuration
        self.logger = logger
    }

    public var dialect: SQLDialect { .postgres }

    public var sqliteDatabase: Database? { nil }

    public func execute(sql: String, arguments: StatementArguments) throws {
        let statements = PostgresStatementText.statements(in: sql)
        let values = try Self.positionalValues(arguments, sql: sql)
        if statements.count > 1 && !values.isEmpty {
            throw PostgresStoreError.invalidStatement(
                sql: sql, reason: "several statements with arguments: run them one by one")
        }
        for statement in statements { _ = try run(statement, values, sql: sql) }
    }

    public func forEachRow(
        sql: String, arguments: StatementArguments, cached: Bool, _ body: (any SQLColumns) throws -> Bool
    ) throws {
        let rows = try query(sql: sql, arguments: arguments)
        guard let first = rows.first else { return }
        let names = first.map(\.columnName)
        for row in rows {
            let columns = PostgresColumns(names: names, values: try PostgresColumns.values(of: row, sql: sql))
            if try !body(columns) { return }
        }
    }

    public func fetchRows(sql: String, arguments: StatementArguments, cached: Bool) throws -> [Row] {
        let rows = try query(sql: sql, arguments: arguments)
        guard let first = rows.first else { return [] }
        let names = first.map(\.columnName)
        return try rows.map { row in
            PostgresColumns(names: names, values: try PostgresColumns.values(of: row, sql: sql)).row()
        }
    }

    /// Runs one statement that may return rows.
    private func query(sql: String, arguments: StatementArguments) throws -> [PostgresRow] {
        let statements = PostgresStatementText.statements(in: sql)
        guard statements.count == 1 else {
            throw PostgresStoreError.invalidStatement(
                sql: sql, reason: statements.isEmpty ? "no statement" : "a query must be one statement")
        }
        return try run(statements[0], try Self.positionalValues(arguments, sql: sql), sql: sql).rows
    }

    private func run(_ statement: PostgresStatementText, _ values: [DatabaseValue], sql: String) throws
        -> PostgresQueryResult
    {
        guard statement.placeholderCount == values.count else {
            throw PostgresStoreError.invalidStatement(
                sql: sql, reason: "\(values.count) arguments for \(statement.placeholderCount) placeholders")
        }
        var bindings = PostgresBindings(capacity: values.count)
        for value in values {
            switch value.storage {
            case .null: break  // written into the text as NULL
            case .int64(let value): bindings.append(value)
            case .double(let value): bindings.append(value)
            case .string(let value): bindings.append(value)
            case .blob(let value): bindings.append(ByteBuffer(bytes: value))
            }
        }
        let text = statement.rendered { values[$0].isNull }
        let result: PostgresQueryResult
        do {
            result = try Blocking.wait(connection.query(PostgresQuery(unsafeSQL: text, binds: bindings), logger: logger))
        } catch {
            throw Self.mapped(error, sql: sql, configuration)
        }
        if ["INSERT", "UPDATE", "DELETE", "MERGE"].contains(result.metadata.command) {
            changesCount = result.metadata.rows ?? 0
        }
        return result
    }

    /// The store's error for a postgres-nio error, a server error naming the statement.
    static func mapped(_ error: any Error, sql: String, _ configuration: PostgresConfiguration) -> any Error {
        let mapped = PostgresStoreError.map(error, configuration)
        if case .server(let state, let message)? = mapped as? PostgresStoreError {
            return PostgresStoreError.server(sqlState: state, message: "\(message) (in: \(sql))")
        }
        return mapped
    }

    /// GRDB's positional arguments. `StatementArguments` doesn't expose its values; they are read by
    /// reflection of its stored `values` (a test of every storage class catches a change of its layout).
    ///
    /// - Throws: ``PostgresStoreError/invalidStatement(sql:reason:)`` for named arguments.
    static func positionalValues(_ arguments: StatementArguments, sql: String) throws -> [DatabaseValue] {
        if arguments.isEmpty { return [] }
        var values: [DatabaseValue]?
        var named: [String: DatabaseValue]?
        for child in Mirror(reflecting: arguments).children {
            if child.label == "values" { values = child.value as? [DatabaseValue] }
            if child.label == "namedValues" { named = child.value as? [String: DatabaseValue] }
        }
        guard let values, let named else {
            throw PostgresStoreError.invalidStatement(sql: sql, reason: "unreadable StatementArguments (GRDB changed?)")
        }
        guard named.isEmpty else {
            throw PostgresStoreError.invalidStatement(sql: sql, reason: "named arguments: the engine takes positional ones")
        }
        return values
    }
}
