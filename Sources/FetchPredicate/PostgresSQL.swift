/// A fragment of PostgreSQL SQL with its arguments kept apart from its text, as compiled predicates and
/// sort orders produce it for PostgreSQL (``CompiledPredicate/postgresSQL``).
///
/// Build one by interpolation: `"\(sql: column) > \(argument: .integer(3))"`; render it, numbering its
/// placeholders `$1`, `$2`, … from where the enclosing query needs them, with ``rendered(firstPlaceholder:)``.
/// Only trusted text (the schema's SQL expressions, operators) ever becomes SQL text; values are arguments.
public struct PostgresSQL: Sendable, Hashable, ExpressibleByStringInterpolation, CustomStringConvertible {
    /// A statement argument, typed as PostgreSQL receives it.
    public enum Argument: Sendable, Hashable {
        /// `bigint`
        case integer(Int64)
        /// `double precision`
        case double(Double)
        /// `text`
        case text(String)
    }

    enum Piece: Sendable, Hashable {
        case text(String)
        case argument(Argument)
    }

    private(set) var pieces: [Piece]

    /// A fragment of SQL text without arguments.
    public init(stringLiteral text: String) {
        pieces = [.text(text)]
    }

    public init(stringInterpolation: StringInterpolation) {
        pieces = stringInterpolation.pieces
    }

    /// Builds fragments from literal text, trusted SQL text, arguments and other fragments.
    public struct StringInterpolation: StringInterpolationProtocol {
        var pieces: [Piece] = []

        public init(literalCapacity: Int, interpolationCount: Int) {}

        public mutating func appendLiteral(_ literal: String) {
            if !literal.isEmpty { pieces.append(.text(literal)) }
        }

        /// Trusted SQL text, inserted as is.
        public mutating func appendInterpolation(sql: String) {
            pieces.append(.text(sql))
        }

        /// A value, as a placeholder and an argument.
        public mutating func appendInterpolation(argument: Argument) {
            pieces.append(.argument(argument))
        }

        /// Another fragment.
        public mutating func appendInterpolation(_ fragment: PostgresSQL) {
            pieces.append(contentsOf: fragment.pieces)
        }
    }

    /// The fragments joined by a separator.
    public static func joined(_ fragments: [PostgresSQL], separator: String) -> PostgresSQL {
        var result: PostgresSQL = ""
        result.pieces = []
        for (index, fragment) in fragments.enumerated() {
            if index > 0 { result.pieces.append(.text(separator)) }
            result.pieces.append(contentsOf: fragment.pieces)
        }
        return result
    }

    /// The SQL text with numbered placeholders, and the arguments in their order.
    ///
    /// - Parameter firstPlaceholder: The number of the first placeholder (1 unless the enclosing query has
    ///   arguments of its own before this fragment).
    /// - Complexity: O(n) in the size of the fragment.
    public func rendered(firstPlaceholder: Int = 1) -> (sql: String, arguments: [Argument]) {
        var sql = ""
        var arguments: [Argument] = []
        for piece in pieces {
            switch piece {
            case .text(let text): sql += text
            case .argument(let argument):
                arguments.append(argument)
                sql += "$\(firstPlaceholder + arguments.count - 1)"
            }
        }
        return (sql, arguments)
    }

    /// The rendered text, for messages.
    public var description: String { rendered().sql }
}
