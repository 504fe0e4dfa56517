import Foundation
import GRDB
import LibraryStorage
import PostgresStore
import PostgresTestSupport
import Testing

/// What only the PostgreSQL engine does: its errors, its conversions, its writer lock.
@Suite("PostgreSQL engine")
struct PostgresEngineTests {
    /// The error `body` throws, as a store error.
    func storeError<T>(_ body: () throws -> T) -> PostgresStoreError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error as? PostgresStoreError
        }
    }

    @Test("a server error keeps its SQLSTATE and names the statement; the write is rolled back")
    func serverErrors() async throws {
        try await EngineFixture.with(.postgres) { fixture in
            try fixture.createItems()
            let syntax = storeError { try fixture.engine.read { db throws in try db.fetchRows(sql: "SELEC 1", arguments: [], cached: false) } }
            guard case .server(let state, let message)? = syntax else {
                Issue.record("expected a server error, got \(String(describing: syntax))")
                return
            }
            #expect(state == "42601")
            #expect(message.contains("SELEC 1"), "\(message)")
            let duplicate = storeError {
                try fixture.engine.write { db throws in
                    try db.execute(sql: "INSERT INTO item (id) VALUES (?)", arguments: [Int64(1)])
                    try db.execute(sql: "INSERT INTO item (id) VALUES (?)", arguments: [Int64(1)])
                }
            }
            guard case .server("23505", _)? = duplicate else {
                Issue.record("expected a unique violation, got \(String(describing: duplicate))")
                return
            }
            #expect(try fixture.itemCount() == 0)
        }
    }

    @Test("several statements with arguments, named arguments, a count mismatch and an unread column type are refused, saying why")
    func refusals() async throws {
        try await EngineFixture.with(.postgres) { fixture in
            try fixture.createItems()
            let cases: [(String, @Sendable (any SQLConnection) throws -> Void)] = [
                ("several statements", { db in try db.execute(sql: "SELECT ?; SELECT ?", arguments: [Int64(1), Int64(2)]) }),
                ("named arguments", { db in try db.execute(sql: "SELECT :a", arguments: ["a": Int64(1)]) }),
                ("1 arguments for 2 placeholders", { db in try db.execute(sql: "SELECT ?, ?", arguments: [Int64(1)]) }),
                ("cast it", { db in _ = try db.fetchRows(sql: "SELECT now() AS moment", arguments: [], cached: false) }),
            ]
            for (reason, body) in cases {
                let error = storeError { try fixture.engine.read { db throws in try body(db) } }
                guard case .invalidStatement(_, let message)? = error else {
                    Issue.record("\(reason): expected invalidStatement, got \(String(describing: error))")
                    continue
                }
                #expect(message.contains(reason), "\(message)")
            }
            // The engine goes on after each.
            #expect(try fixture.itemCount() == 0)
        }
    }

    @Test("NUMERIC reads as an integer when integral, else as a double; REAL as a double")
    func numeric() async throws {
        try await EngineFixture.with(.postgres) { fixture in
            let row = try fixture.engine.read { db throws in
                try db.fetchRow(sql: "SELECT sum(x) AS total, 1.5::numeric AS half, 0.25::real AS quarter FROM (VALUES (1::bigint), (2)) AS t(x)")
            }
            #expect(row?["total"] == (3 as Int64).databaseValue)
            #expect(row?["half"] == (1.5).databaseValue)
            #expect(row?["quarter"] == (0.25).databaseValue)
        }
    }

    @Test("a write holds the writer lock for its whole transaction, against every other session")
    func writerLock() async throws {
        try await EngineFixture.with(.postgres) { fixture in
            let other = try await fixture.openAnother()
            let lockSQL = "SELECT pg_try_advisory_xact_lock(\(PostgresEngine.writerLockKey))"
            let taken = try fixture.engine.write { _ in
                try other.read { db throws in try db.fetchValue(Int64.self, sql: lockSQL) }
            }
            #expect(taken == 0)
            #expect(try other.read { db throws in try db.fetchValue(Int64.self, sql: lockSQL) } == 1)
            await fixture.close(other)
        }
    }

    @Test("a read whose body throws rolls back and leaves its connection to the pool, not closed")
    func connectionKeptAfterThrow() async throws {
        try await EngineFixture.with(.postgres) { fixture in
            let pidSQL = "SELECT pg_backend_pid()"
            let first = try fixture.engine.read { db throws in try db.fetchValue(Int64.self, sql: pidSQL) }
            #expect(throws: Deliberate.self) {
                try fixture.engine.read { db throws in
                    #expect(try db.fetchValue(Int64.self, sql: pidSQL) == first)
                    throw Deliberate()
                }
            }
            #expect(try fixture.engine.read { db throws in try db.fetchValue(Int64.self, sql: pidSQL) } == first)
        }
    }

    @Test("the engine opens synchronously too (blocking its caller, the cooperative pool included)")
    func opensSynchronously() async throws {
        let url = try PostgresTestSupport.PostgresCluster.shared().makeDatabase(prefix: "storage")
        let engine = try PostgresEngine(url: url)
        #expect(try engine.read { db throws in try db.fetchValue(Int64.self, sql: "SELECT count(*) FROM photosync_schema_migration") ?? 0 } > 0)
        await engine.close()
    }
}
