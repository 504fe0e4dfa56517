import GRDB
import LibraryStorage

/// The rows a change block reads again and again (each object it touches, each album and moment it
/// maintains), through statements the engine keeps prepared (`cached`): a query built and prepared per call —
/// with GRDB's authorizer called back for every column — cost a batch of a scan more than its inserts.
extension ChangeSession {
    func assetRow(id: Int64) throws -> AssetRow? {
        try db.fetchRepeatedRecord(AssetRow.self, sql: "SELECT * FROM asset WHERE id = ?", arguments: [id])
    }

    func collectionRow(id: Int64) throws -> AssetCollectionRow? {
        try AssetCollectionRow.fetch(id: id, db)
    }

    func listRow(id: Int64) throws -> CollectionListRow? {
        try CollectionListRow.fetch(id: id, db)
    }

    func collectionRowIfAny(localIdentifier: String) throws -> AssetCollectionRow? {
        try db.fetchRepeatedRecord(
            AssetCollectionRow.self, sql: "SELECT * FROM asset_collection WHERE localIdentifier = ?",
            arguments: [localIdentifier])
    }

    func listRowIfAny(localIdentifier: String) throws -> CollectionListRow? {
        try db.fetchRepeatedRecord(
            CollectionListRow.self, sql: "SELECT * FROM collection_list WHERE localIdentifier = ?",
            arguments: [localIdentifier])
    }
}
