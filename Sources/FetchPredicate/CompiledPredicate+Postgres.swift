extension CompiledPredicate {
    /// The predicate as a PostgreSQL boolean expression for a `WHERE` clause, with every literal value as
    /// an argument: the same rows as ``sql`` selects in SQLite and as ``evaluate(_:)`` accepts.
    ///
    /// The schema's SQL expressions must produce what ``PredicateKey`` describes (`bigint` for integers,
    /// bools, enumerations and option sets, `double precision` seconds for dates, `text` for strings), and
    /// the database needs the `fetchpredicate_fold` function of `Schema/postgres/` for string operators
    /// with `[c]` or `[d]`. What differs from SQLite is written here, so that the results don't:
    /// - constants are `TRUE`/`FALSE`; strings compare `COLLATE "C"` (UTF-8 bytes, like SQLite's BINARY);
    /// - an integer key compared with a double compares exactly (SQLite does; PostgreSQL would round the
    ///   integer to a double): the double becomes an integer bound, or the comparison a constant;
    /// - string operators become `LIKE` on the folded value, with the pattern folded and translated here.
    ///
    /// - Complexity: O(n) in the size of the predicate, plus folding the patterns.
    public var postgresSQL: PostgresSQL {
        PostgresEmitter<Object>.fragment(node, negated: false).sql
    }
}

/// Emits PostgreSQL for a bound predicate, in negation normal form with constants folded (the same shape as
/// the SQLite emission in CompiledPredicate.swift).
enum PostgresEmitter<Object> {
    typealias Node = CompiledPredicate<Object>.Node

    enum Fragment {
        case constant(Bool)
        case sql(PostgresSQL)

        var sql: PostgresSQL {
            switch self {
            case .constant(let value): value ? "TRUE" : "FALSE"
            case .sql(let sql): sql
            }
        }
    }

    static func fragment(_ node: Node, negated: Bool) -> Fragment {
        switch node {
        case .constant(let value): return .constant(value != negated)
        case .not(let operand): return fragment(operand, negated: !negated)
        case .and(let operands): return junction(operands, conjunction: !negated, negated: negated)
        case .or(let operands): return junction(operands, conjunction: negated, negated: negated)
        case .compare(let key, let op, let value): return comparison(key, op, value, negated: negated)
        case .isIn(let key, let values): return membership(key, values, negated: negated)
        case .between(let key, let lower, let upper): return between(key, lower, upper, negated: negated)
        case .match(let key, let op, let pattern, let options): return match(key, op, pattern, options, negated: negated)
        case .flags(let key, let mask):
            let x = operand(key)
            if !negated { return .sql("(\(x) & \(argument: .integer(mask))) = \(argument: .integer(mask))") }
            return .sql(orNull(key, "(\(x) & \(argument: .integer(mask))) <> \(argument: .integer(mask))"))
        }
    }

    static func junction(_ operands: [Node], conjunction: Bool, negated: Bool) -> Fragment {
        var parts: [PostgresSQL] = []
        for operand in operands {
            switch fragment(operand, negated: negated) {
            case .constant(let value): if value != conjunction { return .constant(value) }
            case .sql(let sql): parts.append(sql)
            }
        }
        if parts.isEmpty { return .constant(conjunction) }
        if parts.count == 1 { return .sql(parts[0]) }
        return .sql("(\(PostgresSQL.joined(parts, separator: conjunction ? " AND " : " OR ")))")
    }

    static func operand(_ key: PredicateKey<Object>) -> PostgresSQL { "\(sql: key.sqlOperand)" }

    /// The operand for comparisons and ordering: strings `COLLATE "C"`.
    static func comparable(_ key: PredicateKey<Object>) -> PostgresSQL {
        if case .string = key.type { return "\(sql: key.sqlOperand) COLLATE \"C\"" }
        return operand(key)
    }

    static func orNull(_ key: PredicateKey<Object>, _ condition: PostgresSQL) -> PostgresSQL {
        key.isOptional ? "(\(operand(key)) IS NULL OR \(condition))" : condition
    }

    static func argument(_ value: PredicateValue) -> PostgresSQL.Argument {
        switch value.storage {
        case .null: preconditionFailure("NULL-like values never become arguments")
        case .number(.integer(let integer)): .integer(integer)
        case .number(.real(let real)): .double(real)
        case .text(let text): .text(text)
        }
    }

    // MARK: Comparisons

    static func comparison(
        _ key: PredicateKey<Object>, _ op: ComparisonOperator, _ value: PredicateValue, negated: Bool
    ) -> Fragment {
        if value.isNullLike {
            switch (op, negated) {
            case (.equal, false), (.notEqual, true): return .sql("\(operand(key)) IS NULL")
            case (.notEqual, false), (.equal, true): return .sql("\(operand(key)) IS NOT NULL")
            default: return .constant(negated)
            }
        }
        let effective = negated ? op.inverse : op
        // Rows where the key is NULL match `!=` and the negation of an ordering, as in memory.
        let nullMatches = effective == .notEqual || (negated && effective.isOrdering)
        switch IntegerBound.resolve(key.type, effective, value) {
        case .always: return nullMatches || !key.isOptional ? .constant(true) : .sql("\(operand(key)) IS NOT NULL")
        case .never: return nullMatches && key.isOptional ? .sql("\(operand(key)) IS NULL") : .constant(false)
        case .compare(let op, let value):
            let condition: PostgresSQL = "\(comparable(key)) \(sql: op == .notEqual ? "<>" : op.sql) \(argument: argument(value))"
            return .sql(nullMatches ? orNull(key, condition) : condition)
        }
    }

    static func membership(_ key: PredicateKey<Object>, _ values: [PredicateValue], negated: Bool) -> Fragment {
        let column = operand(key)
        let hasNull = values.contains { $0.isNullLike }
        // An integer key never equals a double that is not a whole number in range.
        let arguments: [PostgresSQL] = values.compactMap { value in
            guard !value.isNullLike, case .compare(_, let value) = IntegerBound.resolve(key.type, .equal, value) else { return nil }
            return "\(argument: argument(value))"
        }
        let list = PostgresSQL.joined(arguments, separator: ", ")
        let x = comparable(key)
        switch (negated, arguments.isEmpty, hasNull) {
        case (false, true, false): return .constant(false)
        case (false, true, true): return .sql("\(column) IS NULL")
        case (false, false, false): return .sql("\(x) IN (\(list))")
        case (false, false, true): return .sql("(\(column) IS NULL OR \(x) IN (\(list)))")
        case (true, true, false): return .constant(true)
        case (true, true, true): return .sql("\(column) IS NOT NULL")
        case (true, false, false): return .sql(orNull(key, "\(x) NOT IN (\(list))"))
        case (true, false, true): return .sql("(\(column) IS NOT NULL AND \(x) NOT IN (\(list)))")
        }
    }

    static func between(_ key: PredicateKey<Object>, _ lower: PredicateValue, _ upper: PredicateValue, negated: Bool) -> Fragment {
        if lower.isNullLike || upper.isNullLike { return .constant(negated) }
        guard let lower = IntegerBound.lower(key.type, lower), let upper = IntegerBound.upper(key.type, upper) else {
            return .constant(negated)  // no integer can lie between the bounds
        }
        let x = comparable(key)
        let range: PostgresSQL = "\(argument: argument(lower)) AND \(argument: argument(upper))"
        if !negated { return .sql("\(x) BETWEEN \(range)") }
        return .sql(orNull(key, "\(x) NOT BETWEEN \(range)"))
    }

    // MARK: String operators

    static func match(
        _ key: PredicateKey<Object>, _ op: StringOperator, _ pattern: String, _ options: StringOptions, negated: Bool
    ) -> Fragment {
        let options = options.known
        let folded = options.isEmpty ? pattern : StringMatcher.fold(pattern, options: options)
        let value: PostgresSQL =
            options.isEmpty
            ? "\(operand(key)) COLLATE \"C\""
            : "fetchpredicate_fold(\(operand(key)), \(argument: .integer(Int64(options.rawValue)))) COLLATE \"C\""
        let like: PostgresSQL = "\(argument: .text(likePattern(op, folded))) ESCAPE '\\'"
        if !negated { return .sql("\(value) LIKE \(like)") }
        return .sql(orNull(key, "\(value) NOT LIKE \(like)"))
    }

    /// The `LIKE` pattern (escape `\`) of a string operator on a folded pattern: `*` and `?` are
    /// ``StringOperator/like``'s wildcards; everything else, `%` and `_` included, matches itself.
    static func likePattern(_ op: StringOperator, _ pattern: String) -> String {
        var escaped = ""
        for character in pattern.unicodeScalars {
            switch character {
            case "%", "_", "\\": escaped += "\\" + String(character)
            case "*" where op == .like: escaped += "%"
            case "?" where op == .like: escaped += "_"
            default: escaped.unicodeScalars.append(character)
            }
        }
        switch op {
        case .contains: return "%" + escaped + "%"
        case .beginsWith: return escaped + "%"
        case .endsWith: return "%" + escaped
        case .like: return escaped
        }
    }
}

/// Comparisons of an integer key with a double, made exact for PostgreSQL (which compares `bigint` with
/// `double precision` as doubles, where SQLite compares exactly): the double becomes an integer bound.
enum IntegerBound {
    /// What a comparison of any non-NULL integer with the value comes to.
    enum Resolution {
        case always
        case never
        case compare(ComparisonOperator, PredicateValue)
    }

    static let twoTo63 = 9_223_372_036_854_775_808.0

    /// The comparison `key op value`, resolved when the key is an integer and the value a double.
    static func resolve(_ type: PredicateKeyType, _ op: ComparisonOperator, _ value: PredicateValue) -> Resolution {
        guard case .integer = type, case .number(.real(let real)) = value.storage else { return .compare(op, value) }
        if real >= twoTo63 { return [.less, .lessOrEqual, .notEqual].contains(op) ? .always : .never }
        if real < -twoTo63 { return [.greater, .greaterOrEqual, .notEqual].contains(op) ? .always : .never }
        let floor = real.rounded(.down)
        if floor == real { return .compare(op, .integer(Int64(real))) }
        switch op {
        case .equal: return .never
        case .notEqual: return .always
        case .less, .lessOrEqual: return .compare(.lessOrEqual, .integer(Int64(floor)))
        case .greater, .greaterOrEqual: return .compare(.greater, .integer(Int64(floor)))
        }
    }

    /// The smallest integer ≥ a BETWEEN's lower bound, or the bound itself for other keys; nil when none.
    static func lower(_ type: PredicateKeyType, _ value: PredicateValue) -> PredicateValue? {
        guard case .integer = type, case .number(.real(let real)) = value.storage else { return value }
        if real >= twoTo63 { return nil }
        if real < -twoTo63 { return .integer(.min) }
        return .integer(Int64(real.rounded(.up)))
    }

    /// The largest integer ≤ a BETWEEN's upper bound, or the bound itself for other keys; nil when none.
    static func upper(_ type: PredicateKeyType, _ value: PredicateValue) -> PredicateValue? {
        guard case .integer = type, case .number(.real(let real)) = value.storage else { return value }
        if real < -twoTo63 { return nil }
        if real >= twoTo63 { return .integer(.max) }
        return .integer(Int64(real.rounded(.down)))
    }
}

extension CompiledSortOrder {
    /// The ordering terms for a PostgreSQL `ORDER BY`, in SQLite's order: strings `COLLATE "C"`, NULLs
    /// first when ascending and last when descending; followed by `tieBreaker` when given.
    public func postgresSQL(then tieBreaker: String? = nil) -> String {
        var terms = keys.map { key, ascending in
            let operand = key.sqlOperand + (key.type == .string ? " COLLATE \"C\"" : "")
            return operand + (ascending ? " ASC NULLS FIRST" : " DESC NULLS LAST")
        }
        if let tieBreaker { terms.append(tieBreaker) }
        return terms.joined(separator: ", ")
    }
}
