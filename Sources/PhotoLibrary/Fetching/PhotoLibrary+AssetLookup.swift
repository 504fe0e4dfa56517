import GRDB
import LibraryStorage

extension PhotoLibrary {
    /// The asset with `identifier` as it is now (hidden or not, any burst member), or nil: one lookup on the
    /// unique index through a cached statement, in one read transaction, without a fetch result. For hot
    /// paths of the package's modules (serving a cached image of an asset); clients use
    /// ``fetchAssets(withLocalIdentifiers:options:)``.
    ///
    /// - Throws: ``PhotoLibraryError`` when the library can't be read.
    /// - Complexity: O(log *n*).
    package func fetchAsset(withLocalIdentifier identifier: String) throws(PhotoLibraryError) -> Asset? {
        try read { db in
            try db.fetchRecords(AssetRow.self, sql: "SELECT * FROM asset WHERE localIdentifier = ?", arguments: [identifier], cached: true)
                .first.map(Asset.init(row:))
        }
    }
}
