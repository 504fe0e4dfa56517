import Foundation
import GRDB
import Testing

@testable import FetchPredicate

@Suite("Compiling to SQL")
struct SQLTests {
    /// The SQL text and arguments of a predicate, as GRDB would run them.
    func build(_ text: String) throws -> (sql: String, arguments: StatementArguments) {
        let sql = try parse(text).sql(Item.schema)
        let queue = try DatabaseQueue()
        return try queue.read { db in try sql.build(db) }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        let text: String
        let sql: String
        let arguments: [DatabaseValue]
        var testDescription: String { text }
        init(_ text: String, _ sql: String, _ arguments: [DatabaseValue] = []) {
            self.text = text
            self.sql = sql
            self.arguments = arguments
        }
    }

    static let cases: [Case] = [
        Case("count > 3", "item.count > ?", [Int64(3).databaseValue]),
        Case("halfCount > 3", "(item.count / 2) > ?", [Int64(3).databaseValue]),
        Case("flag", "flag = ?", [Int64(1).databaseValue]),
        Case("NOT flag", "flag <> ?", [Int64(1).databaseValue]),
        Case("NOT optFlag", "item.optFlag IS NOT ?", [Int64(1).databaseValue]),
        // Negations are pushed down; an optional key's NULL makes a negated comparison true.
        Case("NOT count < 3", "item.count >= ?", [Int64(3).databaseValue]),
        Case("NOT optCount < 3", "(optCount IS NULL OR optCount >= ?)", [Int64(3).databaseValue]),
        Case(
            "NOT (date < '2024-01-01T00:00:00Z')", "(item.date IS NULL OR item.date >= ?)",
            [(1_704_067_200.0).databaseValue]),
        Case("name != 'a'", "name COLLATE BINARY IS NOT ?", ["a".databaseValue]),
        Case("title != 'a'", "title COLLATE BINARY <> ?", ["a".databaseValue]),
        Case("NOT name != 'a'", "name COLLATE BINARY = ?", ["a".databaseValue]),
        Case("name == nil", "name IS NULL"),
        Case("name != nil", "name IS NOT NULL"),
        Case("NOT name == nil", "name IS NOT NULL"),
        Case("name < nil", "0"),
        Case("NOT name < nil", "1"),
        Case("count IN {1, 2}", "item.count IN (?, ?)", [Int64(1).databaseValue, Int64(2).databaseValue]),
        Case("name IN {'a', nil}", "(name IS NULL OR name COLLATE BINARY IN (?))", ["a".databaseValue]),
        Case("NOT name IN {'a'}", "(name IS NULL OR name COLLATE BINARY NOT IN (?))", ["a".databaseValue]),
        Case("NOT name IN {'a', nil}", "(name IS NOT NULL AND name COLLATE BINARY NOT IN (?))", ["a".databaseValue]),
        Case("count IN {}", "0"),
        Case("NOT count IN {}", "1"),
        Case("count BETWEEN {1, 5}", "item.count BETWEEN ? AND ?", [Int64(1).databaseValue, Int64(5).databaseValue]),
        Case(
            "NOT optScore BETWEEN {1, 5}", "(optScore IS NULL OR optScore NOT BETWEEN ? AND ?)",
            [(1.0).databaseValue, (5.0).databaseValue]),
        Case("count BETWEEN {1, nil}", "0"),
        Case("flags CONTAINS hdr", "(flags & ?) = ?", [Int64(2).databaseValue, Int64(2).databaseValue]),
        Case("NOT flags CONTAINS hdr", "(flags & ?) <> ?", [Int64(2).databaseValue, Int64(2).databaseValue]),
        Case(
            "name CONTAINS[c] 'x'", "fetchpredicate_contains(name, ?, ?)", ["x".databaseValue, Int64(1).databaseValue]),
        Case(
            "NOT title LIKE[cd] 'x*'", "NOT fetchpredicate_like(title, ?, ?)",
            ["x*".databaseValue, Int64(3).databaseValue]),
        Case(
            "name BEGINSWITH 'x'", "fetchpredicate_beginswith(name, ?, ?)", ["x".databaseValue, Int64(0).databaseValue]),
        Case(
            "name ENDSWITH[d] 'x'", "fetchpredicate_endswith(name, ?, ?)", ["x".databaseValue, Int64(2).databaseValue]),
        Case(
            "flag AND (count == 1 OR kind == video)", "(flag = ? AND (item.count = ? OR kind = ?))",
            [Int64(1).databaseValue, Int64(1).databaseValue, Int64(2).databaseValue]),
        Case(
            "NOT (flag AND count == 1)", "(flag <> ? OR item.count <> ?)",
            [Int64(1).databaseValue, Int64(1).databaseValue]),
        // Constants fold away.
        Case("TRUEPREDICATE", "1"),
        Case("NOT TRUEPREDICATE", "0"),
        Case("flag AND TRUEPREDICATE", "flag = ?", [Int64(1).databaseValue]),
        Case("flag OR TRUEPREDICATE", "1"),
        Case("flag AND (count IN {} OR FALSEPREDICATE)", "0"),
        Case("flag OR count IN {}", "flag = ?", [Int64(1).databaseValue]),
        Case("date == 1.5", "item.date = ?", [(1.5).databaseValue]),
        Case("score == 2", "score = ?", [(2.0).databaseValue]),
    ]

    @Test("SQL text and arguments of each construct", arguments: cases)
    func sqlText(_ testCase: Case) throws {
        let (sql, arguments) = try build(testCase.text)
        #expect(sql == testCase.sql)
        // StatementArguments is not Equatable; its description shows every value with its type.
        #expect(arguments.description == StatementArguments(testCase.arguments).description)
    }

    @Test("user values are always arguments, never SQL text")
    func parameterised() throws {
        let hostile = "x' OR 1=1; DROP TABLE item; --"
        let text = """
            name == "\(hostile)" OR title CONTAINS[c] "\(hostile)" OR name IN {"\(hostile)"} \
            OR title BETWEEN {"\(hostile)", "z"} OR title LIKE "\(hostile)*"
            """
        let (sql, arguments) = try build(text)
        #expect(!sql.contains("DROP"))
        #expect(!sql.contains("'"))
        #expect(sql.filter { $0 == "?" }.count == 8)
        let expected: StatementArguments = [
            hostile, hostile, 1, hostile, hostile, "z", "\(hostile)*", 0,
        ]
        #expect(arguments.description == expected.description)
        // And the query runs, finding nothing, with the table intact.
        let (queue, directory) = try makeDatabase(items: [Item.sample])
        defer { try? FileManager.default.removeItem(at: directory) }
        let condition = try parse(text).sql(Item.schema)
        let (ids, count) = try queue.read { db in
            (
                try fetchIDs(db, "SELECT id FROM item WHERE \(condition)"),
                try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM item")
            )
        }
        #expect(ids == [])
        #expect(count == 1)
    }

    @Test("two-valued logic: NOT of a comparison with nil is true; != includes nil; IN {…, nil} matches nil")
    func nullSemantics() throws {
        var withDate = Item.sample
        withDate.id = 1
        withDate.date = utc(2023, 6, 1)
        withDate.name = "a"
        var withoutDate = Item.sample
        withoutDate.id = 2
        withoutDate.date = nil
        withoutDate.name = nil
        var later = Item.sample
        later.id = 3
        later.date = utc(2025, 1, 1)
        later.name = "b"
        let items = [withDate, withoutDate, later]
        let (queue, directory) = try makeDatabase(items: items)
        defer { try? FileManager.default.removeItem(at: directory) }
        let expectations: [(String, [Int64])] = [
            ("date < '2024-01-01T00:00Z'", [1]),
            ("NOT date < '2024-01-01T00:00Z'", [2, 3]),
            ("NOT (date < '2024-01-01T00:00Z' OR date > '2024-06-01T00:00Z')", [2]),
            ("date >= '2024-01-01T00:00Z'", [3]),
            ("name == 'a'", [1]),
            ("name != 'a'", [2, 3]),
            ("NOT name == 'a'", [2, 3]),
            ("name == nil", [2]),
            ("name != nil", [1, 3]),
            ("name IN {'a', nil}", [1, 2]),
            ("NOT name IN {'a', nil}", [3]),
            ("name BETWEEN {'a', 'b'}", [1, 3]),
            ("NOT name BETWEEN {'a', 'b'}", [2]),
            ("name CONTAINS 'a'", [1]),
            ("NOT name CONTAINS 'a'", [2, 3]),
            ("date < nil", []),
            ("NOT date < nil", [1, 2, 3]),
        ]
        try queue.read { db in
            for (text, expected) in expectations {
                let compiled = try parse(text).compiled(for: Item.schema)
                #expect(
                    try fetchIDs(db, "SELECT id FROM item WHERE \(compiled.sql) ORDER BY id") == expected, "\(text)")
                #expect(items.filter(compiled.evaluate).map(\.id) == expected, "\(text)")
            }
        }
    }

    @Test("string equality and order are binary even when the column's collation is not")
    func binaryCollation() throws {
        struct Row { var text: String }
        let schema = PredicateSchema<Row>([
            PredicateKey(name: "text", type: .string, isOptional: false, sql: "t.text") { .string($0.text) }
        ])
        let queue = try DatabaseQueue()
        try queue.write { db in
            try db.execute(sql: "CREATE TABLE t (id INTEGER PRIMARY KEY, text TEXT NOT NULL COLLATE NOCASE)")
            for (id, text) in ["abc", "ABC", "b", "B"].enumerated() {
                try db.execute(sql: "INSERT INTO t VALUES (?, ?)", arguments: [id + 1, text])
            }
        }
        try queue.read { db in
            let equal = try Predicate.parse("text == 'abc'", schema: schema).sql(schema)
            #expect(try fetchIDs(db, "SELECT id FROM t WHERE \(equal)") == [1])
            let order = try CompiledSortOrder([SortDescriptor(key: "text")], schema: schema).sql(then: "id")
            #expect(try fetchIDs(db, "SELECT id FROM t ORDER BY \(order)") == [2, 4, 1, 3])
        }
    }

    @Test("the SQL functions are registered by name and match like in memory")
    func functions() throws {
        #expect(
            PredicateFunctions.all.map(\.name) == [
                "fetchpredicate_contains", "fetchpredicate_beginswith", "fetchpredicate_endswith",
                "fetchpredicate_like",
            ])
        let queue = try DatabaseQueue()
        try queue.read { db in
            // Without registration, compiled string predicates cannot run.
            let condition = try parse("title CONTAINS 'a'").sql(Item.schema)
            #expect(throws: DatabaseError.self) {
                try fetchIDs(db, "SELECT 1 FROM (SELECT 'a' AS title) WHERE \(condition)")
            }
            PredicateFunctions.register(in: db)
            #expect(try fetchIDs(db, "SELECT 1 FROM (SELECT 'a' AS title) WHERE \(condition)") == [1])
            #expect(try Int.fetchOne(db, sql: "SELECT fetchpredicate_like('straße', 'STRASSE', 1)") == 1)
            #expect(try Int.fetchOne(db, sql: "SELECT fetchpredicate_like('straße', 'STRASSE', 0)") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT fetchpredicate_contains(NULL, 'a', 0)") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT fetchpredicate_contains(12, '1', 0)") == 0)
            #expect(try Int.fetchOne(db, sql: "SELECT fetchpredicate_beginswith('abc', NULL, 0)") == 0)
        }
    }
}
