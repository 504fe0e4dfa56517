import Foundation

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
