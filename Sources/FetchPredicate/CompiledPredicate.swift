public import GRDB

/// A predicate checked against a schema, ready to run many times: as SQL (``sql``) and in memory
/// (``evaluate(_:)``), with exactly the same results.
///
/// Create one with ``Predicate/compiled(for:)`` to evaluate a predicate on many objects without checking
/// it again each time.
public struct CompiledPredicate<Object>: Sendable {
    /// The predicate, with its values in canonical form.
    public let predicate: Predicate
    let node: Node

    indirect enum Node: Sendable {
        case constant(Bool)
        case compare(PredicateKey<Object>, ComparisonOperator, PredicateValue)
        case isIn(PredicateKey<Object>, [PredicateValue])
        case between(PredicateKey<Object>, PredicateValue, PredicateValue)
        case match(PredicateKey<Object>, StringOperator, String, StringOptions)
        case flags(PredicateKey<Object>, Int64)
        case not(Node)
        case and([Node])
        case or([Node])
    }

    /// Checks a predicate against a schema.
    ///
    /// - Throws: ``PredicateError`` (without a position) for an unknown key, a value or an operator that
    ///   does not fit its key (the same checks as parsing; strings are not read as dates or names here).
    /// - Complexity: O(n) in the size of the predicate.
    public init(_ predicate: Predicate, schema: PredicateSchema<Object>) throws(PredicateError) {
        var canonical = predicate
        self.node = try Self.bind(predicate, schema: schema, canonical: &canonical)
        self.predicate = canonical
    }

    /// The predicate as an SQL boolean expression for a `WHERE` clause, with every literal value as a
    /// statement argument.
    ///
    /// Only the schema's SQL expressions, operators, `?` placeholders and the names of
    /// ``PredicateFunctions`` appear as SQL text. The expression is two-valued in a `WHERE` clause: it is
    /// true exactly when ``evaluate(_:)`` is, and otherwise false or NULL (both exclude the row); negations
    /// are pushed down so that `NOT` never meets a NULL.
    ///
    /// - Complexity: O(n) in the size of the predicate.
    public var sql: SQL {
        Self.sql(node, negated: false)
    }

    /// Whether an object matches the predicate.
    ///
    /// - Complexity: O(n) in the size of the predicate, times the cost of the string operators.
    public func evaluate(_ object: Object) -> Bool {
        Self.evaluate(node, object)
    }

    // MARK: Binding

    private static func bind(
        _ predicate: Predicate, schema: PredicateSchema<Object>, canonical: inout Predicate
    ) throws(PredicateError) -> Node {
        func check(_ value: PredicateValue, _ key: PredicateKey<Object>) throws(PredicateError) -> PredicateValue {
            try TypeCheck.value(
                Literal(kind: .value(value), position: nil, isText: false), key: key.name, type: key.type,
                timeZone: nil)
        }
        switch predicate {
        case .constant(let value):
            return .constant(value)
        case .key(let name):
            let key = try schema.resolve(name, position: nil)
            guard case .bool = key.type else {
                throw PredicateError.typeMismatch(
                    name, position: nil,
                    "\(key.type) key '\(name)' cannot stand alone as a condition; only bool keys can")
            }
            return .compare(key, .equal, .bool(true))
        case .comparison(let name, let op, let value):
            let key = try schema.resolve(name, position: nil)
            try TypeCheck.check(op.rawValue, ordering: op.isOrdering, key: name, type: key.type, position: nil)
            let value = try check(value, key)
            canonical = .comparison(key: name, op: op, value: value)
            return .compare(key, op, value)
        case .in(let name, let values):
            let key = try schema.resolve(name, position: nil)
            var checked: [PredicateValue] = []
            for value in values { checked.append(try check(value, key)) }
            canonical = .in(key: name, values: checked)
            return .isIn(key, checked)
        case .between(let name, let lower, let upper):
            let key = try schema.resolve(name, position: nil)
            try TypeCheck.check("BETWEEN", ordering: true, key: name, type: key.type, position: nil)
            let lower = try check(lower, key)
            let upper = try check(upper, key)
            canonical = .between(key: name, lower: lower, upper: upper)
            return .between(key, lower, upper)
        case .stringMatch(let name, let op, let pattern, let options):
            let key = try schema.resolve(name, position: nil)
            guard case .string = key.type else {
                throw PredicateError.typeMismatch(
                    name, position: nil, "\(op) applies to string keys, not to \(key.type) key '\(name)'")
            }
            guard options.known == options else {
                throw PredicateError(
                    .invalidOption(String(options.rawValue)), position: nil,
                    message: "unknown string options \(options.rawValue)")
            }
            try TypeCheck.checkNoNUL(pattern, position: nil)
            return .match(key, op, pattern, options)
        case .containsFlags(let name, let mask):
            let key = try schema.resolve(name, position: nil)
            guard case .optionSet = key.type else {
                throw PredicateError.typeMismatch(
                    name, position: nil, "CONTAINS a flag applies to option set keys, not to \(key.type) key '\(name)'")
            }
            return .flags(key, mask)
        case .not(let operand):
            var inner = operand
            let node = try bind(operand, schema: schema, canonical: &inner)
            canonical = .not(inner)
            return .not(node)
        case .and(let operands):
            let (nodes, inners) = try bindAll(operands, schema: schema)
            canonical = .and(inners)
            return .and(nodes)
        case .or(let operands):
            let (nodes, inners) = try bindAll(operands, schema: schema)
            canonical = .or(inners)
            return .or(nodes)
        }
    }

    /// Binds the operands of an AND or OR, with their canonical forms.
    private static func bindAll(
        _ operands: [Predicate], schema: PredicateSchema<Object>
    ) throws(PredicateError) -> (nodes: [Node], canonical: [Predicate]) {
        var nodes: [Node] = []
        var inners: [Predicate] = []
        for operand in operands {
            var inner = operand
            nodes.append(try bind(operand, schema: schema, canonical: &inner))
            inners.append(inner)
        }
        return (nodes, inners)
    }

    // MARK: SQL

    /// SQL for a node: a constant when it is known without looking at a row.
    private enum Fragment {
        case constant(Bool)
        case sql(SQL)

        var sql: SQL {
            switch self {
            case .constant(let value): value ? "1" : "0"
            case .sql(let sql): sql
            }
        }
    }

    /// The SQL of `node`, or of `NOT node` when `negated`.
    private static func sql(_ node: Node, negated: Bool) -> SQL {
        fragment(node, negated: negated).sql
    }

    /// The SQL of `node`, or of `NOT node` when `negated`, in negation normal form, with constants folded.
    private static func fragment(_ node: Node, negated: Bool) -> Fragment {
        switch node {
        case .constant(let value):
            return .constant(value != negated)
        case .not(let operand):
            return fragment(operand, negated: !negated)
        case .and(let operands):
            return junction(operands, conjunction: !negated, negated: negated)
        case .or(let operands):
            return junction(operands, conjunction: negated, negated: negated)
        case .compare(let key, let op, let value):
            return comparisonSQL(key, op, value, negated: negated)
        case .isIn(let key, let values):
            return inSQL(key, values, negated: negated)
        case .between(let key, let lower, let upper):
            if lower.isNullLike || upper.isNullLike { return .constant(negated) }
            let x = SQL(sql: key.sqlComparable)
            if !negated { return .sql("\(x) BETWEEN \(lower.databaseValue) AND \(upper.databaseValue)") }
            return .sql(orNull(key, "\(x) NOT BETWEEN \(lower.databaseValue) AND \(upper.databaseValue)"))
        case .match(let key, let op, let pattern, let options):
            // The function returns 0 or 1, never NULL, so NOT is safe.
            let function = PredicateFunctions.name(for: op)
            let flags = Int64(options.known.rawValue)
            let call: SQL = "\(sql: function)(\(sql: key.sqlOperand), \(pattern), \(flags))"
            return .sql(negated ? "NOT \(call)" : call)
        case .flags(let key, let mask):
            let x = SQL(sql: key.sqlOperand)
            if !negated { return .sql("(\(x) & \(mask)) = \(mask)") }
            return .sql(orNull(key, "(\(x) & \(mask)) <> \(mask)"))
        }
    }

    /// An AND (`conjunction`) or OR of the operands' fragments; true and false operands are folded.
    private static func junction(_ operands: [Node], conjunction: Bool, negated: Bool) -> Fragment {
        var parts: [SQL] = []
        for operand in operands {
            switch fragment(operand, negated: negated) {
            case .constant(let value):
                // AND: false absorbs, true is neutral; OR: the other way round.
                if value != conjunction { return .constant(value) }
            case .sql(let sql):
                parts.append(sql)
            }
        }
        if parts.isEmpty { return .constant(conjunction) }
        if parts.count == 1 { return .sql(parts[0]) }
        return .sql("(" + parts.joined(separator: conjunction ? " AND " : " OR ") + ")")
    }

    /// `(key IS NULL OR condition)`, or just `condition` for a key that is never NULL.
    private static func orNull(_ key: PredicateKey<Object>, _ condition: SQL) -> SQL {
        key.isOptional ? "(\(sql: key.sqlOperand) IS NULL OR \(condition))" : condition
    }

    private static func comparisonSQL(
        _ key: PredicateKey<Object>, _ op: ComparisonOperator, _ value: PredicateValue, negated: Bool
    ) -> Fragment {
        let x = SQL(sql: key.sqlComparable)
        if value.isNullLike {
            switch (op, negated) {
            case (.equal, false), (.notEqual, true): return .sql("\(sql: key.sqlOperand) IS NULL")
            case (.notEqual, false), (.equal, true): return .sql("\(sql: key.sqlOperand) IS NOT NULL")
            default: return .constant(negated)
            }
        }
        let argument = value.databaseValue
        // `!=` is the negation of `==`: true when the key is NULL.
        let effective = negated ? op.inverse : op
        switch effective {
        case .equal:
            return .sql("\(x) = \(argument)")
        case .notEqual:
            return .sql(key.isOptional ? "\(x) IS NOT \(argument)" : "\(x) <> \(argument)")
        default:
            let condition: SQL = "\(x) \(sql: effective.sql) \(argument)"
            return .sql(negated ? orNull(key, condition) : condition)
        }
    }

    private static func inSQL(_ key: PredicateKey<Object>, _ values: [PredicateValue], negated: Bool) -> Fragment {
        let x = SQL(sql: key.sqlComparable)
        let column = SQL(sql: key.sqlOperand)
        let hasNull = values.contains { $0.isNullLike }
        let arguments = values.filter { !$0.isNullLike }.map { SQL("\($0.databaseValue)") }
        let list = arguments.joined(separator: ", ")
        if !negated {
            switch (arguments.isEmpty, hasNull) {
            case (true, false): return .constant(false)
            case (true, true): return .sql("\(column) IS NULL")
            case (false, false): return .sql("\(x) IN (\(list))")
            case (false, true): return .sql("(\(column) IS NULL OR \(x) IN (\(list)))")
            }
        }
        switch (arguments.isEmpty, hasNull) {
        case (true, false): return .constant(true)
        case (true, true): return .sql("\(column) IS NOT NULL")
        case (false, false): return .sql(orNull(key, "\(x) NOT IN (\(list))"))
        case (false, true): return .sql("(\(column) IS NOT NULL AND \(x) NOT IN (\(list)))")
        }
    }

    // MARK: Evaluation

    private static func evaluate(_ node: Node, _ object: Object) -> Bool {
        switch node {
        case .constant(let value):
            return value
        case .not(let operand):
            return !evaluate(operand, object)
        case .and(let operands):
            return operands.allSatisfy { evaluate($0, object) }
        case .or(let operands):
            return operands.contains { evaluate($0, object) }
        case .compare(let key, let op, let value):
            let actual = key.value(object)
            if value.isNullLike {
                switch op {
                case .equal: return actual.isNullLike
                case .notEqual: return !actual.isNullLike
                default: return false
                }
            }
            if actual.isNullLike { return op == .notEqual }
            return op.holds(forOrder: PredicateValue.order(actual, value))
        case .isIn(let key, let values):
            let actual = key.value(object)
            if actual.isNullLike { return values.contains { $0.isNullLike } }
            return values.contains { !$0.isNullLike && PredicateValue.order(actual, $0) == 0 }
        case .between(let key, let lower, let upper):
            let actual = key.value(object)
            if actual.isNullLike || lower.isNullLike || upper.isNullLike { return false }
            return PredicateValue.order(actual, lower) >= 0 && PredicateValue.order(actual, upper) <= 0
        case .match(let key, let op, let pattern, let options):
            guard case .string(let actual) = key.value(object) else { return false }
            return StringMatcher.matches(actual, op, pattern, options: options.known)
        case .flags(let key, let mask):
            switch key.value(object).storage {
            case .number(.integer(let bits)): return bits & mask == mask
            default: return false
            }
        }
    }
}

extension Predicate {
    /// Checks the predicate against a schema, for repeated SQL generation or evaluation.
    ///
    /// - Throws: ``PredicateError`` for an unknown key or a value or operator that does not fit its key.
    /// - Complexity: O(n) in the size of the predicate.
    public func compiled<Object>(for schema: PredicateSchema<Object>) throws(PredicateError)
        -> CompiledPredicate<Object>
    {
        try CompiledPredicate(self, schema: schema)
    }

    /// The predicate as a parameterised SQL boolean expression for a `WHERE` clause.
    ///
    /// ```swift
    /// let condition = try predicate.sql(assetSchema)
    /// let ids = try Int64.fetchAll(db, SQL("SELECT id FROM asset WHERE \(condition) ORDER BY id"))
    /// ```
    ///
    /// The connection must have ``PredicateFunctions`` registered if the predicate uses a string operator.
    /// See ``CompiledPredicate/sql`` for the guarantees.
    ///
    /// - Throws: ``PredicateError`` for an unknown key or a value or operator that does not fit its key.
    /// - Complexity: O(n) in the size of the predicate.
    public func sql<Object>(_ schema: PredicateSchema<Object>) throws(PredicateError) -> SQL {
        try compiled(for: schema).sql
    }

    /// Whether an object matches the predicate, with the same semantics as the SQL.
    ///
    /// To test many objects, compile once with ``compiled(for:)``.
    ///
    /// - Throws: ``PredicateError`` for an unknown key or a value or operator that does not fit its key.
    /// - Complexity: O(n) in the size of the predicate, times the cost of the string operators.
    public func evaluate<Object>(_ object: Object, schema: PredicateSchema<Object>) throws(PredicateError) -> Bool {
        try compiled(for: schema).evaluate(object)
    }
}

extension PredicateValue {
    /// The value as SQLite stores it: bools as 0/1, dates as REAL seconds since 1970.
    var databaseValue: DatabaseValue {
        switch storage {
        case .null: .null
        case .number(.integer(let value)): value.databaseValue
        case .number(.real(let value)): value.databaseValue
        case .text(let value): value.databaseValue
        }
    }
}
