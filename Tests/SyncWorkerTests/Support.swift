import ContentHash
import Foundation
import PostgresTestSupport
import Testing

@_spi(Testing) import PhotoLibrary

@testable import SyncWorker

/// Media bytes for tests: real JPEG and PNG fixtures, made distinct by bytes appended after their end
/// (readers stop at the end marker; the content hash changes).
enum Media {
    static func fixture(_ name: String) -> [UInt8] {
        let url = Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures")!
        return [UInt8](try! Data(contentsOf: url))
    }

    static let camera = fixture("camera.jpg")
    static let png = fixture("plain.png")

    /// A distinct JPEG per `variant`.
    static func jpeg(_ variant: Int) -> [UInt8] { camera + Array("variant \(variant)".utf8) }
    static func pngImage(_ variant: Int) -> [UInt8] { png + Array("variant \(variant)".utf8) }

    static func hash(_ bytes: [UInt8]) -> String { ContentHash.of(bytes).description }
}

/// The storage a test's library runs on: SQLite with its fast paths (a library's default), SQLite through
/// the paths every engine takes (`PhotoLibrary.Options.sqliteFastPaths` off: the sync worker's generic reads
/// of its mirror state), and PostgreSQL (a new database of the test cluster; the cluster not starting fails
/// the test).
enum LibraryEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case sqlite
    case sqliteGeneric
    case postgres

    /// SQLite (fast paths) and PostgreSQL: suites whose SQL the model-based and mirror-state suites already
    /// run on SQLite's generic paths.
    static let both: [LibraryEngine] = [.sqlite, .postgres]

    var testDescription: String { rawValue }

    /// Library options taking this engine's paths.
    func options(_ base: PhotoLibrary.Options = PhotoLibrary.Options()) -> PhotoLibrary.Options {
        var options = base
        options.sqliteFastPaths = self != .sqliteGeneric
        return options
    }

    /// Opens a library on this engine, its directory at `directory` (on PostgreSQL, in `database`).
    func open(_ directory: URL, database: URL?, options: PhotoLibrary.Options = PhotoLibrary.Options()) throws -> PhotoLibrary {
        guard let database else { return try PhotoLibrary(url: directory, options: self.options(options)) }
        return try PhotoLibrary(postgres: database, directory: directory, options: self.options(options))
    }

    /// A new database of the test cluster for a library on PostgreSQL; nil for SQLite.
    func makeDatabase() throws -> URL? {
        self == .postgres ? try PostgresCluster.shared().makeDatabase(prefix: "sync") : nil
    }
}

/// A library and a folder to mirror, in a temporary directory removed at the end.
final class Sandbox: Sendable {
    let base: URL
    let root: URL
    let library: PhotoLibrary
    let engine: LibraryEngine
    /// The library's PostgreSQL database (nil on SQLite).
    let database: URL?

    /// - Parameters:
    ///   - engine: what the library runs on.
    ///   - rootName: the mirrored folder's name.
    ///   - libraryInside: whether the library is kept inside the folder it mirrors (`ROOT/Library.photosync`).
    init(
        engine: LibraryEngine = .sqlite, rootName: String = "Photos", libraryInside: Bool = false,
        options: PhotoLibrary.Options = PhotoLibrary.Options()
    ) throws {
        base = FileManager.default.temporaryDirectory.appending(path: "photosync-sync-\(UUID().uuidString)", directoryHint: .isDirectory)
        root = base.appending(path: rootName, directoryHint: .isDirectory)
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        self.engine = engine
        database = try engine.makeDatabase()
        library = try engine.open((libraryInside ? root : base).appending(path: "Library.photosync"), database: database, options: options)
    }

    /// Another handle on the same library, on the same engine (what another process opens).
    func openAnother(options: PhotoLibrary.Options = PhotoLibrary.Options()) throws -> PhotoLibrary {
        try engine.open(library.url, database: database, options: options)
    }

    deinit { try? FileManager.default.removeItem(at: base) }

    func path(_ relative: String) -> String { root.path + "/" + relative }

    func write(_ relative: String, _ bytes: [UInt8]) {
        let url = root.appending(path: relative)
        try! FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try! Data(bytes).write(to: url)
    }

    func append(_ relative: String, _ bytes: [UInt8]) {
        let handle = FileHandle(forWritingAtPath: path(relative))!
        handle.seekToEndOfFile()
        handle.write(Data(bytes))
        try! handle.close()
    }

    func move(_ from: String, _ to: String) {
        let target = root.appending(path: to)
        try! FileManager.default.createDirectory(at: target.deletingLastPathComponent(), withIntermediateDirectories: true)
        precondition(rename(path(from), path(to)) == 0, "rename \(from) → \(to): \(errno)")
    }

    func remove(_ relative: String) { try! FileManager.default.removeItem(atPath: path(relative)) }

    func mirror(_ configure: (inout FolderMirrorOptions) -> Void = { _ in }) throws -> FolderMirror {
        var options = FolderMirrorOptions()
        configure(&options)
        return try FolderMirror(library: library, root: root, options: options)
    }

    /// Every asset, hidden ones and all burst members included.
    func assets() throws -> [Asset] {
        Array(try library.fetchAssets(options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true)))
    }

    /// Assets by path relative to the root.
    func assetsByPath() throws -> [String: Asset] {
        var result: [String: Asset] = [:]
        for asset in try assets() {
            let path = try #require(asset.filePath)
            result[String(path.dropFirst(root.path.count + 1))] = asset
        }
        return result
    }

    /// The user album tree, as text lines: "folder a", "  album a: x.jpg y.jpg" (assets by file name in
    /// album order), depth-first in collection order.
    func albumTree() throws -> [String] {
        var lines: [String] = []
        func visit(_ collections: FetchResult<PhotoCollection>, indent: String) throws {
            for collection in collections {
                switch collection {
                case .assetCollection(let album):
                    let names = try library.fetchAssets(in: album, options: FetchOptions(includeHiddenAssets: true, includeAllBurstAssets: true))
                        .map(\.originalFilename)
                    lines.append("\(indent)album \(album.localizedTitle ?? "?"): \(names.joined(separator: " "))")
                case .collectionList(let folder):
                    lines.append("\(indent)folder \(folder.localizedTitle ?? "?")")
                    try visit(try library.fetchCollections(in: folder), indent: indent + "  ")
                }
            }
        }
        try visit(try library.fetchTopLevelUserCollections(), indent: "")
        return lines
    }

    /// Asserts that the library mirrors the folder: one asset per media file, at its path, with its hash.
    func expectMirrors(_ expected: [String: [UInt8]], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let byPath = try assetsByPath()
        #expect(Set(byPath.keys) == Set(expected.keys), sourceLocation: sourceLocation)
        for (path, bytes) in expected {
            #expect(byPath[path]?.contentHash == Media.hash(bytes), "\(path)", sourceLocation: sourceLocation)
        }
    }
}
