import Foundation

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
