/// How a fetch filters and orders its objects (PhotoKit's `PHFetchOptions`).
public struct FetchOptions: Sendable {
    /// Which objects to keep. See ``Asset`` keys in the README; nil keeps all.
    public var predicate: FetchFilter?
    /// The order: several keys, each ascending or descending. Ties are broken by a stable internal order
    /// (the order objects were added), so every result is deterministic. Empty: the fetch's natural order.
    public var sortDescriptors: [FetchSort]
    /// At most this many objects; nil or 0 for all.
    public var fetchLimit: Int?
    /// Include hidden assets. Default false (the Hidden smart album always shows them).
    public var includeHiddenAssets: Bool
    /// Include every asset of each burst. Default false: only each burst's representative.
    public var includeAllBurstAssets: Bool

    /// Makes options; the defaults fetch everything in the natural order, without hidden assets and with
    /// only each burst's representative.
    public init(
        predicate: FetchFilter? = nil, sortDescriptors: [FetchSort] = [], fetchLimit: Int? = nil,
        includeHiddenAssets: Bool = false, includeAllBurstAssets: Bool = false
    ) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.includeHiddenAssets = includeHiddenAssets
        self.includeAllBurstAssets = includeAllBurstAssets
    }
}
