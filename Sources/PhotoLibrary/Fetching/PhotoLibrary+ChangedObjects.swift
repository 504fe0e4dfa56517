import Foundation
import GRDB
import LibraryStorage

extension PhotoLibrary {
    /// The identifiers, among `identifiers`, of objects that a transaction committed after `token` inserted,
    /// updated or deleted.
    ///
    /// Called inside a change block it reads inside the block's own write transaction, which holds the
    /// library's write lock: no other process can commit between this check and the block's commit. A
    /// block can so make its changes conditional — "only if nobody changed these since I read them":
    ///
    /// ```swift
    /// try await library.performChanges {
    ///     guard try library.localIdentifiersChanged([asset.localIdentifier], since: token).isEmpty else { throw Conflict() }
    ///     AssetChangeRequest(for: asset).isFavorite = true
    /// }
    /// ```
    ///
    /// - Throws: the token errors of ``fetchPersistentChanges(since:options:)``
    ///   (``PhotoLibraryError/persistentChangeTokenExpired(oldestValidToken:)`` when the history no longer
    ///   tells), or a ``PhotoLibraryError`` when the library can't be read.
    /// - Complexity: O(*k*) in the object changes committed after `token`.
    public func localIdentifiersChanged(
        _ identifiers: some Sequence<String>, since token: ChangeToken
    ) throws(PhotoLibraryError) -> Set<String> {
        let wanted = Array(Set(identifiers))
        guard !wanted.isEmpty else { return [] }
        let query = { [self] (db: any SQLConnection) throws -> Set<String> in
            try journal.validate(token, db)
            // In chunks: an engine binds a bounded number of parameters per statement.
            var changed = Set<String>()
            for start in stride(from: 0, to: wanted.count, by: Self.parameterChunk) {
                let chunk = wanted[start..<min(start + Self.parameterChunk, wanted.count)]
                changed.formUnion(try ChangeJournal.changedLocalIdentifiers(chunk, after: token.sequence, db))
            }
            return changed
        }
        if let session = ChangeSession.current, session.library === self, session.admitsCaller() {
            do { return try query(session.db) } catch { throw Self.map(error, path: databasePath) }
        }
        return try read(query)
    }
}

extension PhotoLibrary {
    /// The most values a statement binds as `IN (?, …)` at once: under SQLite's limit (32,766) and
    /// PostgreSQL's (65,535).
    static let parameterChunk = 10_000
}
