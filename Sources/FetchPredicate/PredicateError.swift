/// An error in a predicate or a sort descriptor list: a syntax error in the text, an unknown key, a value
/// of the wrong type, and so on.
///
/// Errors from parsing carry the ``position`` of the problem: a 0-based offset in `Character`s (grapheme
/// clusters) into the parsed text. Errors from compiling a predicate that was built in code have no
/// position. The ``description`` is a complete message for a person, e.g.
/// `at position 0: unknown key 'creationdate' (did you mean 'creationDate'?); valid keys: creationDate,
/// duration, isFavorite`.
public struct PredicateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: Sendable, Hashable {
        /// A character that cannot start a token, e.g. `@`.
        case unexpectedCharacter(Character)
        /// A token where the grammar does not allow it; the associated value is the token's text.
        case unexpectedToken(String)
        /// The text ended where more was expected.
        case unexpectedEnd
        /// A string literal without its closing quote; the position is the opening quote's.
        case unterminatedString
        /// An unknown or malformed backslash escape in a string literal, e.g. `\q` or `\u{110000}`.
        case invalidEscape(String)
        /// A malformed or out-of-range number, e.g. `1e`, `12abc`, `99999999999999999999`, `1e999`.
        case invalidNumber(String)
        /// A literal that is not valid for its key: a string that is not a date for a date key (e.g.
        /// `"2024-02-30"`), a string containing U+0000 (which SQLite bindings would cut).
        case invalidValue(String)
        /// A key that the schema does not have, with the schema's keys.
        case unknownKey(name: String, validKeys: [String])
        /// A name that is not a case of an enumeration key (or a flag of an option-set key), with the
        /// valid names.
        case unknownCase(name: String, key: String, validCases: [String])
        /// A string-operator option other than `c`, `d` or `cd`, or options where they do not apply.
        case invalidOption(String)
        /// A value or an operator that does not fit the key's type, e.g. `isFavorite > "x"`.
        case typeMismatch(key: String)
        /// Parentheses or `NOT`s nested deeper than the parser allows.
        case nestingTooDeep(limit: Int)
    }

    /// What went wrong.
    public let kind: Kind
    /// The 0-based `Character` offset of the problem in the parsed text; nil for a predicate built in code.
    public let position: Int?
    /// A message for a person, without the position.
    public let message: String

    /// Creates an error.
    public init(_ kind: Kind, position: Int?, message: String) {
        self.kind = kind
        self.position = position
        self.message = message
    }

    /// The message, prefixed by the position when there is one: `at position 12: expected a value`.
    public var description: String {
        if let position { "at position \(position): \(message)" } else { message }
    }

    /// A two-line rendering for a terminal: the text (newlines and tabs shown as spaces), then a caret
    /// under the error's position, then the ``description``.
    ///
    /// - Parameter text: The text that was parsed.
    public func diagnostic(for text: String) -> String {
        guard let position else { return description }
        let line = String(text.map { $0 == "\n" || $0 == "\r\n" || $0 == "\t" || $0 == "\r" ? " " : $0 })
        let caret = String(repeating: " ", count: max(0, position)) + "^"
        return "\(line)\n\(caret)\n\(description)"
    }

    static func unknownKey(_ name: String, validKeys: [String], position: Int?) -> PredicateError {
        var message = "unknown key '\(name)'"
        if let suggestion = NameSuggestion.closest(to: name, among: validKeys) {
            message += " (did you mean '\(suggestion)'?)"
        }
        message += "; valid keys: " + validKeys.sorted().joined(separator: ", ")
        return PredicateError(.unknownKey(name: name, validKeys: validKeys), position: position, message: message)
    }

    static func typeMismatch(_ key: String, position: Int?, _ message: String) -> PredicateError {
        PredicateError(.typeMismatch(key: key), position: position, message: message)
    }
}
