import Hummingbird
import PhotoLibrary
import PhotosyncWire

/// The query of `GET /v1/assets` and `GET /v1/albums/{id}/assets`: `where`, `sort`, `limit`, `cursor`,
/// `includeHidden`, `includeAllBursts`; answered as a keyset-paginated ``Wire/AssetPage``.
struct AssetQuery {
    static let parameters: Set<String> = ["where", "sort", "limit", "cursor", "includeHidden", "includeAllBursts"]
    static let defaultLimit = 100
    static let maximumLimit = 1000

    let options: FetchOptions
    let cursor: FetchCursor?
    let limit: Int

    /// Reads the query of `request`.
    ///
    /// - Throws: ``APIError``: 400 for an unknown parameter, a bad sort key, limit or cursor.
    init(_ request: Request) throws(APIError) {
        let query = try QueryParameters(request, allowed: Self.parameters)
        var options = FetchOptions(
            includeHiddenAssets: try query.flag("includeHidden") ?? false, includeAllBurstAssets: try query.flag("includeAllBursts") ?? false)
        if let predicate = try query.string("where"), !predicate.trimmingCharacters(in: .whitespaces).isEmpty {
            options.predicate = FetchFilter(format: predicate)
        }
        if let sort = try query.string("sort") {
            do { options.sortDescriptors = try FetchSort.parseList(sort) } catch { throw APIError(error) }
        }
        self.options = options
        limit = try query.int("limit", in: 1...Self.maximumLimit) ?? Self.defaultLimit
        if let text = try query.string("cursor") {
            do { cursor = try FetchCursor(string: text) } catch { throw APIError(error) }
        } else {
            cursor = nil
        }
    }

    /// The page of `collection`'s assets (nil: every asset).
    func page(in collection: AssetCollection?, reads: LibraryReads) throws(APIError) -> Wire.AssetPage {
        let page: FetchPage<Asset>
        do {
            if let collection {
                page = try reads.library.fetchAssets(in: collection, options: options, after: cursor, limit: limit)
            } else {
                page = try reads.library.fetchAssets(options: options, after: cursor, limit: limit)
            }
        } catch {
            throw APIError(error)
        }
        let paths = try reads.mirrorPaths()
        return Wire.AssetPage(
            assets: page.objects.map { reads.wire($0, paths: paths) }, cursor: page.nextCursor?.stringValue,
            token: page.changeToken.stringValue)
    }
}
