/// One SQL statement of the library's dialect (GRDB's `?` placeholders), split at its placeholders so it can
/// be rendered with PostgreSQL's `$1, $2…`.
///
/// ``statements(in:)`` reads a script the way PostgreSQL's lexer does, as far as placeholders and statement
/// ends are concerned: a `?` or `;` inside a string literal (`'…'`, with `''` escapes, and `E'…'` with
/// backslash escapes), a quoted identifier (`"…"`), a dollar-quoted string (`$tag$…$tag$`), a line comment
/// (`-- …`) or a block comment (`/* … */`, nested) is text, not a placeholder or an end.
struct PostgresStatementText: Equatable {
    /// The text between placeholders: one more than there are placeholders.
    let segments: [String]

    /// How many `?` placeholders the statement has.
    var placeholderCount: Int { segments.count - 1 }

    /// The statement with its placeholders numbered `$1, $2…`, except those `inlinesNull` picks, which become
    /// the literal `NULL` and take no number.
    ///
    /// A NULL argument is written into the text rather than bound: an untyped NULL parameter leaves PostgreSQL
    /// unable to infer its type where nothing around it says (`? IS NULL`, `SELECT ?`), while the literal
    /// NULL is typed from its context or defaults to text, as in any SQL written by hand.
    func rendered(inlinesNull: (Int) -> Bool = { _ in false }) -> String {
        var text = segments[0]
        var number = 0
        for index in 1..<segments.count {
            let placeholder: String
            if inlinesNull(index - 1) {
                placeholder = "NULL"
            } else {
                number += 1
                placeholder = "$\(number)"
            }
            // `SELECT?` would read as the identifier `SELECT$1`: keep words apart.
            if text.utf8.last.map(Self.isIdentifierByte) == true { text += " " }
            text += placeholder
            if segments[index].utf8.first.map(Self.isIdentifierByte) == true { text += " " }
            text += segments[index]
        }
        return text
    }

    /// The statements of a script, split at the semicolons that end them, without those made only of
    /// whitespace and comments.
    ///
    /// - Complexity: O(n) in the script's length.
    static func statements(in sql: String) -> [PostgresStatementText] {
        var lexer = Lexer(bytes: Array(sql.utf8))
        return lexer.statements()
    }

    static func isIdentifierByte(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
            || byte == UInt8(ascii: "$") || byte >= 0x80
    }
}

/// The scanner behind ``PostgresStatementText/statements(in:)``.
private struct Lexer {
    let bytes: [UInt8]
    var position = 0
    /// Where the current segment of the current statement starts.
    var segmentStart = 0
    var segments: [String] = []
    /// Whether the current statement has anything but whitespace and comments.
    var hasContent = false
    var result: [PostgresStatementText] = []

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func statements() -> [PostgresStatementText] {
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "'"): skipQuoted(UInt8(ascii: "'"), backslashEscapes: startsEscapeString())
            case UInt8(ascii: "\""): skipQuoted(UInt8(ascii: "\""), backslashEscapes: false)
            case UInt8(ascii: "-") where peek(1) == UInt8(ascii: "-"): skipLineComment()
            case UInt8(ascii: "/") where peek(1) == UInt8(ascii: "*"): skipBlockComment()
            case UInt8(ascii: "$") where dollarTag() != nil: skipDollarQuoted(tag: dollarTag()!)
            case UInt8(ascii: "?"):
                hasContent = true
                endSegment(at: position)
                position += 1
                segmentStart = position
            case UInt8(ascii: ";"):
                endStatement(at: position)
                position += 1
                segmentStart = position
            default:
                if !Self.isSpace(byte) { hasContent = true }
                position += 1
            }
        }
        endStatement(at: bytes.count)
        return result
    }

    private func peek(_ offset: Int) -> UInt8? {
        position + offset < bytes.count ? bytes[position + offset] : nil
    }

    private mutating func endSegment(at end: Int) {
        segments.append(String(decoding: bytes[segmentStart..<end], as: UTF8.self))
    }

    private mutating func endStatement(at end: Int) {
        endSegment(at: end)
        if hasContent { result.append(PostgresStatementText(segments: segments)) }
        segments = []
        hasContent = false
    }

    /// Whether the quote at `position` opens an escape string: `E'…'` (the E not ending a longer word).
    private func startsEscapeString() -> Bool {
        guard position >= 1, bytes[position - 1] == UInt8(ascii: "E") || bytes[position - 1] == UInt8(ascii: "e") else {
            return false
        }
        return position < 2 || !PostgresStatementText.isIdentifierByte(bytes[position - 2])
    }

    private mutating func skipQuoted(_ quote: UInt8, backslashEscapes: Bool) {
        hasContent = true
        position += 1
        while position < bytes.count {
            let byte = bytes[position]
            if backslashEscapes && byte == UInt8(ascii: "\\") {
                position += 2
            } else if byte == quote {
                position += 1
                // A doubled quote is one quote character; anything else ends the literal.
                guard position < bytes.count, bytes[position] == quote else { return }
                position += 1
            } else {
                position += 1
            }
        }
    }

    private mutating func skipLineComment() {
        while position < bytes.count, bytes[position] != UInt8(ascii: "\n") { position += 1 }
    }

    private mutating func skipBlockComment() {
        var depth = 0
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "/"), peek(1) == UInt8(ascii: "*") {
                depth += 1
                position += 2
            } else if bytes[position] == UInt8(ascii: "*"), peek(1) == UInt8(ascii: "/") {
                depth -= 1
                position += 2
                if depth == 0 { return }
            } else {
                position += 1
            }
        }
    }

    /// The tag of a dollar quote opening at `position` (`$$` or `$tag$`, the `$` not inside a word such as
    /// the parameter `$1` or an identifier with a `$`), or nil.
    private func dollarTag() -> [UInt8]? {
        if position > 0, PostgresStatementText.isIdentifierByte(bytes[position - 1]) { return nil }
        var end = position + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "$") {
            let byte = bytes[end]
            let isDigit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard PostgresStatementText.isIdentifierByte(byte), byte != UInt8(ascii: "$"), !(isDigit && end == position + 1)
            else { return nil }
            end += 1
        }
        guard end < bytes.count else { return nil }
        return Array(bytes[position...end])
    }

    private mutating func skipDollarQuoted(tag: [UInt8]) {
        hasContent = true
        position += tag.count
        while position < bytes.count {
            if bytes[position] == UInt8(ascii: "$"), position + tag.count <= bytes.count,
                bytes[position..<(position + tag.count)].elementsEqual(tag)
            {
                position += tag.count
                return
            }
            position += 1
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\r")
            || byte == 0x0c
    }
}
