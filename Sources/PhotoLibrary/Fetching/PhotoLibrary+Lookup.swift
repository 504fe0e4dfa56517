import GRDB
import LibraryStorage

extension PhotoLibrary {
    /// The asset with this identifier as it is now, hidden or not, or nil — one indexed read, without a
    /// fetch result (nothing is tracked for change details): for servers answering one request at a time.
    ///
    /// - Throws: a ``PhotoLibraryError`` when the library can't be read.
    /// - Complexity: O(log *n*).
    public func asset(withLocalIdentifier identifier: String) throws(PhotoLibraryError) -> Asset? {
        try read { db in
            try db.fetchRecords(AssetRow.self, sql: "SELECT * FROM asset WHERE localIdentifier = ?", arguments: [identifier])
                .first.map(Asset.init(row:))
        }
    }
}
