public import Foundation

extension Predicate {
    /// Parses a predicate in the text format, checking keys and values against a schema.
    ///
    /// The format is close to `NSPredicate` format strings:
    ///
    /// ```text
    /// mediaType == image AND creationDate >= "2024-01-01" AND NOT isHidden
    /// originalFilename CONTAINS[c] "img" OR originalFilename LIKE "IMG_*.HEIC"
    /// pixelWidth BETWEEN {100, 2000} && mediaType IN {image, video}
    /// (isFavorite OR isHidden) && duration > 3.5 && burstIdentifier != nil
    /// mediaSubtypes CONTAINS photoPanorama
    /// ```
    ///
    /// Grammar (keywords are case-insensitive; `NOT` binds tighter than `AND`, which binds tighter than `OR`):
    ///
    /// ```text
    /// predicate  := or
    /// or         := and (("OR" | "||") and)*
    /// and        := not (("AND" | "&&") not)*
    /// not        := ("NOT" | "!") not | primary
    /// primary    := "(" or ")" | "TRUEPREDICATE" | "FALSEPREDICATE" | KEY [test]
    /// test       := compare value | "IN" list | "BETWEEN" "{" value "," value "}"
    ///             | ("CONTAINS" | "BEGINSWITH" | "ENDSWITH" | "LIKE") ["[" ("c" | "d" | "cd") "]"] value
    /// compare    := "==" | "=" | "!=" | "<>" | "<" | "<=" | "=<" | ">" | ">=" | "=>"
    /// list       := "{" [value ("," value)*] "}"
    /// value      := STRING | NUMBER | "YES" | "NO" | "TRUE" | "FALSE" | "nil" | "NULL" | NAME
    /// ```
    ///
    /// - A `KEY` alone (no test) must be a bool key: `isFavorite` means `isFavorite == true`.
    /// - Strings are single- or double-quoted, with the escapes `\\`, `\"`, `\'`, `\n`, `\t`, `\r`,
    ///   `\u{1F600}` and `\u00E9`; U+0000 is refused.
    /// - Numbers have an optional sign, fraction and exponent (`-12`, `3.5`, `1e-3`); those with a fraction
    ///   or an exponent are doubles. Integers must fit in 64 bits.
    /// - `NAME` is an enumeration case or option-set flag name (`image`, `photoPanorama`); quoted names are
    ///   accepted too, and so are integer raw values.
    /// - Dates are strings: `"2024-01-01"` (midnight in `timeZone`), `"2024-01-01T10:30"`,
    ///   `"2024-01-01T10:30:15.5"` (in `timeZone`), with `Z` or an offset like `+02:00` for other zones;
    ///   or numbers of seconds since 1970.
    /// - Values are checked against the key's type (see ``PredicateKeyType``) and converted to its
    ///   canonical form: dates to `.date`, names to `.integer` raw values, integers for double keys to
    ///   `.double`, `0`/`1` for bool keys to `.bool`.
    ///
    /// - Parameters:
    ///   - text: The predicate text.
    ///   - schema: The keys the predicate may use.
    ///   - timeZone: The time zone of dates written without a UTC offset.
    /// - Returns: The predicate, in canonical form.
    /// - Throws: ``PredicateError`` with the position of the first problem: a syntax error, an unknown key
    ///   (listing the valid keys), a value that does not fit its key, nesting deeper than 100 levels.
    /// - Complexity: O(n) in the length of the text (plus the size of schemas' name lists for names).
    public static func parse<Object>(
        _ text: String,
        schema: PredicateSchema<Object>,
        timeZone: TimeZone = .current
    ) throws(PredicateError) -> Predicate {
        var parser = try Parser(text, schema: schema, timeZone: timeZone)
        return try parser.parsePredicate()
    }

    /// Parses a predicate in the text format; the same as ``parse(_:schema:timeZone:)``.
    ///
    /// - Throws: ``PredicateError`` with the position of the first problem.
    public init<Object>(
        _ text: String,
        schema: PredicateSchema<Object>,
        timeZone: TimeZone = .current
    ) throws(PredicateError) {
        self = try Self.parse(text, schema: schema, timeZone: timeZone)
    }
}

/// A value as written in a predicate, before it is checked against its key.
struct Literal {
    enum Kind {
        /// A string, number, Boolean or nil.
        case value(PredicateValue)
        /// A bare name: an enumeration case or an option-set flag.
        case name(String)
    }

    var kind: Kind
    /// The `Character` offset in the text; nil for a value built in code.
    var position: Int?
    /// Whether the value was written in text (so strings may stand for dates and names).
    var isText: Bool

    /// How the value reads in an error message.
    var phrase: String {
        switch kind {
        case .name(let name): "the name '\(name)'"
        case .value(let value):
            switch value {
            case .null: "nil"
            case .bool(let flag): flag ? "true" : "false"
            case .integer(let integer): "the integer \(integer)"
            case .double(let double): "the number \(PredicateValue.formatDouble(double))"
            case .date(let date): "the date \(DateLiteral.format(date))"
            case .string(let string): "the string \(PredicateValue.quote(string))"
            }
        }
    }
}

/// Checks values against key types, shared by the parser and by the compilation of predicates built in
/// code, so that both accept the same values and produce the same canonical values.
enum TypeCheck {
    /// The canonical value of a literal for a key, or an error.
    static func value(
        _ literal: Literal, key: String, type: PredicateKeyType, timeZone: TimeZone?
    ) throws(PredicateError) -> PredicateValue {
        switch literal.kind {
        case .name(let name):
            if let raw = type.rawValue(named: name) {
                return .integer(raw)
            }
            if !type.namedValues.isEmpty || isNamed(type) {
                throw unknownCase(name, key: key, type: type, position: literal.position)
            }
            throw PredicateError.typeMismatch(
                key, position: literal.position,
                "\(literal.phrase) is not a value for \(type) key '\(key)' "
                    + "(quote strings; comparing two keys is not supported)")
        case .value(let value):
            if value.isNullLike { return .null }
            switch (type, value) {
            case (.bool, .bool):
                return value
            case (.bool, .integer(let integer)) where integer == 0 || integer == 1:
                return .bool(integer == 1)
            case (.integer, .integer), (.integer, .double), (.double, .double), (.date, .date):
                return value
            case (.double, .integer(let integer)):
                return .double(Double(integer))
            case (.date, .integer(let integer)):
                return .date(Date(timeIntervalSince1970: Double(integer)))
            case (.date, .double(let seconds)):
                return .date(Date(timeIntervalSince1970: seconds))
            case (.date, .string(let string)) where literal.isText:
                guard let date = DateLiteral.parse(string, timeZone: timeZone ?? .current) else {
                    throw PredicateError(
                        .invalidValue(string), position: literal.position,
                        message: "invalid date \(PredicateValue.quote(string)) for key '\(key)' (use \"2024-01-31\", "
                            + "\"2024-01-31T10:30\", \"2024-01-31T10:30:00.5Z\" or \"2024-01-31T10:30:00+02:00\")")
                }
                return .date(date)
            case (.string, .string(let string)):
                try checkNoNUL(string, position: literal.position)
                return value
            case (.enumeration, .integer), (.optionSet, .integer):
                return value
            case (.enumeration, .string(let name)) where literal.isText,
                (.optionSet, .string(let name)) where literal.isText:
                guard let raw = type.rawValue(named: name) else {
                    throw unknownCase(name, key: key, type: type, position: literal.position)
                }
                return .integer(raw)
            default:
                throw PredicateError.typeMismatch(
                    key, position: literal.position,
                    "\(type) key '\(key)' cannot be compared with \(literal.phrase)" + hint(for: type))
            }
        }
    }

    /// A string pattern for a string operator.
    static func pattern(_ literal: Literal, key: String, op: StringOperator) throws(PredicateError) -> String {
        guard case .value(.string(let pattern)) = literal.kind else {
            throw PredicateError.typeMismatch(
                key, position: literal.position, "the pattern of \(op) must be a string, not \(literal.phrase)")
        }
        try checkNoNUL(pattern, position: literal.position)
        return pattern
    }

    /// Checks that an operator applies to a key's type.
    static func check(
        _ op: String, ordering: Bool, key: String, type: PredicateKeyType, position: Int?
    ) throws(PredicateError) {
        if ordering && !type.isOrdered {
            throw PredicateError.typeMismatch(
                key, position: position, "operator \(op) does not apply to \(type) key '\(key)' (use == or !=)")
        }
    }

    /// Checks that a string operator applies to a key's type.
    static func checkString(
        _ op: StringOperator, options: StringOptions, key: String, type: PredicateKeyType, position: Int?
    ) throws(PredicateError) {
        switch type {
        case .string:
            return
        case .optionSet where op == .contains:
            if !options.isEmpty {
                throw PredicateError(
                    .invalidOption(options.description), position: position,
                    message: "options \(options) apply to strings, not to option set key '\(key)'")
            }
        default:
            throw PredicateError.typeMismatch(
                key, position: position,
                "\(op) applies to string keys\(op == .contains ? " and option sets" : ""), not to \(type) key '\(key)'"
            )
        }
    }

    static func checkNoNUL(_ string: String, position: Int?) throws(PredicateError) {
        if string.utf8.contains(0) {
            throw PredicateError(
                .invalidValue(string), position: position, message: "strings cannot contain U+0000")
        }
    }

    private static func isNamed(_ type: PredicateKeyType) -> Bool {
        switch type {
        case .enumeration, .optionSet: true
        default: false
        }
    }

    private static func unknownCase(
        _ name: String, key: String, type: PredicateKeyType, position: Int?
    ) -> PredicateError {
        let valid = type.namedValues.map(\.name)
        let what = if case .optionSet = type { "flag" } else { "case" }
        return PredicateError(
            .unknownCase(name: name, key: key, validCases: valid), position: position,
            message: "'\(name)' is not a \(what) of key '\(key)'; valid \(what)s: "
                + (valid.isEmpty ? "none" : valid.joined(separator: ", ")))
    }

    private static func hint(for type: PredicateKeyType) -> String {
        switch type {
        case .bool: " (use true or false)"
        case .integer, .double: " (use a number)"
        case .date: " (use a date string such as \"2024-01-31\")"
        case .string: " (use a quoted string)"
        case .enumeration(let cases): " (use one of: \(cases.map(\.name).joined(separator: ", ")))"
        case .optionSet(let flags): " (use one of: \(flags.map(\.name).joined(separator: ", ")))"
        }
    }
}

/// A recursive-descent parser for the predicate text format.
struct Parser<Object> {
    static var maximumDepth: Int { 100 }

    private let schema: PredicateSchema<Object>
    private let timeZone: TimeZone
    private var lexer: Lexer
    private var token: Token
    private var depth = 0

    init(_ text: String, schema: PredicateSchema<Object>, timeZone: TimeZone) throws(PredicateError) {
        self.schema = schema
        self.timeZone = timeZone
        self.lexer = Lexer(text)
        self.token = try lexer.next()
    }

    mutating func parsePredicate() throws(PredicateError) -> Predicate {
        let predicate = try parseOr()
        guard token.kind == .end else {
            throw unexpected(token, expected: "AND, OR or the end of the predicate")
        }
        return predicate
    }

    // MARK: Helpers

    private mutating func advance() throws(PredicateError) {
        token = try lexer.next()
    }

    private func position(_ token: Token) -> Int {
        lexer.position(token.start)
    }

    private func unexpected(_ token: Token, expected: String) -> PredicateError {
        if token.kind == .end {
            return PredicateError(
                .unexpectedEnd, position: position(token), message: "unexpected end of text; expected \(expected)")
        }
        return PredicateError(
            .unexpectedToken(token.text), position: position(token),
            message: "unexpected '\(token.text)'; expected \(expected)")
    }

    private mutating func enter(_ token: Token) throws(PredicateError) {
        depth += 1
        if depth > Self.maximumDepth {
            throw PredicateError(
                .nestingTooDeep(limit: Self.maximumDepth), position: position(token),
                message: "parentheses and NOTs are nested deeper than \(Self.maximumDepth) levels")
        }
    }

    // MARK: Grammar

    private mutating func parseOr() throws(PredicateError) -> Predicate {
        var operands = [try parseAnd()]
        while token.is(Keyword.or) || token.is(Symbol.or) {
            try advance()
            operands.append(try parseAnd())
        }
        return operands.count == 1 ? operands[0] : .or(operands)
    }

    private mutating func parseAnd() throws(PredicateError) -> Predicate {
        var operands = [try parseNot()]
        while token.is(Keyword.and) || token.is(Symbol.and) {
            try advance()
            operands.append(try parseNot())
        }
        return operands.count == 1 ? operands[0] : .and(operands)
    }

    private mutating func parseNot() throws(PredicateError) -> Predicate {
        guard token.is(Keyword.not) || token.is(Symbol.not) else {
            return try parsePrimary()
        }
        try enter(token)
        try advance()
        let operand = try parseNot()
        depth -= 1
        return .not(operand)
    }

    private mutating func parsePrimary() throws(PredicateError) -> Predicate {
        let start = token
        switch start.kind {
        case .symbol(.leftParenthesis):
            try enter(start)
            try advance()
            let predicate = try parseOr()
            guard token.is(Symbol.rightParenthesis) else {
                throw unexpected(token, expected: "')' to close the '(' at position \(position(start))")
            }
            try advance()
            depth -= 1
            return predicate
        case .keyword(.truepredicate):
            try advance()
            return .constant(true)
        case .keyword(.falsepredicate):
            try advance()
            return .constant(false)
        case .identifier(let name):
            return try parseTest(name: name, keyToken: start)
        default:
            throw unexpected(start, expected: "a key, '(', NOT, TRUEPREDICATE or FALSEPREDICATE")
        }
    }

    private mutating func parseTest(name: String, keyToken: Token) throws(PredicateError) -> Predicate {
        let key = try schema.resolve(name, position: position(keyToken))
        try advance()
        let opToken = token
        switch opToken.kind {
        case .symbol(let symbol):
            let op: ComparisonOperator
            switch symbol {
            case .equal: op = .equal
            case .notEqual: op = .notEqual
            case .less: op = .less
            case .lessOrEqual: op = .lessOrEqual
            case .greater: op = .greater
            case .greaterOrEqual: op = .greaterOrEqual
            case .rightParenthesis, .and, .or:
                return try bareKey(key, keyToken: keyToken)
            default:
                throw expectedOperator(after: name)
            }
            try TypeCheck.check(
                opToken.text, ordering: op.isOrdering, key: name, type: key.type, position: position(opToken))
            try advance()
            let value = try value(for: key, expected: "a value after \(opToken.text)")
            return .comparison(key: name, op: op, value: value)
        case .keyword(.in):
            try advance()
            return .in(key: name, values: try list(for: key))
        case .keyword(.between):
            try TypeCheck.check("BETWEEN", ordering: true, key: name, type: key.type, position: position(opToken))
            try advance()
            try expect(.leftBrace, "'{' to start BETWEEN's {lower, upper}")
            let lower = try value(for: key, expected: "the lower bound")
            try expect(.comma, "',' between the bounds")
            let upper = try value(for: key, expected: "the upper bound")
            try expect(.rightBrace, "'}' after the upper bound")
            return .between(key: name, lower: lower, upper: upper)
        case .keyword(let keyword) where [.contains, .beginswith, .endswith, .like].contains(keyword):
            let op: StringOperator =
                switch keyword {
                case .contains: .contains
                case .beginswith: .beginsWith
                case .endswith: .endsWith
                default: .like
                }
            try advance()
            let options = try parseOptions()
            try TypeCheck.checkString(
                op, options: options.options, key: name, type: key.type,
                position: options.position ?? position(opToken))
            if case .optionSet = key.type {
                let literalToken = token
                guard case .integer(let mask) = try value(for: key, expected: "a flag name after CONTAINS") else {
                    throw PredicateError.typeMismatch(
                        name, position: position(literalToken), "CONTAINS on option set key '\(name)' needs a flag")
                }
                return .containsFlags(key: name, mask: mask)
            }
            let literal = try literal(expected: "a string after \(op)")
            let pattern = try TypeCheck.pattern(literal, key: name, op: op)
            return .stringMatch(key: name, op: op, pattern: pattern, options: options.options)
        case .keyword(.and), .keyword(.or), .end:
            return try bareKey(key, keyToken: keyToken)
        default:
            throw expectedOperator(after: name)
        }
    }

    private func expectedOperator(after name: String) -> PredicateError {
        unexpected(
            token,
            expected: "an operator after key '\(name)' "
                + "(==, !=, <, <=, >, >=, IN, BETWEEN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE)")
    }

    private func bareKey(_ key: PredicateKey<Object>, keyToken: Token) throws(PredicateError) -> Predicate {
        guard case .bool = key.type else {
            throw PredicateError.typeMismatch(
                key.name, position: position(keyToken),
                "\(key.type) key '\(key.name)' cannot stand alone as a condition; only bool keys can "
                    + "(compare it, e.g. '\(key.name) == …')")
        }
        return .key(key.name)
    }

    private mutating func expect(_ symbol: Symbol, _ expected: String) throws(PredicateError) {
        guard token.is(symbol) else { throw unexpected(token, expected: expected) }
        try advance()
    }

    private mutating func parseOptions() throws(PredicateError) -> (options: StringOptions, position: Int?) {
        guard token.is(Symbol.leftBracket) else { return ([], nil) }
        let bracket = token
        try advance()
        let letters = token
        guard case .identifier(let word) = letters.kind else {
            throw unexpected(letters, expected: "string options c, d or cd")
        }
        var options: StringOptions = []
        for character in word {
            switch character {
            case "c", "C": options.insert(.caseInsensitive)
            case "d", "D": options.insert(.diacriticInsensitive)
            default:
                throw PredicateError(
                    .invalidOption(word), position: position(letters),
                    message: "unknown string option '[\(word)]'; valid options are [c], [d] and [cd]")
            }
        }
        try advance()
        try expect(.rightBracket, "']' after the string options")
        return (options, position(bracket))
    }

    private mutating func literal(expected: String) throws(PredicateError) -> Literal {
        let start = token
        let kind: Literal.Kind
        switch start.kind {
        case .string(let string): kind = .value(.string(string))
        case .integer(let integer): kind = .value(.integer(integer))
        case .double(let double): kind = .value(.double(double))
        case .keyword(.yes), .keyword(.true): kind = .value(.bool(true))
        case .keyword(.no), .keyword(.false): kind = .value(.bool(false))
        case .keyword(.nil), .keyword(.null): kind = .value(.null)
        case .identifier(let name): kind = .name(name)
        default:
            throw unexpected(start, expected: expected + " (a string, a number, true, false, nil or a name)")
        }
        try advance()
        return Literal(kind: kind, position: position(start), isText: true)
    }

    private mutating func value(for key: PredicateKey<Object>, expected: String) throws(PredicateError)
        -> PredicateValue
    {
        let literal = try literal(expected: expected)
        return try TypeCheck.value(literal, key: key.name, type: key.type, timeZone: timeZone)
    }

    private mutating func list(for key: PredicateKey<Object>) throws(PredicateError) -> [PredicateValue] {
        try expect(.leftBrace, "'{' to start the list of values")
        var values: [PredicateValue] = []
        if token.is(Symbol.rightBrace) {
            try advance()
            return values
        }
        while true {
            values.append(try value(for: key, expected: "a value in the list"))
            if token.is(Symbol.comma) {
                try advance()
            } else if token.is(Symbol.rightBrace) {
                try advance()
                return values
            } else {
                throw unexpected(token, expected: "',' or '}' in the list of values")
            }
        }
    }
}
