import GRDB

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
            let statement = try db.cachedStatement(sql: "SELECT * FROM asset WHERE localIdentifier = ?")
            return try AssetRow.fetchOne(statement, arguments: [identifier]).map(Asset.init(row:))
        }
    }
}
