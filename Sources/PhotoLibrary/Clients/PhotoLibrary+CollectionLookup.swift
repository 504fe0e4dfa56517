import Foundation
import GRDB
import LibraryStorage

extension PhotoLibrary {
    /// User albums and folders by local identifier, read in one snapshot: what a client that keeps identifiers
    /// of its own (a sync worker, the album and folder each directory became) needs to make change requests
    /// for them. Identifiers of objects that no longer exist are left out.
    ///
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    /// - Complexity: O(*k*) in the identifiers given (one index lookup each).
    public func fetchCollections(
        albumIdentifiers: some Collection<String>, folderIdentifiers: some Collection<String>
    ) throws(PhotoLibraryError) -> (albums: [String: AssetCollection], folders: [String: CollectionList]) {
        try read { db in
            func keys(_ table: String, _ identifiers: some Collection<String>) throws -> [Int64] {
                guard !identifiers.isEmpty else { return [] }
                let marks = Array(repeating: "?", count: identifiers.count).joined(separator: ",")
                return try db.fetchValues(
                    Int64.self, sql: "SELECT id FROM \(table) WHERE localIdentifier IN (\(marks))",
                    arguments: StatementArguments(Array(identifiers)))
            }
            let sequence = try ChangeJournal.lastSequence(db)
            let albums = try ObjectLoading.collections(
                ArraySlice(try keys("asset_collection", albumIdentifiers)), sequence: sequence, library: self, db)
            let folders = try ObjectLoading.lists(ArraySlice(try keys("collection_list", folderIdentifiers)), sequence: sequence, db)
            return (
                Dictionary(albums.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { a, _ in a }),
                Dictionary(folders.map { ($0.localIdentifier, $0) }, uniquingKeysWith: { a, _ in a })
            )
        }
    }
}
