import Foundation
import GRDB
import SeededRandom
import Testing

@testable import FetchPredicate

// Foundation also declares `Predicate`, `SortDescriptor` and `PredicateError`: a module-level alias picks ours, as a client
// module importing both would do.
typealias Predicate = FetchPredicate.Predicate
typealias SortDescriptor = FetchPredicate.SortDescriptor
typealias PredicateError = FetchPredicate.PredicateError

/// The kind of an item: an enumeration key.
enum ItemKind: Int, CaseIterable, Sendable, PredicateEnumeration, CustomStringConvertible {
    case unknown = 0
    case image = 1
    case video = 2
    case audio = 3

    var description: String {
        switch self {
        case .unknown: "unknown"
        case .image: "image"
        case .video: "video"
        case .audio: "audio"
        }
    }
}

/// Flags of an item: an option-set key.
struct ItemFlags: PredicateOptionSet, Hashable {
    let rawValue: Int
    init(rawValue: Int) { self.rawValue = rawValue }

    static let panorama = ItemFlags(rawValue: 1 << 0)
    static let hdr = ItemFlags(rawValue: 1 << 1)
    static let screenshot = ItemFlags(rawValue: 1 << 2)
    static let streamed = ItemFlags(rawValue: 1 << 16)

    static var predicateFlags: [(name: String, value: ItemFlags)] {
        [("panorama", .panorama), ("hdr", .hdr), ("screenshot", .screenshot), ("streamed", .streamed)]
    }
}

/// The test object: a key of every type, optional and not.
struct Item: Sendable, Equatable {
    var id: Int64
    var flag: Bool
    var optFlag: Bool?
    var count: Int
    var optCount: Int64?
    var score: Double
    var optScore: Double?
    var date: Date?
    var name: String?
    var title: String
    var kind: ItemKind
    var flags: ItemFlags

    // Typed keys, with the same names as the properties (as the library will declare them).
    typealias Key<Value: PredicateValueConvertible> = PredicateKeyPath<Item, Value>
    static let flag = Key<Bool>("flag")
    static let optFlag = Key<Bool?>("optFlag")
    static let count = Key<Int>("count")
    static let halfCount = Key<Int>("halfCount")
    static let optCount = Key<Int64?>("optCount")
    static let score = Key<Double>("score")
    static let optScore = Key<Double?>("optScore")
    static let date = Key<Date?>("date")
    static let name = Key<String?>("name")
    static let title = Key<String>("title")
    static let kind = Key<ItemKind>("kind")
    static let flags = Key<ItemFlags>("flags")

    static let schema = PredicateSchema<Item>([
        PredicateKey(Item.flag, sql: "flag") { $0.flag },
        PredicateKey(Item.optFlag, sql: "item.optFlag") { $0.optFlag },
        PredicateKey(Item.count, sql: "item.count") { $0.count },
        // A computed expression, which compiled SQL must parenthesise.
        PredicateKey(Item.halfCount, sql: "item.count / 2") { $0.count / 2 },
        PredicateKey(Item.optCount, sql: "optCount") { $0.optCount },
        PredicateKey(Item.score, sql: "score") { $0.score },
        PredicateKey(Item.optScore, sql: "optScore") { $0.optScore },
        PredicateKey(Item.date, sql: "item.date") { $0.date },
        PredicateKey(Item.name, sql: "name") { $0.name },
        PredicateKey(Item.title, sql: "title") { $0.title },
        PredicateKey(Item.kind, sql: "kind") { $0.kind },
        PredicateKey(Item.flags, sql: "flags") { $0.flags },
    ])

    static let createTable = """
        CREATE TABLE item (
            id INTEGER PRIMARY KEY,
            flag INTEGER NOT NULL,
            optFlag INTEGER,
            count INTEGER NOT NULL,
            optCount INTEGER,
            score REAL NOT NULL,
            optScore REAL,
            date REAL,
            name TEXT,
            title TEXT NOT NULL,
            kind INTEGER NOT NULL,
            flags INTEGER NOT NULL)
        """

    func insert(_ db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO item (id, flag, optFlag, count, optCount, score, optScore, date, name, title, kind, flags)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                id, flag, optFlag, count, optCount, score, optScore, date?.timeIntervalSince1970, name, title,
                kind.rawValue, flags.rawValue,
            ])
    }
}

/// Values the random items and predicates draw from, with many ties, NULLs, edge numbers and strings that
/// differ only by case, diacritics, normalisation or folding.
enum Pools {
    static let integers: [Int] = [
        -3, -1, 0, 0, 1, 1, 2, 3, 5, 100, 9_007_199_254_740_993, Int.max, Int.min, 4_611_686_018_427_387_904,
    ]
    static let doubles: [Double] = [
        -1.5, -0.0, 0.0, 0.5, 1.0, 2.5, 3.0, 1e300, -1e300, 9_007_199_254_740_992.0, 0.1, 9.223372036854775807e18,
        -9.223372036854775808e18, 4.611686018427387904e18,
    ]
    static let strings: [String] = [
        "", "a", "A", "abc", "Abc", "ABC", "Été", "ÉTÉ", "été", "ete", "e\u{301}te\u{301}", "straße", "STRASSE",
        "Strasse", "ß", "😀", "a😀b", "İstanbul", "istanbul", "x*y", "a?c", "日本語", "Zoë", "zoe", "Zoe\u{308}",
        "IMG_0001.HEIC", "img_0002.jpg", "\u{FB01}le", "file", " ", "é", "e",
    ]
    static let patterns: [String] = [
        "", "a", "A", "é", "e", "É", "E", "te", "TÉ", "ss", "SS", "ß", "😀", "?", "*", "**", "a*", "*c", "*é*",
        "?t?", "s*e", "IMG*", "img_????.*", "*.jpg", "x\\*y", "Str*", "istanbul", "İ", "fi", "ﬁ", "日本", "a?c",
        "e\u{301}", "zoë",
    ]
    /// Milliseconds since 1970, so that dates print and parse back exactly.
    static let dateMilliseconds: [Int64] = [
        1_700_000_000_000, 1_700_000_000_000, 1_700_000_000_500, 1_700_003_600_000, 1_704_067_200_000,
        1_704_067_200_001, 946_684_800_000, 1_000_000_000_123, 1_899_999_999_999,
    ]
    static let flagMasks: [Int] = [0, 1, 2, 4, 65536, 3, 5, 65537, 7, 65543]
}

extension SplitMix64 {
    mutating func date() -> Date {
        Date(timeIntervalSince1970: Double(pick(Pools.dateMilliseconds)) / 1000)
    }

    mutating func item(id: Int64) -> Item {
        Item(
            id: id,
            flag: chance(0.5),
            optFlag: chance(0.3) ? nil : chance(0.5),
            count: pick(Pools.integers),
            optCount: chance(0.3) ? nil : Int64(pick(Pools.integers)),
            score: pick(Pools.doubles),
            optScore: chance(0.3) ? nil : pick(Pools.doubles),
            date: chance(0.25) ? nil : date(),
            name: chance(0.25) ? nil : pick(Pools.strings),
            title: pick(Pools.strings),
            kind: pick(ItemKind.allCases),
            flags: ItemFlags(rawValue: pick(Pools.flagMasks)))
    }
}

/// Creates an SQLite database file in a fresh temporary directory, with the predicate functions.
func makeDatabase(items: [Item]) throws -> (DatabaseQueue, URL) {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("FetchPredicateTests-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    var configuration = Configuration()
    configuration.prepareDatabase { db in
        PredicateFunctions.register(in: db)
    }
    let queue = try DatabaseQueue(
        path: directory.appendingPathComponent("items.sqlite").path, configuration: configuration)
    try queue.write { db in
        try db.execute(sql: Item.createTable)
        for item in items { try item.insert(db) }
    }
    return (queue, directory)
}

/// Parses against the item schema, in UTC.
func parse(_ text: String) throws(PredicateError) -> Predicate {
    try Predicate.parse(text, schema: Item.schema, timeZone: TimeZone(secondsFromGMT: 0)!)
}

/// The error that parsing against the item schema throws, or nil.
func parseError(_ text: String) -> PredicateError? {
    parseError(text, schema: Item.schema)
}

/// The error that parsing throws, or nil.
func parseError<Object>(_ text: String, schema: PredicateSchema<Object>) -> PredicateError? {
    do {
        _ = try Predicate.parse(text, schema: schema, timeZone: TimeZone(secondsFromGMT: 0)!)
        return nil
    } catch {
        return error
    }
}

/// A UTC date from components.
func utc(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Double = 0) -> Date {
    let days = DateLiteral.daysFromCivil(year: Int64(year), month: Int64(month), day: Int64(day))
    return Date(timeIntervalSince1970: Double(days * 86_400 + Int64(hour * 3600 + minute * 60)) + second)
}

/// The ids that an SQL query selects.
func fetchIDs(_ db: Database, _ query: SQL) throws -> [Int64] {
    try Int64.fetchAll(db, SQLRequest<Int64>(literal: query))
}
