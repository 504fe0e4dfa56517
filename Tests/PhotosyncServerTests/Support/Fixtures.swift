import Foundation
import PhotoLibrary

/// Media files for the tests: valid JPEG skeletons whose content differs by a comment (the probe recognises
/// them by content: 64 × 48, no pixels needed).
enum Fixtures {
    static func jpeg(_ text: String) -> Data {
        let comment = Array(text.utf8.prefix(200))
        return Data(
            [0xFF, 0xD8, 0xFF, 0xFE, 0, UInt8(comment.count + 2)] + comment + [0xFF, 0xC0, 0, 11, 8, 0, 48, 0, 64, 1, 1, 0x11, 0]
                + [0xFF, 0xDA, 0, 8, 1, 1, 0, 0, 0x3F, 0, 0x12, 0x34, 0xFF, 0xD9])
    }

    /// A real photo of the repository's `Samples/` (decodable, unlike ``jpeg(_:)``'s skeletons).
    static func sample(_ path: String) throws -> Data {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        return try Data(contentsOf: repository.appending(path: "Samples").appending(path: path))
    }

    /// A folder of `count` JPEGs (`IMG_0000.jpg`…), in `directory`.
    static func folder(in directory: URL, count: Int, name: String = "Pictures") throws -> URL {
        let folder = directory.appending(path: name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 0..<count {
            try jpeg("\(name) photo \(index)").write(to: folder.appending(path: String(format: "IMG_%04d.jpg", index)))
        }
        return folder
    }

    /// Adds `count` copied assets to `library` (files written into `directory` first), one transaction.
    @discardableResult
    static func addAssets(_ count: Int, to library: PhotoLibrary, in directory: URL, author: String = "fixture",
                          tag: String = UUID().uuidString) async throws -> [String] {
        var urls: [URL] = []
        for index in 0..<count {
            let url = directory.appending(path: "fixture-\(tag)-\(index).jpg")
            try jpeg("\(tag) \(index)").write(to: url)
            urls.append(url)
        }
        let dates = (0..<count).map { Date(timeIntervalSince1970: 1_700_000_000 + Double($0 * 3600)) }
        let files = urls
        return try await library.performChanges(author: author) { () -> [String] in
            zip(files, dates).compactMap { url, date in
                let request = AssetChangeRequest.creationRequestForAsset(fromFileAt: url)
                request.creationDate = date
                request.mediaType = .image
                request.uniformTypeIdentifier = "public.jpeg"
                return request.placeholderForCreatedAsset?.localIdentifier
            }
        }
    }
}
