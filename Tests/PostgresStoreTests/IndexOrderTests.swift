import PostgresNIO
import PostgresStore
import Testing

/// The orders the library's fetches ask for on PostgreSQL are read from an index, not sorted: with sorting
/// switched off for the planner, a plan that still sorts has no index giving that order.
@Suite struct IndexOrderTests {
    /// The fetches' orders: dates with undated assets first (SQLite's order), then `id`.
    static let orders: [(name: String, sql: String)] = [
        ("all assets by creationDate", "SELECT id FROM asset ORDER BY asset.creationDate NULLS FIRST, asset.id"),
        (
            "visible assets by creationDate",
            """
            SELECT id FROM asset WHERE isHidden = 0 AND (burstIdentifier IS NULL OR representsBurst = 1)
            ORDER BY asset.creationDate NULLS FIRST, asset.id
            """
        ),
        ("by modificationDate", "SELECT id FROM asset ORDER BY asset.modificationDate NULLS FIRST, asset.id"),
        ("by addedDate", "SELECT id FROM asset ORDER BY asset.addedDate NULLS FIRST, asset.id"),
        ("a moment's assets", "SELECT id FROM asset WHERE momentId = 7 ORDER BY asset.creationDate NULLS FIRST, asset.id"),
        ("videos", "SELECT id FROM asset WHERE mediaType = 2 ORDER BY asset.creationDate NULLS FIRST, asset.id"),
        ("newest first", "SELECT id FROM asset ORDER BY asset.creationDate DESC NULLS LAST, asset.id DESC"),
    ]

    @Test("every fetch order is an index's order", arguments: orders.map(\.name))
    func orderIsIndexed(name: String) async throws {
        let sql = try #require(Self.orders.first { $0.name == name }?.sql)
        try await withStore { store in
            let plan = try await store.withConnection { connection in
                try await connection.run("SET enable_sort = off")
                return try await connection.run(PostgresQuery(unsafeSQL: "EXPLAIN " + sql)).map { try $0.decode(String.self) }
            }
            #expect(!plan.contains { $0.contains("Sort") }, "\(name) sorts: \(plan.joined(separator: "\n"))")
        }
    }
}
