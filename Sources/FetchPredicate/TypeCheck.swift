import Foundation

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
