import Foundation
import GRDB
import LibraryStorage
import Testing

/// Values, NULLs, placeholders and results through ``SQLConnection``, the same on every engine.
@Suite("Storage contract: values and statements")
struct ValueContractTests {
    static let integers: [Int64] = [0, -1, 1, 42, Int64.min, Int64.max]
    static let doubles: [Double] = [0, 0.1, -1.5e300, 1e-300, 3.25]
    static let strings = ["", "héllo 🌍", "it's ? a \"quote\" -- not a comment", "semi; colon /* not */"]
    static let blobs = [Data([0, 1, 2, 255, 0x3f]), Data((0...255).map { UInt8($0) })]

    @Test("each storage class round-trips through its column, read as a value, typed, and in a Row", arguments: EngineKind.allCases)
    func roundTrip(kind: EngineKind) async throws {
        try await EngineFixture.with(kind) { fixture in
            try fixture.createItems()
            let rows = Self.integers.indices.map { index -> [DatabaseValue] in
                [
                    Self.integers[index].databaseValue, Self.doubles[index % Self.doubles.count].databaseValue,
                    Self.strings[index % Self.strings.count].databaseValue, Self.blobs[index % Self.blobs.count].databaseValue,
                ]
            }
            try fixture.engine.write { db throws in
                for (index, row) in rows.enumerated() {
                    try db.execute(
                        sql: "INSERT INTO item (id, whole, real, name, bytes) VALUES (?, ?, ?, ?, ?)",
                        arguments: StatementArguments([Int64(index).databaseValue] + row))
                }
            }
            try fixture.engine.read { db throws in
                var read: [[DatabaseValue]] = []
                try db.forEachRow(sql: "SELECT whole, real, name, bytes FROM item ORDER BY id", arguments: [], cached: true) {
                    columns in
                    read.append((0..<4).map { columns.value($0) })
                    #expect(columns.int64(0) == columns.value(0).storage.int64)
                    #expect(columns.text(2) == String.fromDatabaseValue(columns.value(2)))
                    #expect(columns.blob(3) == Data.fromDatabaseValue(columns.value(3)))
                    #expect(columns.double(1) == Double.fromDatabaseValue(columns.value(1)))
                    return true
                }
                #expect(read == rows)
                let fetched = try db.fetchRows(sql: "SELECT whole, real, name, bytes FROM item ORDER BY id", arguments: [], cached: false)
                #expect(fetched.map { [$0["whole"], $0["real"], $0["name"], $0["bytes"]] as [DatabaseValue] } == rows)
            }
        }
    }

    @Test("NULL goes in and comes out as NULL in every column, and reads as 0, 0.0, \"\" or nil", arguments: EngineKind.allCases)
    func nulls(kind: EngineKind) async throws {
        try await EngineFixture.with(kind) { fixture in
            try fixture.createItems()
            try fixture.engine.write { db throws in
                try db.execute(
                    sql: "INSERT INTO item (id, small, whole, real, name, bytes) VALUES (1, ?, ?, ?, ?, ?)",
                    arguments: [nil, nil, nil, nil, nil])
            }
            try fixture.engine.read { db throws in
                try db.forEachRow(sql: "SELECT small, whole, real, name, bytes FROM item", arguments: [], cached: false) { columns in
                    for column in 0..<5 {
                        #expect(columns.isNull(column))
                        #expect(columns.value(column) == .null)
                        #expect(columns.int64(column) == 0 && columns.double(column) == 0 && columns.text(column) == "")
                        #expect(columns.blob(column) == nil && columns.optionalInt64(column) == nil)
                    }
                    return true
                }
                #expect(try db.fetchValue(Int64.self, sql: "SELECT count(*) FROM item WHERE whole IS NULL AND name IS NULL") == 1)
            }
        }
    }

    @Test("an integer binds into SMALLINT and DOUBLE columns and compares with them; LIMIT and OFFSET take one", arguments: EngineKind.allCases)
    func integerBinds(kind: EngineKind) async throws {
        try await EngineFixture.with(kind) { fixture in
            try fixture.createItems()
            try fixture.engine.write { db throws in
                for id in 1...5 as ClosedRange<Int64> {
                    try db.execute(sql: "INSERT INTO item (id, small, real) VALUES (?, ?, ?)", arguments: [id, id * 10, id])
                }
            }
            try fixture.engine.read { db throws in
                #expect(try db.fetchValue(Int64.self, sql: "SELECT id FROM item WHERE small = ?", arguments: [Int64(30)]) == 3)
                #expect(try db.fetchValue(Double.self, sql: "SELECT real FROM item WHERE id = ?", arguments: [Int64(4)]) == 4.0)
                #expect(try db.fetchValue(Int64.self, sql: "SELECT id FROM item WHERE real = ?", arguments: [Int64(2)]) == 2)
                #expect(try db.fetchValue(Int64.self, sql: "SELECT id FROM item WHERE real > ? ORDER BY id", arguments: [2.5]) == 3)
                let page = try db.fetchValues(Int64.self, sql: "SELECT id FROM item ORDER BY id LIMIT ? OFFSET ?", arguments: [Int64(2), Int64(1)])
                #expect(page == [2, 3])
            }
        }
    }

    @Test("an untyped NULL argument works where nothing gives it a type: ? IS NULL, SELECT ?, COALESCE(?, ?)", arguments: EngineKind.allCases)
    func untypedNull(kind: EngineKind) async throws {
        try await EngineFixture.with(kind) { fixture in
            try fixture.engine.read { db throws in
                #expect(try db.fetchValue(Int64.self, sql: "SELECT CASE WHEN ? IS NULL THEN 1 ELSE 0 END", arguments: [nil]) == 1)
                #expect(try db.fetchValue(Int64.self, sql: "SELECT CASE WHEN ? IS NULL THEN 1 ELSE 0 END", arguments: [Int64(5)]) == 0)
                #expect(try db.fetchRow(sql: "SELECT ? IS NULL AS answer", arguments: [nil])?["answer"] == 1 as Int64)
                #expect(try db.fetchRow(sql: "SELECT ? AS empty", arguments: [nil])?["empty"] == DatabaseValue.null)
                #expect(try db.fetchRow(sql: "SELECT COALESCE(?, ?) AS empty", arguments: [nil, nil])?["empty"] == DatabaseValue.null)
                #expect(try db.fetchValue(String.self, sql: "SELECT COALESCE(?, ?)", arguments: [nil, "b"]) == "b")
            }
        }
    }

    @Test("a ? inside a string literal, a quoted identifier or a comment is not a placeholder", arguments: EngineKind.allCases)
    func placeholdersInLiterals(kind: EngineKind) async throws {
        try await EngineFixture.with(kind) { fixture in
            try fixture.engine.writeWithoutTransaction { db throws in
                try db.execute(sql: #"CREATE TABLE quoted ("what?" TEXT, "it's" TEXT)"#)
            }
            try fixture.engine.write { db throws in
                try db.execute(
                    sql: """
                        INSERT INTO quoted ("what?", "it's") -- a comment? yes
                        VALUES (? /* not ? here */, '?' || ?)
                        """, arguments: ["a", "b"])
            }
            try fixture.engine.read { db throws in
                let row = try db.fetchRow(sql: #"SELECT "what?", "it's", '''?''' AS q FROM quoted WHERE "what?" = ?"#, arguments: ["a"])
                #expect(row?["what?"] == "a")
                #expect(row?["it's"] == "?b")
                #expect(row?["q"] == "'?'")
            }
        }
    }

    @Test("several statements without arguments run as a script, a ; inside a literal included", arguments: EngineKind.allCases)
    func scripts(kind: EngineKind) async throws {
        try await EngineFixture.with(kind) { fixture in
            try fixture.engine.write { db throws in
                try db.execute(
                    sql: """
                        CREATE TABLE script (x TEXT);
                        INSERT INTO script VALUES ('a;b'); -- ; in a comment
                        INSERT INTO script VALUES ('c');
                        """)
            }
            let values = try fixture.engine.read { db in try db.fetchValues(String.self, sql: "SELECT x FROM script ORDER BY x") }
            #expect(values == ["a;b", "c"])
        }
    }

    @Test("TRUE and FALSE read as the integers 1 and 0", arguments: EngineKind.allCases)
    func booleans(kind: EngineKind) async throws {
        try await EngineFixture.with(kind) { fixture in
            let row = try fixture.engine.read { db in try db.fetchRow(sql: "SELECT TRUE AS yes, FALSE AS no") }
            #expect(row?["yes"] == (1 as Int64).databaseValue)
            #expect(row?["no"] == (0 as Int64).databaseValue)
        }
    }

    @Test("changesCount is the number of rows the last INSERT, UPDATE or DELETE changed", arguments: EngineKind.allCases)
    func changesCount(kind: EngineKind) async throws {
        try await EngineFixture.with(kind) { fixture in
            try fixture.createItems()
            let counts = try fixture.engine.write { db -> [Int] in
                var counts: [Int] = []
                try db.execute(sql: "INSERT INTO item (id) VALUES (1), (2), (3)")
                counts.append(db.changesCount)
                try db.execute(sql: "UPDATE item SET whole = ? WHERE id >= ?", arguments: [Int64(7), Int64(2)])
                counts.append(db.changesCount)
                try db.execute(sql: "DELETE FROM item WHERE id > ?", arguments: [Int64(10)])
                counts.append(db.changesCount)
                try db.execute(sql: "DELETE FROM item WHERE id = ?", arguments: [Int64(1)])
                counts.append(db.changesCount)
                return counts
            }
            #expect(counts == [3, 2, 0, 1])
        }
    }

    @Test("forEachRow visits rows in order and stops when the visitor returns false; the connection goes on", arguments: EngineKind.allCases)
    func stopsEarly(kind: EngineKind) async throws {
        try await EngineFixture.with(kind) { fixture in
            try fixture.createItems()
            try fixture.engine.write { db in try db.execute(sql: "INSERT INTO item (id) VALUES (5), (3), (1), (4), (2)") }
            try fixture.engine.read { db throws in
                var visited: [Int64] = []
                try db.forEachRow(sql: "SELECT id FROM item ORDER BY id", arguments: [], cached: true) { columns in
                    visited.append(columns.int64(0))
                    return visited.count < 2
                }
                #expect(visited == [1, 2])
                #expect(try db.fetchValues(Int64.self, sql: "SELECT id FROM item ORDER BY id DESC") == [5, 4, 3, 2, 1])
            }
        }
    }

    @Test("fetchRows' rows are looked up by column name, case-insensitively", arguments: EngineKind.allCases)
    func rowsByName(kind: EngineKind) async throws {
        try await EngineFixture.with(kind) { fixture in
            try fixture.createItems()
            try fixture.engine.write { db in try db.execute(sql: "INSERT INTO item (id, name) VALUES (1, 'one')") }
            let rows = try fixture.engine.read { db throws in
                try db.fetchRows(sql: "SELECT id AS Answer, name AS \"Name\" FROM item", arguments: [], cached: false)
            }
            #expect(rows.count == 1)
            #expect(rows.first?["answer"] == 1 as Int64)
            #expect(rows.first?["ANSWER"] == 1 as Int64)
            #expect(rows.first?["Answer"] == 1 as Int64)
            #expect(rows.first?["name"] == "one")
            #expect(rows.first?["NAME"] == "one")
        }
    }
}

extension DatabaseValue.Storage {
    /// The integer, or nil for another storage class.
    var int64: Int64? {
        if case .int64(let value) = self { return value }
        return nil
    }
}
