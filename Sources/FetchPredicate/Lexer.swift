/// A keyword of the predicate language; matched case-insensitively.
enum Keyword: String, CaseIterable {
    case and, or, not
    case truepredicate, falsepredicate
    case yes, no, `true`, `false`
    case `nil`, null
    case `in`, between
    case contains, beginswith, endswith, like
}

/// A punctuation token.
enum Symbol: String {
    case leftParenthesis = "("
    case rightParenthesis = ")"
    case leftBrace = "{"
    case rightBrace = "}"
    case leftBracket = "["
    case rightBracket = "]"
    case comma = ","
    case equal = "=="
    case notEqual = "!="
    case less = "<"
    case lessOrEqual = "<="
    case greater = ">"
    case greaterOrEqual = ">="
    case and = "&&"
    case or = "||"
    case not = "!"
    case minus = "-"
    case plus = "+"
}

/// A token of the predicate or sort-list text.
struct Token {
    enum Kind: Equatable {
        case identifier(String)
        case keyword(Keyword)
        case string(String)
        case integer(Int64)
        case double(Double)
        case symbol(Symbol)
        case end
    }

    var kind: Kind
    /// Offset of the first Unicode scalar.
    var start: Int
    /// The token as written.
    var text: String

    func `is`(_ keyword: Keyword) -> Bool { kind == .keyword(keyword) }
    func `is`(_ symbol: Symbol) -> Bool { kind == .symbol(symbol) }
}

/// Splits predicate text into tokens, one at a time, so that errors come in text order.
///
/// The lexer works on Unicode scalars; positions in errors are converted to `Character` offsets.
struct Lexer {
    private let scalars: [Unicode.Scalar]
    /// For each scalar offset (and the end), the offset of the `Character` that holds it.
    private let characterOffsets: [Int]
    private var index = 0

    init(_ text: String) {
        var scalars: [Unicode.Scalar] = []
        var offsets: [Int] = []
        var characterCount = 0
        for character in text {
            for scalar in character.unicodeScalars {
                scalars.append(scalar)
                offsets.append(characterCount)
            }
            characterCount += 1
        }
        offsets.append(characterCount)
        self.scalars = scalars
        self.characterOffsets = offsets
    }

    /// The `Character` offset of a scalar offset.
    func position(_ scalarOffset: Int) -> Int {
        characterOffsets[min(max(0, scalarOffset), characterOffsets.count - 1)]
    }

    /// Whether a string is an identifier the lexer reads as one token (and not as a number).
    static func isIdentifier(_ text: String) -> Bool {
        guard let first = text.unicodeScalars.first, isIdentifierStart(first) else { return false }
        return text.unicodeScalars.allSatisfy(isIdentifierPart)
    }

    static func isIdentifierStart(_ scalar: Unicode.Scalar) -> Bool {
        scalar == "_" || scalar.properties.isAlphabetic
    }

    static func isIdentifierPart(_ scalar: Unicode.Scalar) -> Bool {
        isIdentifierStart(scalar) || isDigit(scalar) || scalar == "."
    }

    static func isDigit(_ scalar: Unicode.Scalar) -> Bool {
        scalar >= "0" && scalar <= "9"
    }

    private func peek(_ offset: Int = 0) -> Unicode.Scalar? {
        let at = index + offset
        return at < scalars.count ? scalars[at] : nil
    }

    private func text(_ range: Range<Int>) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars[range])
        return String(view)
    }

    private func error(_ kind: PredicateError.Kind, at scalarOffset: Int, _ message: String) -> PredicateError {
        PredicateError(kind, position: position(scalarOffset), message: message)
    }

    /// Reads the next token; `.end` at the end of the text, again and again.
    ///
    /// - Throws: ``PredicateError`` for an unexpected character, a malformed number or string.
    mutating func next() throws(PredicateError) -> Token {
        while let scalar = peek(), scalar.properties.isWhitespace {
            index += 1
        }
        let start = index
        guard let scalar = peek() else {
            return Token(kind: .end, start: start, text: "")
        }
        if Self.isIdentifierStart(scalar) {
            while let next = peek(), Self.isIdentifierPart(next) { index += 1 }
            let word = text(start..<index)
            if let keyword = Keyword(rawValue: word.lowercased()) {
                return Token(kind: .keyword(keyword), start: start, text: word)
            }
            return Token(kind: .identifier(word), start: start, text: word)
        }
        if Self.isDigit(scalar) || ((scalar == "-" || scalar == "+") && peek(1).map(Self.isDigit) == true) {
            return try number()
        }
        if scalar == "\"" || scalar == "'" {
            return try string(quote: scalar)
        }
        index += 1
        let symbol: Symbol
        switch scalar {
        case "(": symbol = .leftParenthesis
        case ")": symbol = .rightParenthesis
        case "{": symbol = .leftBrace
        case "}": symbol = .rightBrace
        case "[": symbol = .leftBracket
        case "]": symbol = .rightBracket
        case ",": symbol = .comma
        case "-": symbol = .minus
        case "+": symbol = .plus
        case "=":
            if peek() == "=" {
                index += 1
                symbol = .equal
            } else if peek() == "<" {
                index += 1
                symbol = .lessOrEqual
            } else if peek() == ">" {
                index += 1
                symbol = .greaterOrEqual
            } else {
                symbol = .equal
            }
        case "!":
            if peek() == "=" {
                index += 1
                symbol = .notEqual
            } else {
                symbol = .not
            }
        case "<":
            if peek() == "=" {
                index += 1
                symbol = .lessOrEqual
            } else if peek() == ">" {
                index += 1
                symbol = .notEqual
            } else {
                symbol = .less
            }
        case ">":
            if peek() == "=" {
                index += 1
                symbol = .greaterOrEqual
            } else {
                symbol = .greater
            }
        case "&" where peek() == "&":
            index += 1
            symbol = .and
        case "|" where peek() == "|":
            index += 1
            symbol = .or
        default:
            throw error(
                .unexpectedCharacter(Character(scalar)), at: start,
                "unexpected character '\(Character(scalar))'" + (scalar == "&" ? " (did you mean '&&'?)" : "")
                    + (scalar == "|" ? " (did you mean '||'?)" : ""))
        }
        return Token(kind: .symbol(symbol), start: start, text: symbol.rawValue)
    }

    /// `[+-]digits[.digits][(e|E)[+-]digits]`; an integer unless it has a fraction or an exponent.
    private mutating func number() throws(PredicateError) -> Token {
        let start = index
        if peek() == "-" || peek() == "+" { index += 1 }
        while let digit = peek(), Self.isDigit(digit) { index += 1 }
        var isInteger = true
        if peek() == ".", let next = peek(1), Self.isDigit(next) {
            isInteger = false
            index += 1
            while let digit = peek(), Self.isDigit(digit) { index += 1 }
        }
        if peek() == "e" || peek() == "E" {
            var end = index + 1
            if end < scalars.count, scalars[end] == "-" || scalars[end] == "+" { end += 1 }
            if end < scalars.count, Self.isDigit(scalars[end]) {
                isInteger = false
                index = end
                while let digit = peek(), Self.isDigit(digit) { index += 1 }
            }
        }
        if let next = peek(), Self.isIdentifierPart(next) {
            while let part = peek(), Self.isIdentifierPart(part) { index += 1 }
            let written = text(start..<index)
            throw error(.invalidNumber(written), at: start, "malformed number '\(written)'")
        }
        let written = text(start..<index)
        if isInteger {
            guard let value = Int64(written) else {
                throw error(.invalidNumber(written), at: start, "integer '\(written)' is out of the 64-bit range")
            }
            return Token(kind: .integer(value), start: start, text: written)
        }
        guard let value = Double(written), value.isFinite else {
            throw error(.invalidNumber(written), at: start, "number '\(written)' is out of range")
        }
        return Token(kind: .double(value), start: start, text: written)
    }

    /// A single- or double-quoted string with escapes `\\ \" \' \n \t \r \u{X…} \uXXXX`.
    private mutating func string(quote: Unicode.Scalar) throws(PredicateError) -> Token {
        let start = index
        index += 1
        var value = String.UnicodeScalarView()
        while true {
            guard let scalar = peek() else {
                throw error(.unterminatedString, at: start, "string starting here has no closing \(quote)")
            }
            index += 1
            if scalar == quote { break }
            if scalar == "\0" {
                throw error(.invalidValue("\\u{0}"), at: index - 1, "strings cannot contain U+0000")
            }
            guard scalar == "\\" else {
                value.append(scalar)
                continue
            }
            let escapeStart = index - 1
            guard let escaped = peek() else {
                throw error(.unterminatedString, at: start, "string starting here has no closing \(quote)")
            }
            index += 1
            switch escaped {
            case "\\", "\"", "'": value.append(escaped)
            case "n": value.append("\n")
            case "t": value.append("\t")
            case "r": value.append("\r")
            case "u": value.append(try unicodeEscape(escapeStart: escapeStart))
            default:
                let written = "\\" + String(Character(escaped))
                throw error(
                    .invalidEscape(written), at: escapeStart,
                    "unknown escape '\(written)' (use \\\\, \\\", \\', \\n, \\t, \\r, \\u{…} or \\uXXXX)")
            }
        }
        return Token(kind: .string(String(value)), start: start, text: text(start..<index))
    }

    /// After `\u`: `{` 1–8 hex digits `}` or exactly 4 hex digits.
    private mutating func unicodeEscape(escapeStart: Int) throws(PredicateError) -> Unicode.Scalar {
        var digits = ""
        if peek() == "{" {
            index += 1
            while let scalar = peek(), scalar != "}", scalar != "\"", scalar != "'", digits.count <= 8 {
                digits.unicodeScalars.append(scalar)
                index += 1
            }
            guard peek() == "}" else {
                throw badEscape(escapeStart)
            }
            index += 1
        } else {
            for _ in 0..<4 {
                guard let scalar = peek() else { break }
                digits.unicodeScalars.append(scalar)
                index += 1
            }
        }
        guard (1...8).contains(digits.count), digits.unicodeScalars.allSatisfy(\.properties.isASCIIHexDigit),
            let code = UInt32(digits, radix: 16),
            let scalar = Unicode.Scalar(code)
        else {
            throw badEscape(escapeStart)
        }
        if code == 0 {
            throw error(.invalidValue("\\u{0}"), at: escapeStart, "strings cannot contain U+0000")
        }
        return scalar
    }

    private func badEscape(_ escapeStart: Int) -> PredicateError {
        let written = text(escapeStart..<min(index, scalars.count))
        return error(
            .invalidEscape(written), at: escapeStart,
            "malformed Unicode escape '\(written)' (use \\u{1F600} or \\u00E9 with a valid scalar value)")
    }
}
