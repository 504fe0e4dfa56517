public import PhotoLibrary

/// A file's stat cache entry as ``MirrorChangeRequest/setFiles(_:)`` records it: its path, stamp and content
/// hash, and the asset it is mirrored as.
public struct MirroredFileRecord {
    /// The path, '/'-separated, relative to the root.
    public var relativePath: String
    public var stamp: FileStamp
    /// The content's XXH3-128, in hexadecimal.
    public var contentHash: String
    /// The asset, or the placeholder of one created in the same block; nil for none.
    public var asset: (any LibraryObject)?

    public init(relativePath: String, stamp: FileStamp, contentHash: String, asset: (any LibraryObject)?) {
        self.relativePath = relativePath
        self.stamp = stamp
        self.contentHash = contentHash
        self.asset = asset
    }
}
