import Foundation
import SeededRandom
import Testing

@testable import PhotoLibrary

@Suite("Standardized file paths")
struct StandardizedPathTests {
    @Test("The shortcut gives standardizedFileURL's path for any path: random ones of dots, slashes and names")
    func sameAsFoundation() {
        var random = SplitMix64(seed: 5)
        let pieces = ["/", "/", ".", "..", "a", "b c", "é", "x.jpg", "%20", "~", "...", ".hidden"]
        var paths = ["/", "/a", "/a/", "/a/.", "/a/..", "/a/./b", "/a/../b", "//a", "/a//b", "/.a", "/a./b", "/...", "a/b", "", "/a/b.jpg"]
        for _ in 0..<20_000 { paths.append((0..<random.int(in: 1...7)).map { _ in random.pick(pieces) }.joined()) }
        for path in paths {
            let url = URL(fileURLWithPath: path)
            #expect(url.standardizedFilePath == url.standardizedFileURL.path, "\(path)")
            // From the path itself, and its file name, as creationRequestForAsset(fromFileAtPath:) takes them.
            let standard = URL.standardizedFilePath(path)
            #expect(standard == url.standardizedFileURL.path, "\(path)")
            if standard != "/" {
                #expect(standard.fileName == url.standardizedFileURL.lastPathComponent, "\(path)")
            }
        }
    }

    /// A request from a path records what the same request from the path's file URL records.
    @Test func aRequestFromAPathIsTheRequestFromItsURL() throws {
        let test = try TestLibrary()
        let directory = test.directory.url.appending(path: "media/sub")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let file = directory.appending(path: "é x.jpg")
        try Data(repeating: 7, count: 64).write(to: file)
        let messy = test.directory.url.path + "/media/./other/../sub//é x.jpg"
        var identifiers: [String] = []
        try test.library.performChangesAndWait {
            for request in [
                AssetChangeRequest.creationRequestForAsset(fromFileAtPath: messy, options: AssetCreationOptions(storage: .referenced)),
                AssetChangeRequest.creationRequestForAsset(fromFileAt: URL(fileURLWithPath: messy), options: AssetCreationOptions(storage: .referenced)),
            ] {
                identifiers.append(request.placeholderForCreatedAsset!.localIdentifier)
            }
        }
        let assets = Array(try test.library.fetchAssets(withLocalIdentifiers: identifiers))
        #expect(assets.count == 2)
        for asset in assets {
            #expect(asset.originalFilename == "é x.jpg")
            #expect(asset.filePath == file.standardizedFileURL.path)
            #expect(asset.contentHash == assets[0].contentHash && asset.fileSize == 64)
        }
    }

    @Test func aReferencedFileMovedToAPathIsStoredAtItsStandardForm() throws {
        let test = try TestLibrary()
        let file = test.directory.file("in/a.jpg", seed: 5, size: 64)
        try test.library.performChangesAndWait {
            _ = AssetChangeRequest.creationRequestForAsset(fromFileAt: file, options: AssetCreationOptions(storage: .referenced))
        }
        let asset = try #require(try test.library.fetchAssets().firstObject)
        let moved = test.directory.url.appending(path: "out/é x.jpg")
        try FileManager.default.createDirectory(at: moved.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: file, to: moved)
        try test.library.performChangesAndWait {
            AssetChangeRequest(for: asset).setReferencedFilePath(test.directory.url.path + "/in/./../out//é x.jpg")
        }
        let after = try #require(try test.library.fetchAssets(withLocalIdentifiers: [asset.localIdentifier]).firstObject)
        #expect(after.filePath == moved.standardizedFileURL.path)
        #expect(after.originalFilename == "é x.jpg")
    }
}
