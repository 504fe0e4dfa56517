import Foundation
import GRDB
import Testing

@testable import FetchPredicate

@Suite("Sort descriptors")
struct SortDescriptorTests {
    @Test("lists parse with - for descending and + for ascending, ignoring whitespace")
    func parseLists() throws {
        func list(_ text: String) throws -> [SortDescriptor] {
            try SortDescriptor.parseList(text, schema: Item.schema)
        }
        #expect(
            try list("count,-title") == [SortDescriptor(key: "count"), SortDescriptor(key: "title", ascending: false)])
        #expect(try list(" +date , -kind,name ") == [Item.date.ascending, Item.kind.descending, Item.name.ascending])
        #expect(try list("") == [])
        #expect(try list("   ") == [])
        #expect(SortDescriptor.listDescription(try list("count, -title")) == "count,-title")
        #expect(SortDescriptor(key: "x", ascending: false).description == "-x")
    }

    struct ErrorCase: CustomTestStringConvertible, Sendable {
        let text: String
        let kind: PredicateError.Kind
        let position: Int
        var testDescription: String { text }
    }

    static let errors: [ErrorCase] = [
        ErrorCase(text: "count,", kind: .unexpectedEnd, position: 6),
        ErrorCase(text: "count,,title", kind: .unexpectedToken(","), position: 6),
        ErrorCase(text: "-", kind: .unexpectedEnd, position: 1),
        ErrorCase(text: "--count", kind: .unexpectedToken("-"), position: 1),
        ErrorCase(text: "count title", kind: .unexpectedToken("title"), position: 6),
        ErrorCase(text: "count, -cnt", kind: .unknownKey(name: "cnt", validKeys: Item.schema.keyNames), position: 8),
        ErrorCase(text: "count;title", kind: .unexpectedCharacter(";"), position: 5),
        ErrorCase(text: "'count'", kind: .unexpectedToken("'count'"), position: 0),
    ]

    @Test("errors have the same type and positions as predicate errors", arguments: errors)
    func parseErrors(_ testCase: ErrorCase) {
        do {
            _ = try SortDescriptor.parseList(testCase.text, schema: Item.schema)
            Issue.record("\(testCase.text) parsed")
        } catch {
            #expect(error.kind == testCase.kind, "\(error)")
            #expect(error.position == testCase.position, "\(error)")
        }
    }

    @Test("the ORDER BY list names the schema's expressions and ends with the caller's tie-breaker")
    func sql() throws {
        let order = try CompiledSortOrder(
            [Item.date.descending, Item.title.ascending, Item.halfCount.ascending], schema: Item.schema)
        let empty = try CompiledSortOrder([], schema: Item.schema)
        let queue = try DatabaseQueue()
        let texts = try queue.read { db in
            [
                try order.sql(then: "id").build(db).sql, try order.sql().build(db).sql, try empty.sql().build(db).sql,
                try empty.sql(then: "id DESC").build(db).sql,
            ]
        }
        #expect(
            texts == [
                "item.date DESC, title COLLATE BINARY ASC, (item.count / 2) ASC, id",
                "item.date DESC, title COLLATE BINARY ASC, (item.count / 2) ASC", "", "id DESC",
            ])
        #expect(throws: PredicateError.self) {
            try CompiledSortOrder([SortDescriptor(key: "nope")], schema: Item.schema)
        }
    }

    @Test("the comparator orders like SQLite: nil first ascending and last descending, strings by UTF-8 bytes")
    func comparator() throws {
        var items: [Item] = []
        for (index, name) in [nil, "b", "B", "é", "e\u{301}", "z", nil, "😀", "a"].enumerated() {
            var item = Item.sample
            item.id = Int64(index + 1)
            item.name = name
            items.append(item)
        }
        let ascending = try CompiledSortOrder([Item.name.ascending], schema: Item.schema)
        let descending = try CompiledSortOrder([Item.name.descending], schema: Item.schema)
        func sorted(_ order: CompiledSortOrder<Item>) -> [String?] {
            items.sorted {
                order.compare($0, $1) == .orderedAscending || (order.compare($0, $1) == .orderedSame && $0.id < $1.id)
            }
            .map(\.name)
        }
        #expect(sorted(ascending) == [nil, nil, "B", "a", "b", "e\u{301}", "z", "é", "😀"])
        #expect(sorted(descending) == ["😀", "é", "z", "e\u{301}", "b", "a", "B", nil, nil])
        #expect(ascending.areInIncreasingOrder(items[0], items[1]))
        #expect(!ascending.areInIncreasingOrder(items[0], items[6]))
        #expect(ascending.compare(items[0], items[6]) == .orderedSame)
    }

    @Test("numbers compare numerically and exactly across integers and doubles; bools as 0/1; dates by seconds")
    func numericOrder() {
        #expect(PredicateValue.order(.integer(2), .double(2.5)) < 0)
        #expect(PredicateValue.order(.double(2.0), .integer(2)) == 0)
        #expect(PredicateValue.order(.integer(9_007_199_254_740_993), .double(9_007_199_254_740_992)) > 0)
        #expect(PredicateValue.order(.integer(Int64.max), .double(9.223372036854775807e18)) < 0)
        #expect(PredicateValue.order(.integer(Int64.min), .double(-9.223372036854775808e18)) == 0)
        #expect(PredicateValue.order(.integer(Int64.min), .double(-1e300)) > 0)
        #expect(PredicateValue.order(.integer(-3), .double(-2.5)) < 0)
        #expect(PredicateValue.order(.integer(-2), .double(-2.5)) > 0)
        #expect(PredicateValue.order(.bool(true), .integer(1)) == 0)
        #expect(PredicateValue.order(.bool(false), .bool(true)) < 0)
        #expect(PredicateValue.order(.date(Date(timeIntervalSince1970: 10)), .double(10)) == 0)
        #expect(PredicateValue.order(.null, .integer(Int64.min)) < 0)
        #expect(PredicateValue.order(.double(.nan), .null) == 0)
        #expect(PredicateValue.order(.double(1e300), .string("")) < 0)
        #expect(PredicateValue.order(.string("Z"), .string("a")) < 0)
        #expect(PredicateValue.order(.string("ab"), .string("a")) > 0)
    }
}
