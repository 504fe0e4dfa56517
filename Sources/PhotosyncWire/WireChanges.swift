public import PhotoLibrary
import SyncWorker

extension Wire {
    /// What changed since a token (`photosync changes --json`): the changes, oldest first, and the token to
    /// store for the next call.
    public struct ChangesPage: Sendable, Hashable, Codable {
        /// The token after the last change covered (changes skipped for their author included): store it.
        public var token: String
        /// Whether more changes follow (`--limit` cut the page short).
        public var hasMore: Bool
        public var changes: [Change]

        /// A value with these fields.
        public init(token: String, hasMore: Bool, changes: [Change]) {
            self.token = token
            self.hasMore = hasMore
            self.changes = changes
        }
    }

    /// One committed transaction (or, coalesced, the net change of many).
    public struct Change: Sendable, Hashable, Codable {
        /// The token just after this change: resume from here.
        public var token: String
        public var author: String
        public var date: Timestamp
        public var asset: ObjectChanges
        public var assetCollection: ObjectChanges
        public var collectionList: ObjectChanges

        /// A value with these fields.
        public init(token: String, author: String, date: Timestamp, asset: ObjectChanges, assetCollection: ObjectChanges, collectionList: ObjectChanges) {
            self.token = token
            self.author = author
            self.date = date
            self.asset = asset
            self.assetCollection = assetCollection
            self.collectionList = collectionList
        }

        /// The changes of one object type.
        public subscript(type: ObjectType) -> ObjectChanges {
            switch type {
            case .asset: asset
            case .assetCollection: assetCollection
            case .collectionList: collectionList
            }
        }
    }

    /// The objects of one type a change inserted, updated and deleted, each list sorted.
    public struct ObjectChanges: Sendable, Hashable, Codable {
        public var inserted: [String]
        public var updated: [String]
        public var deleted: [String]
        /// For each updated object, the properties that changed (names of ``AssetProperties`` for assets —
        /// `isFavorite`, `resource`, `content`, … — and of ``CollectionProperties`` for collections —
        /// `title`, `membership`, …).
        public var changedProperties: [String: [String]]
        /// Where inserted and updated objects are now, when known: a mirrored asset's path, a mirrored album's
        /// directory, relative to the mirrored folder.
        public var paths: [String: String]

        /// A value with these fields.
        public init(inserted: [String] = [], updated: [String] = [], deleted: [String] = [],
                    changedProperties: [String: [String]] = [:], paths: [String: String] = [:]) {
            self.inserted = inserted
            self.updated = updated
            self.deleted = deleted
            self.changedProperties = changedProperties
            self.paths = paths
        }

        public var isEmpty: Bool { inserted.isEmpty && updated.isEmpty && deleted.isEmpty }
    }
}

extension Wire.ChangesPage {
    /// The page of `result`, with the paths of its inserted and updated objects read from `library` now.
    ///
    /// - Throws: ``PhotoLibraryError`` when the library can't be read.
    /// - Complexity: O(*k*) in the object changes of the page, plus one fetch of the assets it names.
    public init(_ result: PersistentChangeFetchResult, library: PhotoLibrary) throws(PhotoLibraryError) {
        let timeZone = library.momentTimeZone
        var changes: [Wire.Change] = []
        // The throwing iterator: a batch that can't be read is an error, not a trap (a server must not die).
        var iterator = result.makeThrowingIterator()
        while let change = try iterator.next() {
            changes.append(Wire.Change(
                token: change.changeToken.stringValue, author: change.author, date: Wire.Timestamp(change.date, timeZone: timeZone),
                asset: Wire.ObjectChanges(try change.changeDetails(for: .asset)),
                assetCollection: Wire.ObjectChanges(try change.changeDetails(for: .assetCollection)),
                collectionList: Wire.ObjectChanges(try change.changeDetails(for: .collectionList))))
        }
        try Self.addPaths(to: &changes, library: library)
        self.init(token: result.endToken.stringValue, hasMore: result.hasMore, changes: changes)
    }

    /// Fills in `paths` of inserted and updated assets and albums that are mirrored.
    private static func addPaths(to changes: inout [Wire.Change], library: PhotoLibrary) throws(PhotoLibraryError) {
        let assetIdentifiers = Set(changes.flatMap { $0.asset.inserted + $0.asset.updated })
        let albumIdentifiers = Set(changes.flatMap { $0.assetCollection.inserted + $0.assetCollection.updated })
        guard !assetIdentifiers.isEmpty || !albumIdentifiers.isEmpty else { return }
        let mirrorPaths = try MirrorPaths(library: library, includeDirectories: !albumIdentifiers.isEmpty)
        var assetPaths: [String: String] = [:]
        if !assetIdentifiers.isEmpty, mirrorPaths.hasRoots {
            let assets = try library.fetchAssets(
                withLocalIdentifiers: Array(assetIdentifiers),
                options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
            for asset in assets {
                if let path = mirrorPaths.relativePath(of: asset) { assetPaths[asset.localIdentifier] = path }
            }
        }
        for index in changes.indices {
            for identifier in changes[index].asset.inserted + changes[index].asset.updated {
                if let path = assetPaths[identifier] { changes[index].asset.paths[identifier] = path }
            }
            for identifier in changes[index].assetCollection.inserted + changes[index].assetCollection.updated {
                if let path = mirrorPaths.directoryPath(ofAlbum: identifier) { changes[index].assetCollection.paths[identifier] = path }
            }
        }
    }
}

extension Wire.ObjectChanges {
    /// The wire form of one type's details: sorted identifiers, and the changed properties of updates.
    public init(_ details: PersistentObjectChangeDetails) {
        inserted = details.insertedLocalIdentifiers.sorted()
        updated = details.updatedLocalIdentifiers.sorted()
        deleted = details.deletedLocalIdentifiers.sorted()
        paths = [:]
        changedProperties = [:]
        for identifier in updated {
            if let properties = details.changedAssetProperties(for: identifier) {
                changedProperties[identifier] = properties.names
            } else if let properties = details.changedCollectionProperties(for: identifier) {
                changedProperties[identifier] = properties.names
            }
        }
    }
}

extension AssetProperties {
    /// Every property with its name, in a fixed order.
    public static let named: [(name: String, value: AssetProperties)] = [
        ("mediaType", .mediaType), ("mediaSubtypes", .mediaSubtypes), ("pixelSize", .pixelSize),
        ("creationDate", .creationDate), ("modificationDate", .modificationDate), ("location", .location),
        ("duration", .duration), ("isFavorite", .isFavorite), ("isHidden", .isHidden), ("burst", .burst),
        ("sourceType", .sourceType), ("hasAdjustments", .hasAdjustments), ("resource", .resource), ("content", .content),
    ]

    /// The names of the properties in this set, in ``named`` order.
    public var names: [String] { Self.named.filter { contains($0.value) }.map(\.name) }
}

extension CollectionProperties {
    /// Every property with its name, in a fixed order.
    public static let named: [(name: String, value: CollectionProperties)] = [
        ("title", .title), ("dates", .dates), ("count", .count), ("location", .location), ("membership", .membership),
    ]

    /// The names of the properties in this set, in ``named`` order.
    public var names: [String] { Self.named.filter { contains($0.value) }.map(\.name) }
}
