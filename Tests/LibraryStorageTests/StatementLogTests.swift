import Foundation
import LibraryStorage
import PostgresTestSupport
import Testing
@testable import PostgresStore

/// The test cluster's statement log (``PostgresStatementLog``), the probe of what reaches a PostgreSQL
/// database: it must see the engine's statements, and tell those of a transaction from those outside one.
/// (With the storage contract's suites: a synchronous test, run in the pass of those, not among the tests
/// that wait on time.)
@Suite struct StatementLogTests {
    @Test("the log sees each statement of its database, with the transaction block it ran in")
    func statementsAndTheirTransactions() throws {
        let cluster = try PostgresCluster.shared()
        let url = try cluster.makeDatabase(prefix: "statements", settings: ["log_statement": "all"])
        let quiet = try cluster.makeDatabase(prefix: "quiet", settings: ["log_statement": "all"])
        let engine = try PostgresEngine(url: url)
        let other = try PostgresEngine(url: quiet)
        _ = try engine.read { try $0.fetchRows(sql: "SELECT 'before the log'", arguments: [], cached: false) }
        let log = try PostgresStatementLog(cluster: cluster, database: url)
        try engine.write { try $0.execute(sql: "SELECT 'in a write'", arguments: []) }
        try engine.writeWithoutTransaction { try $0.execute(sql: "SELECT 'outside'", arguments: []) }
        _ = try engine.read { try $0.fetchRows(sql: "SELECT 'in a read'", arguments: [], cached: false) }
        try other.write { try $0.execute(sql: "SELECT 'another database'", arguments: []) }
        let statements = try log.statements()
        let texts = statements.map(\.sql)
        #expect(!texts.contains { $0.contains("before the log") || $0.contains("another database") }, "\(texts)")
        #expect(!texts.contains { $0.contains("photosync-log-marker") }, "\(texts)")
        func inTransaction(_ text: String) -> Bool? { statements.first { $0.sql.contains(text) }?.inTransaction }
        #expect(inTransaction("in a write") == true, "\(statements)")
        #expect(inTransaction("in a read") == true, "\(statements)")
        #expect(inTransaction("outside") == false, "\(statements)")
        // The blocks' ends are in the log too, and each closes its block.
        #expect(statements.filter { $0.sql == "COMMIT" }.count == 2, "\(statements)")
        #expect(statements.filter { !$0.inTransaction }.map(\.sql) == ["SELECT 'outside'"], "\(statements)")
    }
}
