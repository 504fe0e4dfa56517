extension Predicate: CustomStringConvertible {
    /// The predicate in the text format, e.g. `mediaType == 1 AND creationDate >= "2024-01-01T00:00:00Z"`.
    ///
    /// It parses back (``parse(_:schema:timeZone:)``) to an equal predicate when the predicate is in
    /// canonical form (as parsing and ``CompiledPredicate/predicate`` produce) and its `AND`/`OR` have at least
    /// two operands; an empty `AND` prints as `TRUEPREDICATE`, an empty `OR` as `FALSEPREDICATE`, and a
    /// one-operand `AND`/`OR` as its operand. Dates print in UTC; enumeration cases and option-set flags
    /// print as integers, which parse back; ``description(using:)`` prints their names.
    ///
    /// - Complexity: O(n) in the size of the predicate.
    public var description: String {
        var output = ""
        Formatter(names: nil).write(self, to: &output)
        return output
    }

    /// The predicate in the text format, with enumeration cases and option-set flags written by name
    /// (`mediaType == image AND mediaSubtypes CONTAINS photoPanorama`) when the schema names them.
    ///
    /// - Complexity: O(n) in the size of the predicate.
    public func description<Object>(using schema: PredicateSchema<Object>) -> String {
        var output = ""
        Formatter { key, raw in
            guard let name = schema.key(named: key)?.type.name(for: raw), Lexer.isIdentifier(name),
                Keyword(rawValue: name.lowercased()) == nil
            else { return nil }
            return name
        }.write(self, to: &output)
        return output
    }
}

/// Writes predicates in the text format.
private struct Formatter {
    /// The name of a raw value of a key, if it has one.
    let names: ((_ key: String, _ raw: Int64) -> String?)?

    func write(_ predicate: Predicate, to output: inout String) {
        switch predicate {
        case .constant(let value):
            output += value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .key(let key):
            output += key
        case .comparison(let key, let op, let value):
            output += "\(key) \(op.rawValue) " + literal(value, key: key)
        case .in(let key, let values):
            output += "\(key) IN {" + values.map { literal($0, key: key) }.joined(separator: ", ") + "}"
        case .between(let key, let lower, let upper):
            output += "\(key) BETWEEN {\(literal(lower, key: key)), \(literal(upper, key: key))}"
        case .stringMatch(let key, let op, let pattern, let options):
            output += "\(key) \(op.rawValue)\(options) \(PredicateValue.quote(pattern))"
        case .containsFlags(let key, let mask):
            output += "\(key) CONTAINS " + (names?(key, mask) ?? String(mask))
        case .not(let operand):
            output += "NOT "
            switch operand {
            case .constant, .key, .not:
                write(operand, to: &output)
            default:
                output += "("
                write(operand, to: &output)
                output += ")"
            }
        case .and(let operands):
            junction(operands, separator: " AND ", empty: "TRUEPREDICATE", to: &output)
        case .or(let operands):
            junction(operands, separator: " OR ", empty: "FALSEPREDICATE", to: &output)
        }
    }

    private func junction(_ operands: [Predicate], separator: String, empty: String, to output: inout String) {
        if operands.isEmpty {
            output += empty
            return
        }
        if operands.count == 1 {
            write(operands[0], to: &output)
            return
        }
        for (index, operand) in operands.enumerated() {
            if index > 0 { output += separator }
            if isJunction(operand) {
                output += "("
                write(operand, to: &output)
                output += ")"
            } else {
                write(operand, to: &output)
            }
        }
    }

    /// Whether a predicate prints as an `AND` or an `OR` of several operands (at any depth of one-operand
    /// junctions), and so needs parentheses as an operand.
    private func isJunction(_ predicate: Predicate) -> Bool {
        switch predicate {
        case .and(let operands), .or(let operands):
            operands.count >= 2 || (operands.count == 1 && isJunction(operands[0]))
        default:
            false
        }
    }

    private func literal(_ value: PredicateValue, key: String) -> String {
        if case .integer(let raw) = value, let name = names?(key, raw) {
            return name
        }
        return value.description
    }
}
