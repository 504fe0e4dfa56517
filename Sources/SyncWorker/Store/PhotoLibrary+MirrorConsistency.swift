import Foundation
import GRDB
import LibraryStorage
public import PhotoLibrary

/// How a root's mirror records and the library's assets agree, in figures read from one snapshot
/// (``PhotoLibrary/mirrorConsistency(rootPath:)``).
///
/// The assets *of* a root are those referencing a file under it (``Asset/filePath``), except under another
/// recorded root nested inside it (those are the inner root's). The two agree exactly when every record
/// names an asset that references the record's own file, and no other asset of the root exists: then
/// ``files``, ``filesWithTheirAsset`` and ``referencingAssets`` are equal (two records never name one asset
/// then, as an asset references one file).
public struct MirrorConsistency: Sendable, Hashable {
    /// The root's file records.
    public let files: Int
    /// The records naming an asset that references the record's own file.
    public let filesWithTheirAsset: Int
    /// The assets of the root.
    public let referencingAssets: Int

    /// Whether the records and the assets agree exactly.
    public var isConsistent: Bool { files == filesWithTheirAsset && filesWithTheirAsset == referencingAssets }

    /// Makes the figures (a sync worker counting the records as it reads them:
    /// ``MirroredFileRow/assetReferencesFile``, ``PhotoLibrary/countFileReferences(rootPath:)``).
    public init(files: Int, filesWithTheirAsset: Int, referencingAssets: Int) {
        self.files = files
        self.filesWithTheirAsset = filesWithTheirAsset
        self.referencingAssets = referencingAssets
    }
}

/// An asset referencing a file under a mirrored root, as ``PhotoLibrary/fetchFileReferences(rootPath:)``
/// lists them.
public struct FileReference: Sendable, Hashable {
    /// The asset's local identifier.
    public let localIdentifier: String
    /// The file's path relative to the root.
    public let relativePath: String
    /// The asset's content hash (32 hexadecimal digits), nil when it has none.
    public let contentHash: String?
}

extension PhotoLibrary {
    /// Compares a root's mirror records with the assets of the root (see ``MirrorConsistency``), in one
    /// snapshot. A root not recorded has no records: any asset of it is a disagreement.
    ///
    /// - Parameter rootPath: the root's absolute path (standardized here).
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    /// - Complexity: two aggregate queries: one pass over the root's records (one index lookup of its asset
    ///   each) and a count over the index of referenced paths; nothing is materialised.
    public func mirrorConsistency(rootPath: String) throws(PhotoLibraryError) -> MirrorConsistency {
        let root = URL(fileURLWithPath: rootPath).standardizedFileURL.path
        return try readMirror { db in
            let rootID = try db.fetchValue(Int64.self, sql: "SELECT id FROM mirror_root WHERE path = ?", arguments: [root])
            var files = 0
            var matching = 0
            if let rootID {
                // One pass over the root's records: each, and each whose asset references the record's file.
                try db.forEachRow(
                    sql: """
                        SELECT count(*), count(a.id) FROM mirror_file f
                        LEFT JOIN asset a ON a.id = f.assetId AND a.filePath = ? || f.relativePath
                        WHERE f.rootId = ?
                        """,
                    arguments: [Self.referencePrefix(root), rootID], cached: false
                ) { columns in
                    files = Int(columns.int64(0))
                    matching = Int(columns.int64(1))
                    return false
                }
            }
            return MirrorConsistency(files: files, filesWithTheirAsset: matching, referencingAssets: try Self.countAssets(db, of: root))
        }
    }

    /// How many assets the root has (see ``MirrorConsistency``): assets referencing a file under it, outside
    /// the recorded roots nested in it.
    ///
    /// - Parameter rootPath: the root's absolute path (standardized here).
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    /// - Complexity: a count over the index of referenced paths (per nested root, another).
    public func countFileReferences(rootPath: String) throws(PhotoLibraryError) -> Int {
        let root = URL(fileURLWithPath: rootPath).standardizedFileURL.path
        return try readMirror { db in try Self.countAssets(db, of: root) }
    }

    private static func countAssets(_ db: any SQLConnection, of root: String) throws -> Int {
        var assets = try countReferences(db, under: root)
        for nested in try nestedRoots(db, in: root) { assets -= try countReferences(db, under: nested) }
        return assets
    }

    /// The assets of a root (see ``MirrorConsistency``): every asset referencing a file under it, outside
    /// the recorded roots nested in it, by path, and for each path oldest first (in the order the assets were
    /// created).
    ///
    /// - Parameter rootPath: the root's absolute path (standardized here).
    /// - Throws: ``PhotoLibraryError`` when the database can't be read.
    /// - Complexity: O(*n* log *n*) in the assets of the root, read through the index of referenced paths.
    public func fetchFileReferences(rootPath: String) throws(PhotoLibraryError) -> [FileReference] {
        let root = URL(fileURLWithPath: rootPath).standardizedFileURL.path
        let prefix = Self.referencePrefix(root)
        return try readMirror { db in
            let nested = try Self.nestedRoots(db, in: root).map(Self.referencePrefix)
            var references: [FileReference] = []
            try db.forEachRow(
                sql: """
                    SELECT localIdentifier, filePath, contentHash FROM asset
                    WHERE filePath >= ? AND filePath < ? ORDER BY filePath, id
                    """,
                arguments: [prefix, Self.referencePrefixEnd(root)], cached: false
            ) { columns in
                let path = columns.text(1)
                if !nested.contains(where: { path.hasPrefix($0) }) {
                    references.append(FileReference(
                        localIdentifier: columns.text(0), relativePath: String(path.dropFirst(prefix.count)),
                        contentHash: columns.optionalText(2)))
                }
                return true
            }
            return references
        }
    }

    /// What the file paths under `root` start with.
    private static func referencePrefix(_ root: String) -> String { root.hasSuffix("/") ? root : root + "/" }

    /// The smallest string after every path starting with ``referencePrefix(_:)`` ('0' follows '/').
    private static func referencePrefixEnd(_ root: String) -> String { String(referencePrefix(root).dropLast()) + "0" }

    private static func countReferences(_ db: any SQLConnection, under root: String) throws -> Int {
        try db.fetchValue(
            Int.self, sql: "SELECT count(*) FROM asset WHERE filePath >= ? AND filePath < ?",
            arguments: [referencePrefix(root), referencePrefixEnd(root)]) ?? 0
    }

    /// The recorded roots inside `root`, outermost only.
    private static func nestedRoots(_ db: any SQLConnection, in root: String) throws -> [String] {
        let inside = try db.fetchValues(
            String.self, sql: "SELECT path FROM mirror_root WHERE path > ? AND path < ? ORDER BY path",
            arguments: [referencePrefix(root), referencePrefixEnd(root)])
        var outermost: [String] = []
        for path in inside where !outermost.contains(where: { path.hasPrefix(referencePrefix($0)) }) { outermost.append(path) }
        return outermost
    }
}
