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
        let query = { [self] (db: Database) throws -> Set<String> in
            try validate(token, db)
            let json = String(decoding: try JSONEncoder().encode(wanted), as: UTF8.self)
            return Set(try String.fetchAll(
                db,
                sql: "SELECT DISTINCT localIdentifier FROM change_record WHERE seq > ? AND localIdentifier IN (SELECT value FROM json_each(?))",
                arguments: [token.sequence, json]))
        }
        if let session = ChangeSession.current, session.library === self, session.admitsCaller() {
            do { return try query(session.db.unmovedDatabase) } catch { throw Self.map(error, path: databasePath) }
        }
        return try read(query)
    }
}
