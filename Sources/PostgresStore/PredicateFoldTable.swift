import FetchPredicate
import Logging
import PostgresNIO

/// Keeps `fetchpredicate_scalar` (the data `fetchpredicate_fold` folds with) equal to this process's
/// ``PostgresFoldData``: rewritten, in the caller's transaction, when its digest differs.
enum PredicateFoldTable {
    /// Rewrites the table when the stored digest differs from this build's; a no-op otherwise.
    ///
    /// - Complexity: one query when up to date; otherwise a delete and one insert of a few thousand rows.
    static func refresh(_ connection: PostgresConnection, logger: Logger) async throws {
        let data = PostgresFoldData.current
        let stored = try await connection.query("SELECT digest FROM fetchpredicate_fold_version WHERE id = 1", logger: logger)
            .collect().first?.decode(String.self)
        guard stored != data.digest else { return }
        let scalars = data.scalars
        try await connection.query("DELETE FROM fetchpredicate_scalar", logger: logger)
        try await connection.query(
            """
            INSERT INTO fetchpredicate_scalar (scalar, caseFold, caseFoldBase, nonBase, combiningClass)
            SELECT s, CASE WHEN f THEN c END, CASE WHEN f THEN b END, n, k
            FROM unnest(\(scalars.map(\.scalar)), \(scalars.map { $0.caseFold != nil }), \(scalars.map { $0.caseFold ?? "" }),
                        \(scalars.map { $0.caseFoldBase ?? "" }), \(scalars.map(\.nonBase)), \(scalars.map(\.combiningClass)))
                 AS t(s, f, c, b, n, k)
            """, logger: logger)
        try await connection.query(
            """
            INSERT INTO fetchpredicate_fold_version (id, digest) VALUES (1, \(data.digest))
            ON CONFLICT (id) DO UPDATE SET digest = excluded.digest
            """, logger: logger)
    }
}
