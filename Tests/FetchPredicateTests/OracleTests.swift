import SeededRandom
import Foundation
import GRDB
import Testing
import PostgresStore

@testable import FetchPredicate

/// Random predicates over the item schema, in canonical form (as the parser produces them), depth ≤ 4.
struct PredicateGenerator {
    var rng: SplitMix64

    init(seed: UInt64) {
        rng = SplitMix64(seed: seed)
    }

    mutating func predicate(depth: Int) -> Predicate {
        if depth == 0 || rng.chance(0.35) { return atom() }
        switch Int.random(in: 0..<3, using: &rng) {
        case 0:
            return .not(predicate(depth: depth - 1))
        case 1:
            return .and((0..<Int.random(in: 2...3, using: &rng)).map { _ in predicate(depth: depth - 1) })
        default:
            return .or((0..<Int.random(in: 2...3, using: &rng)).map { _ in predicate(depth: depth - 1) })
        }
    }

    mutating func sorts() -> [SortDescriptor] {
        (0..<Int.random(in: 0...3, using: &rng)).map { _ in
            SortDescriptor(key: rng.pick(Item.schema.keyNames), ascending: rng.chance(0.5))
        }
    }

    mutating func value(for type: PredicateKeyType) -> PredicateValue {
        if rng.chance(0.06) { return .null }
        switch type {
        case .bool:
            return .bool(rng.chance(0.5))
        case .integer:
            if rng.chance(0.25) { return .double(rng.pick(Pools.doubles)) }
            return .integer(Int64(rng.pick(Pools.integers)) &+ rng.pick([-1, 0, 0, 0, 1]))
        case .double:
            if rng.chance(0.2) { return .double(Double(rng.pick(Pools.integers))) }
            return .double(rng.pick(Pools.doubles))
        case .date:
            if rng.chance(0.1) {
                return .date(Date(timeIntervalSince1970: Double(rng.pick(Array(Pools.integers.prefix(8))))))
            }
            return .date(rng.date())
        case .string:
            return .string(rng.pick(Pools.strings))
        case .enumeration:
            return .integer(Int64(Int.random(in: 0...4, using: &rng)))
        case .optionSet:
            return .integer(Int64(rng.pick(Pools.flagMasks)))
        }
    }

    mutating func atom() -> Predicate {
        if rng.chance(0.03) { return .constant(rng.chance(0.5)) }
        let key = rng.pick(Item.schema.keys)
        let name = key.name
        let roll = Int.random(in: 0..<10, using: &rng)
        if case .bool = key.type, roll < 3 {
            return .key(name)
        }
        if case .string = key.type, roll < 4 {
            return .stringMatch(
                key: name, op: rng.pick(StringOperator.allCases), pattern: rng.pick(Pools.patterns),
                options: StringOptions(rawValue: Int.random(in: 0...3, using: &rng)))
        }
        if case .optionSet = key.type, roll < 3 {
            return .containsFlags(key: name, mask: Int64(rng.pick(Pools.flagMasks)))
        }
        let ordered = key.type.isOrdered
        switch roll {
        case 8:
            return .in(key: name, values: (0..<Int.random(in: 0...4, using: &rng)).map { _ in value(for: key.type) })
        case 9 where ordered:
            return .between(key: name, lower: value(for: key.type), upper: value(for: key.type))
        default:
            let op = ordered ? rng.pick(ComparisonOperator.allCases) : rng.pick([.equal, .notEqual])
            return .comparison(key: name, op: op, value: value(for: key.type))
        }
    }
}

/// The SQL engines compiled predicates run on.
enum Engine: String, CaseIterable, Sendable {
    case sqlite
    case postgres
}

/// Runs a predicate and a sort order in one engine's database: the ids it selects in order, and the ids
/// its negation selects.
protocol OracleDatabase {
    func select(_ compiled: CompiledPredicate<Item>, _ order: CompiledSortOrder<Item>, negation: Predicate) async throws
        -> (ids: [Int64], negated: [Int64], sql: String)
}

struct SQLiteOracle: OracleDatabase {
    let queue: DatabaseQueue

    func select(_ compiled: CompiledPredicate<Item>, _ order: CompiledSortOrder<Item>, negation: Predicate) async throws
        -> (ids: [Int64], negated: [Int64], sql: String)
    {
        try await queue.read { db in
            let query: SQL = "SELECT id FROM item WHERE \(compiled.sql) ORDER BY \(order.sql(then: "id"))"
            let negated: SQL = "SELECT id FROM item WHERE \(try negation.sql(Item.schema))"
            let (text, arguments) = try query.build(db)
            return (try fetchIDs(db, query), try fetchIDs(db, negated), "\(text) \(arguments)")
        }
    }
}

struct PostgresOracle: OracleDatabase {
    let store: PostgresStore

    func select(_ compiled: CompiledPredicate<Item>, _ order: CompiledSortOrder<Item>, negation: Predicate) async throws
        -> (ids: [Int64], negated: [Int64], sql: String)
    {
        let query: PostgresSQL = "SELECT id FROM item WHERE \(compiled.postgresSQL) ORDER BY \(sql: order.postgresSQL(then: "id"))"
        let negated: PostgresSQL = "SELECT id FROM item WHERE \(try negation.compiled(for: Item.schema).postgresSQL)"
        return try await store.withConnection { connection in
            (try await fetchIDs(connection, query), try await fetchIDs(connection, negated), "\(query.rendered())")
        }
    }
}

@Suite("SQL and in-memory evaluation agree (oracle)")
struct OracleTests {
    static let predicatesPerDataSet = 300

    @Test(
        "random predicates select and order the same rows in SQL and in memory",
        arguments: Engine.allCases, [1, 2, 3, 4] as [UInt64])
    func sqlMatchesMemory(engine: Engine, dataSeed: UInt64) async throws {
        var rng = SplitMix64(seed: dataSeed)
        let items = (1...150).map { rng.item(id: Int64($0)) }
        switch engine {
        case .sqlite:
            let (queue, directory) = try makeDatabase(items: items)
            defer { try? FileManager.default.removeItem(at: directory) }
            try await compare(SQLiteOracle(queue: queue), items: items, dataSeed: dataSeed)
        case .postgres:
            let store = try await makePostgresDatabase(items: items)
            do {
                try await compare(PostgresOracle(store: store), items: items, dataSeed: dataSeed)
                await store.close()
            } catch {
                await store.close()
                throw error
            }
        }
    }

    func compare(_ database: some OracleDatabase, items: [Item], dataSeed: UInt64) async throws {
        let allIDs = Set(items.map(\.id))
        var failures = 0
        var selective = 0  // predicates that select some rows but not all
        for index in 0..<Self.predicatesPerDataSet {
            let seed = dataSeed * 1_000_000 + UInt64(index)
            var generator = PredicateGenerator(seed: seed)
            let predicate = generator.predicate(depth: 4)
            let sorts = generator.sorts()
            let compiled = try predicate.compiled(for: Item.schema)
            let order = try CompiledSortOrder(sorts, schema: Item.schema)
            let (sqlIDs, negated, sql) = try await database.select(compiled, order, negation: .not(predicate))
            let memoryIDs = items.filter(compiled.evaluate).sorted {
                switch order.compare($0, $1) {
                case .orderedAscending: true
                case .orderedDescending: false
                case .orderedSame: $0.id < $1.id
                }
            }.map(\.id)

            if !sqlIDs.isEmpty && sqlIDs.count < items.count { selective += 1 }
            let negatedIDs = Set(negated)
            let complementOK = negatedIDs.isDisjoint(with: sqlIDs) && negatedIDs.union(sqlIDs) == allIDs

            if sqlIDs != memoryIDs || !complementOK {
                failures += 1
                Issue.record(
                    """
                    seed \(seed): SQL and memory disagree (complement ok: \(complementOK))
                    predicate: \(predicate.description(using: Item.schema))
                    sorts: \(SortDescriptor.listDescription(sorts))
                    sql: \(sql)
                    sql ids:    \(sqlIDs)
                    memory ids: \(memoryIDs)
                    """)
                if failures >= 3 { return }
            }
        }
        // The generator must produce predicates that discriminate, or the comparison proves little.
        #expect(selective > Self.predicatesPerDataSet / 2, "only \(selective) selective predicates")
    }

    @Test("generated predicates are canonical and their text forms parse back to equal predicates")
    func textRoundTrip() throws {
        for seed in 0..<2000 as Range<UInt64> {
            var generator = PredicateGenerator(seed: seed)
            let predicate = generator.predicate(depth: 4)
            #expect(try predicate.compiled(for: Item.schema).predicate == predicate, "seed \(seed)")
            let text = predicate.description
            let named = predicate.description(using: Item.schema)
            let reparsed = try? parse(text)
            let reparsedNamed = try? parse(named)
            #expect(reparsed == predicate, "seed \(seed): \(text)")
            #expect(reparsedNamed == predicate, "seed \(seed): \(named)")
            if reparsed != predicate || reparsedNamed != predicate { return }
        }
    }

    @Test("predicates and sort descriptors survive a JSON round trip")
    func codableRoundTrip() throws {
        for seed in 0..<200 as Range<UInt64> {
            var generator = PredicateGenerator(seed: seed)
            let predicate = generator.predicate(depth: 4)
            let sorts = generator.sorts()
            let data = try JSONEncoder().encode(predicate)
            #expect(try JSONDecoder().decode(Predicate.self, from: data) == predicate, "seed \(seed)")
            let sortData = try JSONEncoder().encode(sorts)
            #expect(try JSONDecoder().decode([SortDescriptor].self, from: sortData) == sorts, "seed \(seed)")
        }
    }
}
