public import Foundation
import PhotoLibrary

/// A folder a sync worker mirrors into the library, as the library records it.
///
/// Mirror state is bookkeeping: it is written in the same transaction as the asset changes it describes,
/// and never appears in the change history (observers and change tokens don't see it).
public struct MirrorRoot: Sendable, Hashable {
    /// The root's absolute, standardized path: its identity.
    public let path: String
    /// The device (`st_dev`) the root was on when it was last scanned; nil before the first scan.
    public let device: UInt64?
    /// When the last complete full scan started; nil before the first one.
    public let lastScanStart: Date?
    /// When the last complete full scan ended; nil before the first one.
    public let lastScanEnd: Date?
    /// The last scan's summary, as the sync worker encoded it (JSON).
    public let lastScanSummary: String?
    /// The last sync cookie the watcher of this root processed (see the sync worker's barrier).
    public let lastSyncCookie: String?

    /// The internal row id.
    let rowID: Int64
}

/// What `stat` said about a mirrored file when it was last hashed: the stat cache's key.
public struct FileStamp: Sendable, Hashable, Codable {
    /// The device holding the file (`st_dev`).
    public var device: UInt64
    /// The file's inode number (`st_ino`).
    public var inode: UInt64
    /// The size in bytes (`st_size`).
    public var size: Int64
    /// Modification time, nanoseconds since 1970.
    public var mtimeNs: Int64
    /// Status change time, nanoseconds since 1970.
    public var ctimeNs: Int64

    /// Makes a stamp from `stat` fields (times in nanoseconds since 1970).
    public init(device: UInt64, inode: UInt64, size: Int64, mtimeNs: Int64, ctimeNs: Int64) {
        self.device = device
        self.inode = inode
        self.size = size
        self.mtimeNs = mtimeNs
        self.ctimeNs = ctimeNs
    }

    /// Whether two stamps describe the same file with the same content, wherever it is now: same device,
    /// inode, size and modification time. (A rename changes the ctime, not these.)
    public func isSameFileUnchanged(as other: FileStamp) -> Bool {
        device == other.device && inode == other.inode && size == other.size && mtimeNs == other.mtimeNs
    }
}

/// One mirrored file: its path in the root, its stat cache entry and the asset it became.
public struct MirroredFile: Sendable, Hashable {
    /// `/`-separated path relative to the root.
    public var relativePath: String
    /// The file's stat when it was last hashed or moved.
    public var stamp: FileStamp
    /// XXH3-128 of the content, 32 lowercase hexadecimal digits.
    public var contentHash: String
    /// The asset's local identifier; nil when the asset was deleted from the library by someone else.
    public var assetIdentifier: String?

    /// Makes a record (the sync worker writes them with ``MirrorChangeRequest/setFile(_:stamp:contentHash:asset:)``).
    public init(relativePath: String, stamp: FileStamp, contentHash: String, assetIdentifier: String?) {
        self.relativePath = relativePath
        self.stamp = stamp
        self.contentHash = contentHash
        self.assetIdentifier = assetIdentifier
    }
}

/// One mirrored file as ``PhotoLibrary/forEachMirroredFile(root:_:)`` hands it over: a view of the
/// database's current row, its content hash and asset identifier as UTF-8 bytes rather than strings.
///
/// The byte buffers point into the database's row (SQLite) or a copy of it (other engines) and are valid
/// only during the call that receives the row: copy what you keep (``contentHash``, ``assetIdentifier`` and
/// ``file`` make strings).
public struct MirroredFileRow: ~Copyable {
    /// `/`-separated path relative to the root.
    public let relativePath: String
    /// The file's stat when it was last mirrored (device, inode, size, mtime and ctime).
    public let stamp: FileStamp
    /// The content hash's UTF-8 bytes (32 lowercase hexadecimal digits when the sync worker wrote it).
    public let contentHashUTF8: UnsafeBufferPointer<UInt8>
    /// The asset's local identifier's UTF-8 bytes; nil when the asset was deleted from the library.
    public let assetIdentifierUTF8: UnsafeBufferPointer<UInt8>?
    /// Whether the record's asset references the record's own file (its ``Asset/filePath`` is the root's path
    /// joined with ``relativePath``): false when the record names no asset, or an asset of another file — a
    /// disagreement a sync worker repairs (see ``MirrorConsistency``).
    public let assetReferencesFile: Bool

    /// Makes a row (for tests and adapters); the buffers must outlive its use.
    public init(
        relativePath: String, stamp: FileStamp, contentHashUTF8: UnsafeBufferPointer<UInt8>,
        assetIdentifierUTF8: UnsafeBufferPointer<UInt8>?, assetReferencesFile: Bool = true
    ) {
        self.relativePath = relativePath
        self.stamp = stamp
        self.contentHashUTF8 = contentHashUTF8
        self.assetIdentifierUTF8 = assetIdentifierUTF8
        self.assetReferencesFile = assetReferencesFile && assetIdentifierUTF8 != nil
    }

    /// The content hash as a string (a copy).
    public var contentHash: String { String(decoding: contentHashUTF8, as: UTF8.self) }
    /// The asset's local identifier as a string (a copy); nil when the asset was deleted.
    public var assetIdentifier: String? { assetIdentifierUTF8.map { String(decoding: $0, as: UTF8.self) } }
    /// The whole record, as ``PhotoLibrary/fetchMirrorState(root:)`` returns it (a copy).
    public var file: MirroredFile {
        MirroredFile(relativePath: relativePath, stamp: stamp, contentHash: contentHash, assetIdentifier: assetIdentifier)
    }
}

/// One mirrored directory: the album and/or folder it became.
public struct MirroredDirectory: Sendable, Hashable {
    /// `/`-separated path relative to the root; empty for the root itself.
    public var relativePath: String
    /// The directory's device (a renamed directory keeps it and its inode).
    public var device: UInt64?
    /// The directory's inode.
    public var inode: UInt64?
    /// The album holding the directory's own media, if it has any.
    public var albumIdentifier: String?
    /// The folder mirroring the directory's subdirectories, if it has media below it.
    public var folderIdentifier: String?

    /// Makes a directory record.
    public init(
        relativePath: String, device: UInt64? = nil, inode: UInt64? = nil, albumIdentifier: String? = nil,
        folderIdentifier: String? = nil
    ) {
        self.relativePath = relativePath
        self.device = device
        self.inode = inode
        self.albumIdentifier = albumIdentifier
        self.folderIdentifier = folderIdentifier
    }
}

/// Everything the library records about one root: its files and directories.
public struct MirrorState: Sendable {
    /// The root, as recorded when the state was read.
    public let root: MirrorRoot
    /// Every mirrored file, by path order.
    public let files: [MirroredFile]
    /// Every mirrored directory, by path order.
    public let directories: [MirroredDirectory]
}
