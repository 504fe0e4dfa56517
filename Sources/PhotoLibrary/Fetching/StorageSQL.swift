import FetchPredicate
import GRDB
import LibraryStorage

/// Statements composed as GRDB `SQL` literals (text with `?` placeholders and their values), rendered for
/// whichever engine runs them: the one representation the fetch compilers build, whatever the dialect.
///
/// Rendering a literal made of text and values needs no database: it only joins the text and collects the
/// arguments. GRDB's renderer asks for a connection anyway; a SQLite connection's own one serves on the fast
/// path, an in-memory connection kept for the purpose on every other path.
enum StorageSQL {
    /// The statement's text and arguments, to run on `db`.
    ///
    /// - Throws: GRDB's error when the literal holds something that needs a schema to render (it never
    ///   does here: the compilers use text and values only).
    static func render(_ sql: SQL, _ db: any SQLConnection) throws -> (String, StatementArguments) {
        if let sqlite = db.sqliteDatabase { return try sql.build(sqlite) }
        return try renderer.read { db in try sql.build(db) }
    }

    /// The connection literals are rendered with off the SQLite fast path: in memory, never holding data.
    private static let renderer: DatabaseQueue = {
        do { return try DatabaseQueue() } catch { fatalError("photosync: cannot open an in-memory SQLite connection: \(error)") }
    }()

    /// A PostgreSQL fragment of FetchPredicate as a literal with `?` placeholders: its `$n` placeholders are
    /// numbered 1, 2, … in the order of its arguments, each used once, and only its arguments are written so.
    static func literal(_ fragment: PostgresSQL) -> SQL {
        let (text, arguments) = fragment.rendered(firstPlaceholder: 1)
        var result = ""
        var index = text.startIndex
        while index < text.endIndex {
            let character = text[index]
            index = text.index(after: index)
            guard character == "$", index < text.endIndex, text[index].isASCII, text[index].isNumber else {
                result.append(character)
                continue
            }
            while index < text.endIndex, text[index].isASCII, text[index].isNumber { index = text.index(after: index) }
            result.append("?")
        }
        return SQL(sql: result, arguments: StatementArguments(arguments.map(\.databaseValue)))
    }
}

extension PostgresSQL.Argument {
    var databaseValue: DatabaseValue {
        switch self {
        case .integer(let value): value.databaseValue
        case .double(let value): value.databaseValue
        case .text(let value): value.databaseValue
        }
    }
}
