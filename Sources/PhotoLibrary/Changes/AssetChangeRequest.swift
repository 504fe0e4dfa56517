public import Foundation
import GRDB

/// How ``AssetChangeRequest/creationRequestForAsset(fromFileAt:options:)`` takes in a file.
public struct AssetCreationOptions: Sendable {
    /// Copy the file into the library's content-addressed `originals/` store (the default), or reference it
    /// where it is.
    public var storage: AssetStorage
    /// The file's XXH3-128, when the caller has already computed it (referenced files only): the file is
    /// then not read again.
    public var contentHash: String?
    /// The file's size, with ``contentHash``.
    public var fileSize: Int64?

    /// Makes options. A `contentHash` and `fileSize` given with ``AssetStorage/copied`` are ignored: the copy
    /// is hashed as it is made.
    public init(storage: AssetStorage = .copied, contentHash: String? = nil, fileSize: Int64? = nil) {
        self.storage = storage
        self.contentHash = contentHash
        self.fileSize = fileSize
    }
}

/// Creates, edits and deletes assets inside ``PhotoLibrary/performChanges(author:_:)``.
///
/// As in PhotoKit, a request is made inside a change block and its edits are committed with the block, all
/// or nothing. Requests don't throw: the first problem (an unknown asset, an unreadable file, an invalid
/// value, a read of the library that fails) makes the whole block fail with that typed error, and nothing
/// of it is committed.
///
/// A request belongs to its block: make and use it only there, on the block's thread. Used anywhere else —
/// kept after the block, or from a task or thread the block started — it touches nothing: the block it is
/// used in fails with ``PhotoLibraryError/notInChangeBlock``, and where no block is left to fail the process
/// traps naming that error (PhotoKit raises an exception).
///
/// Beyond PhotoKit's editable properties (favorite, hidden, creation date, location), the metadata an
/// importer learns from a file can be set too, and ``replaceContent(withFileAt:options:)`` records an edit
/// of the asset's bytes.
public final class AssetChangeRequest {
    let session: ChangeSession?
    let rowID: Int64?

    /// The placeholder of the asset a creation request creates; nil for other requests.
    public let placeholderForCreatedAsset: ObjectPlaceholder?

    private init(session: ChangeSession?, rowID: Int64?, placeholder: ObjectPlaceholder?) {
        self.session = session
        self.rowID = rowID
        self.placeholderForCreatedAsset = placeholder
    }

    /// A request to edit an existing asset. An unknown asset fails the block.
    public convenience init(for asset: Asset) {
        let session = ChangeSession.admitted()
        var rowID: Int64?
        session?.perform { rowID = try session!.assetID(for: asset.localIdentifier) }
        self.init(session: session, rowID: rowID, placeholder: nil)
    }

    /// Creates an asset from a file: copied into the library (the default) or referenced in place.
    ///
    /// The media type and type identifier are inferred from the file name; set the metadata you know
    /// through the request's properties. Fails the block with ``PhotoLibraryError/fileUnreadable(path:reason:)``
    /// when the file can't be read.
    public static func creationRequestForAsset(
        fromFileAt fileURL: URL, options: AssetCreationOptions = AssetCreationOptions()
    ) -> AssetChangeRequest {
        creationRequest(standardPath: { fileURL.standardizedFilePath }, options: options)
    }

    /// Creates an asset from the file at a path: the same as ``creationRequestForAsset(fromFileAt:options:)``
    /// for the path's file URL (a relative path is taken from the current directory), without making one —
    /// what a client that walks a folder by paths saves on every file.
    public static func creationRequestForAsset(
        fromFileAtPath path: String, options: AssetCreationOptions = AssetCreationOptions()
    ) -> AssetChangeRequest {
        creationRequest(standardPath: { URL.standardizedFilePath(path) }, options: options)
    }

    private static func creationRequest(
        standardPath: () -> String, options: AssetCreationOptions
    ) -> AssetChangeRequest {
        guard let session = ChangeSession.admitted() else {
            return AssetChangeRequest(session: nil, rowID: nil, placeholder: nil)
        }
        var rowID: Int64?
        var placeholder: ObjectPlaceholder?
        session.perform {
            let path = standardPath()
            let (hash, size) = try content(ofFileAt: path, options, session)
            let name = path.fileName
            let type = UniformType.guess(forFileName: name)
            var row = AssetRow(
                id: 0, localIdentifier: LocalIdentifier.make(.asset), mediaType: type.mediaType.rawValue,
                creationDate: nil, modificationDate: session.now, originalFilename: name,
                uniformTypeIdentifier: type.identifier, fileSize: size ?? 0, contentHash: hash,
                storage: options.storage.rawValue, filePath: options.storage == .referenced ? path : nil,
                addedDate: session.now)
            try session.insertAsset(&row)
            rowID = row.id
            placeholder = ObjectPlaceholder(localIdentifier: row.localIdentifier)
        }
        return AssetChangeRequest(session: session, rowID: rowID, placeholder: placeholder)
    }

    /// The content hash and size of the file at `path` as `options` store it: copied into the originals store,
    /// or referenced in place with the hash and size `options` carry (the file hashed when they carry none).
    private static func content(
        ofFileAt path: String, _ options: AssetCreationOptions, _ session: ChangeSession
    ) throws -> (hash: String?, size: Int64?) {
        if options.storage == .copied {
            let imported = try session.library.originalsStore.importFile(atPath: path)
            return (imported.hash, imported.size)
        }
        if let hash = options.contentHash, let size = options.fileSize { return (hash, size) }
        let digest = try ContentHashing.hashFile(atPath: path)
        return (digest.hash, digest.size)
    }

    /// Deletes assets. Deleting removes them from every album; a copied original is removed from the store
    /// once no asset refers to its content.
    public static func deleteAssets(_ assets: some Sequence<Asset>) {
        deleteAssets(withLocalIdentifiers: assets.map(\.localIdentifier))
    }

    /// Deletes the assets with these identifiers. An unknown identifier fails the block.
    public static func deleteAssets(withLocalIdentifiers identifiers: some Sequence<String>) {
        guard let session = ChangeSession.admitted() else { return }
        for identifier in identifiers {
            session.perform { try session.deleteAsset(try session.assetID(for: identifier)) }
        }
    }

    /// A request made outside any change block has no block to fail: the process traps, naming
    /// ``PhotoLibraryError/notInChangeBlock`` (PhotoKit raises an exception here).
    static func outsideBlock() {
        ChangeSession.trapOutsideBlock()
    }

    // MARK: Editing

    func edit(_ change: (inout AssetRow) -> Void) {
        guard let session, let rowID else { return }
        session.perform { try session.editAsset(rowID, change) }
    }

    /// A property's value as the block has it so far. A read that fails fails the block (the getter then
    /// returns `fallback`).
    private func current<T>(_ value: (AssetRow) -> T, default fallback: T) -> T {
        guard let session, let rowID else { return fallback }
        return session.read({ try session.currentAssetRow(rowID).map(value) }, default: fallback)
    }

    /// Whether the asset is a favorite.
    public var isFavorite: Bool {
        get { current({ $0.isFavorite }, default: false) }
        set { edit { $0.isFavorite = newValue } }
    }

    /// Whether the asset is hidden from fetches that don't ask for hidden assets.
    public var isHidden: Bool {
        get { current({ $0.isHidden }, default: false) }
        set { edit { $0.isHidden = newValue } }
    }

    /// When the photo or video was taken. A date that is not finite fails the block with
    /// ``PhotoLibraryError/invalidValue(property:reason:)``.
    public var creationDate: Date? {
        get { current({ $0.creationDate.map(Date.init(timeIntervalSince1970:)) }, default: nil) }
        set { edit { $0.creationDate = newValue?.timeIntervalSince1970 } }
    }

    /// The capture's UTC offset in seconds, when known (it decides the asset's moment).
    public var creationTimeZoneOffset: Int? {
        get { current({ $0.creationTimeZoneOffset }, default: nil) }
        set { edit { $0.creationTimeZoneOffset = newValue } }
    }

    /// When the content was last modified. A creation request starts it at the block's time.
    public var modificationDate: Date? {
        get { current({ $0.modificationDate.map(Date.init(timeIntervalSince1970:)) }, default: nil) }
        set { edit { $0.modificationDate = newValue?.timeIntervalSince1970 } }
    }

    /// The asset's position. A location off the globe fails the block with
    /// ``PhotoLibraryError/invalidValue(property:reason:)``.
    public var location: Location? {
        get { current({ $0.location }, default: nil) }
        set { edit { $0.location = newValue } }
    }

    /// Image, video or audio. A creation request starts it from the file name's extension.
    public var mediaType: AssetMediaType {
        get { current({ AssetMediaType(rawValue: $0.mediaType) ?? .unknown }, default: .unknown) }
        set { edit { $0.mediaType = newValue.rawValue } }
    }

    /// The asset's variants (panorama, HDR, screenshot, Live Photo…).
    public var mediaSubtypes: AssetMediaSubtypes {
        get { current({ AssetMediaSubtypes(rawValue: $0.mediaSubtypes) }, default: []) }
        set { edit { $0.mediaSubtypes = newValue.rawValue } }
    }

    /// Width in pixels, as displayed. A negative size fails the block with
    /// ``PhotoLibraryError/invalidValue(property:reason:)``.
    public var pixelWidth: Int {
        get { current({ $0.pixelWidth }, default: 0) }
        set { edit { $0.pixelWidth = newValue } }
    }

    /// Height in pixels, as displayed. A negative size fails the block with
    /// ``PhotoLibraryError/invalidValue(property:reason:)``.
    public var pixelHeight: Int {
        get { current({ $0.pixelHeight }, default: 0) }
        set { edit { $0.pixelHeight = newValue } }
    }

    /// Seconds.
    public var duration: Double {
        get { current({ $0.duration }, default: 0) }
        set { edit { $0.duration = newValue } }
    }

    /// The burst the asset belongs to; nil takes it out of its burst. The library keeps one representative per
    /// burst when the block commits.
    public var burstIdentifier: String? {
        get { current({ $0.burstIdentifier }, default: nil) }
        set { edit { $0.burstIdentifier = newValue } }
    }

    /// How the asset was picked within its burst; picks decide the burst's representative.
    public var burstSelectionTypes: AssetBurstSelectionType {
        get { current({ AssetBurstSelectionType(rawValue: $0.burstSelectionTypes) }, default: []) }
        set { edit { $0.burstSelectionTypes = newValue.rawValue } }
    }

    /// Where the asset comes from.
    public var sourceType: AssetSourceType {
        get { current({ AssetSourceType(rawValue: $0.sourceType) }, default: .typeUserLibrary) }
        set { edit { $0.sourceType = newValue.rawValue } }
    }

    /// Whether the asset is marked as edited.
    public var hasAdjustments: Bool {
        get { current({ $0.hasAdjustments }, default: false) }
        set { edit { $0.hasAdjustments = newValue } }
    }

    /// The name of the file the asset was made from. A creation request starts it from the file's URL.
    public var originalFilename: String {
        get { current({ $0.originalFilename }, default: "") }
        set { edit { $0.originalFilename = newValue } }
    }

    /// The file's type identifier. A creation request starts it from the file name's extension.
    public var uniformTypeIdentifier: String? {
        get { current({ $0.uniformTypeIdentifier }, default: nil) }
        set { edit { $0.uniformTypeIdentifier = newValue } }
    }

    /// Moves a referenced asset's file reference to a new path, keeping its identity (a rename or move on
    /// disk). The file name follows the path.
    ///
    /// The path is stored in its standard form, as the creation requests store theirs (a relative path is
    /// taken from the current directory; `.`, `..` and repeated slashes are resolved), so that a lookup by
    /// path finds the asset whichever spelling named it.
    public func setReferencedFilePath(_ path: String) {
        let standard = URL.standardizedFilePath(path)
        edit {
            $0.filePath = standard
            $0.originalFilename = standard.fileName
        }
    }

    /// Replaces the asset's bytes (an edit of the file): observers see `assetContentChanged`.
    ///
    /// With ``AssetStorage/copied`` the new file is copied into the store; with ``AssetStorage/referenced``
    /// the asset refers to `fileURL` and `options.contentHash`/`fileSize` may carry a hash already computed.
    public func replaceContent(withFileAt fileURL: URL, options: AssetCreationOptions = AssetCreationOptions()) {
        guard let session, let rowID else { return }
        session.perform {
            let path = fileURL.standardizedFilePath
            let (hash, size) = try Self.content(ofFileAt: path, options, session)
            try session.editAsset(rowID) { row in
                if row.storage == AssetStorage.copied.rawValue, let old = row.contentHash, old != hash {
                    session.releasedOriginals.insert(old)
                }
                row.contentHash = hash
                row.fileSize = size ?? 0
                row.storage = options.storage.rawValue
                row.filePath = options.storage == .referenced ? path : nil
                row.modificationDate = session.now
            }
        }
    }
}
