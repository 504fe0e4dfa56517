import Foundation
import Logging
import PostgresNIO
import PostgresStore
import PostgresTestSupport

@testable import FetchPredicate

let postgresLogger = Logger(label: "photosync.tests")

extension Item {
    /// The item table in PostgreSQL's dialect: the same storage as ``createTable`` (see PredicateKey).
    static let createPostgresTable = """
        CREATE TABLE item (
            id BIGINT PRIMARY KEY,
            flag BIGINT NOT NULL,
            optFlag BIGINT,
            count BIGINT NOT NULL,
            optCount BIGINT,
            score DOUBLE PRECISION NOT NULL,
            optScore DOUBLE PRECISION,
            date DOUBLE PRECISION,
            name TEXT,
            title TEXT NOT NULL,
            kind BIGINT NOT NULL,
            flags BIGINT NOT NULL)
        """

    func insert(_ connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO item (id, flag, optFlag, count, optCount, score, optScore, date, name, title, kind, flags)
            VALUES (\(id), \(Int64(flag ? 1 : 0)), \(optFlag.map { Int64($0 ? 1 : 0) }), \(Int64(count)), \(optCount),
                    \(score), \(optScore), \(date?.timeIntervalSince1970), \(name), \(title), \(Int64(kind.rawValue)),
                    \(Int64(flags.rawValue)))
            """, logger: postgresLogger)
    }
}

/// A store on a fresh database of the test cluster (migrated: it has `fetchpredicate_fold`), with the items.
func makePostgresDatabase(items: [Item]) async throws -> PostgresStore {
    let store = try await PostgresStore.open(url: try PostgresCluster.shared().makeDatabase(prefix: "predicate"))
    try await store.withConnection { connection in
        try await connection.query(PostgresQuery(unsafeSQL: Item.createPostgresTable), logger: postgresLogger)
        for item in items { try await item.insert(connection) }
    }
    return store
}

/// The ids a PostgreSQL query selects.
func fetchIDs(_ connection: PostgresConnection, _ query: PostgresSQL) async throws -> [Int64] {
    try await connection.query(PostgresQuery(query), logger: postgresLogger).collect().map { try $0.decode(Int64.self) }
}
