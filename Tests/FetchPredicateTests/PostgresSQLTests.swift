import Foundation
import SeededRandom
import Testing

@testable import FetchPredicate

@Suite("Compiling to PostgreSQL")
struct PostgresSQLTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let text: String
        let sql: String
        let arguments: [PostgresSQL.Argument]
        var testDescription: String { text }
        init(_ text: String, _ sql: String, _ arguments: [PostgresSQL.Argument] = []) {
            self.text = text
            self.sql = sql
            self.arguments = arguments
        }
    }

    static let cases: [Case] = [
        Case("count > 3", "item.count > $1", [.integer(3)]),
        Case("TRUEPREDICATE", "TRUE"),
        Case("flag AND NOT TRUEPREDICATE", "FALSE"),
        Case("name != 'a'", "(name IS NULL OR name COLLATE \"C\" <> $1)", [.text("a")]),
        Case("title < 'a'", "title COLLATE \"C\" < $1", [.text("a")]),
        // An integer key and a double: exact, as in SQLite.
        Case("count > 2.5", "item.count > $1", [.integer(2)]),
        Case("count <= -2.5", "item.count <= $1", [.integer(-3)]),
        Case("count == 2.5", "FALSE"),
        Case("optCount != 2.5", "TRUE"),
        Case("optCount < 1e300", "optCount IS NOT NULL"),
        Case("NOT optCount < 1e300", "optCount IS NULL"),
        Case("count IN {1.5, 2.0}", "item.count IN ($1)", [.integer(2)]),
        Case("count BETWEEN {0.5, 3.5}", "item.count BETWEEN $1 AND $2", [.integer(1), .integer(3)]),
        Case("count BETWEEN {1e300, 1e301}", "FALSE"),
        // String operators: LIKE on the folded value, the pattern folded and translated here.
        Case("name CONTAINS 'x_y'", "name COLLATE \"C\" LIKE $1 ESCAPE '\\'", [.text("%x\\_y%")]),
        Case(
            "NOT name LIKE[cd] 'É*?%'",
            "(name IS NULL OR fetchpredicate_fold(name, $1) COLLATE \"C\" NOT LIKE $2 ESCAPE '\\')",
            [.integer(3), .text("e%_\\%")]),
        Case("title ENDSWITH[c] 'JPG'", "fetchpredicate_fold(title, $1) COLLATE \"C\" LIKE $2 ESCAPE '\\'", [.integer(1), .text("%jpg")]),
    ]

    @Test("predicates compile to the expected PostgreSQL and arguments", arguments: cases)
    func compiles(_ testCase: Case) throws {
        let (sql, arguments) = try parse(testCase.text).compiled(for: Item.schema).postgresSQL.rendered()
        #expect(sql == testCase.sql)
        #expect(arguments == testCase.arguments)
    }

    @Test("placeholders are numbered from where the enclosing query needs them")
    func placeholderOffset() throws {
        let condition = try parse("count > 1 AND name == 'x'").compiled(for: Item.schema).postgresSQL
        #expect(condition.rendered(firstPlaceholder: 3).sql == "(item.count > $3 AND name COLLATE \"C\" = $4)")
    }

    @Test("sort orders put NULLs where SQLite does and compare strings by bytes")
    func sortOrder() throws {
        let order = try CompiledSortOrder([SortDescriptor(key: "name"), SortDescriptor(key: "count", ascending: false)], schema: Item.schema)
        #expect(order.postgresSQL(then: "id") == "name COLLATE \"C\" ASC NULLS FIRST, item.count DESC NULLS LAST, id")
    }

    @Test("an integer compared with a double through IntegerBound agrees with the exact comparison, for every operator")
    func integerBounds() {
        var rng = SplitMix64(seed: 7)
        let integers: [Int64] = [.min, .min + 1, -3, -2, -1, 0, 1, 2, 3, 9_007_199_254_740_993, .max - 1, .max]
        let doubles: [Double] = [
            -.infinity, -1e300, -9.223372036854775808e18, -2.5, -2, -0.0, 0, 0.5, 2, 2.5, 9_007_199_254_740_992,
            9.223372036854775807e18, 1e300, .infinity,
        ]
        for _ in 0..<20_000 {
            let x = rng.chance(0.5) ? rng.pick(integers) : Int64(bitPattern: rng.next()) >> Int64(rng.int(in: 0...62))
            let d = rng.chance(0.5) ? rng.pick(doubles) : Double(Int64(bitPattern: rng.next()) >> Int64(rng.int(in: 0...62))) + rng.pick([0, 0.5, -0.25])
            let order = PredicateValue.order(.integer(x), .double(d))
            for op in ComparisonOperator.allCases {
                let holds: Bool
                switch IntegerBound.resolve(.integer, op, .double(d)) {
                case .always: holds = true
                case .never: holds = false
                case .compare(let op, let bound): holds = op.holds(forOrder: PredicateValue.order(.integer(x), bound))
                }
                #expect(holds == op.holds(forOrder: order), "\(x) \(op) \(d)")
                if holds != op.holds(forOrder: order) { return }
            }
        }
    }
}
