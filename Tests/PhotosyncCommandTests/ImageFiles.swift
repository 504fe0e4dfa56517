import Foundation
import Testing

/// Image files for the `thumbnail`, `thumbnails` and daemon pre-render tests, and independent oracles:
/// `vipsheader` (libvips-tools) for sizes, magic bytes for formats.
enum ImageFiles {
    /// A fixture of the imaging tests (`Tests/PhotoImagingTests/Fixtures`).
    static func fixture(_ name: String) -> URL {
        Photosync.repository.appending(path: "Tests/PhotoImagingTests/Fixtures").appending(path: name)
    }

    /// A folder holding copies of fixtures, under their own names.
    static func folder(_ names: [String]) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "photosync-images-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in names { try FileManager.default.copyItem(at: fixture(name), to: folder.appending(path: name)) }
        return folder
    }

    /// `count` distinct 3000×2000 JPEGs (one generated image, each copy with its own trailing bytes, which
    /// decoders ignore): enough work for a pre-render to be caught running.
    static func manyLargeImages(_ count: Int, in folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let scratch = FileManager.default.temporaryDirectory.appending(path: "photosync-large-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let noise = scratch.appending(path: "noise.v").path, jpeg = scratch.appending(path: "large.jpg").path
        try tool("vips", ["perlin", noise, "3000", "2000", "--uchar", "--cell-size", "64"])
        try tool("vips", ["bandjoin", "\(noise) \(noise) \(noise)", jpeg + "[Q=85]"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: jpeg))
        for index in 0..<count {
            try (bytes + Data("photosync \(index)".utf8)).write(to: folder.appending(path: String(format: "IMG_%03d.jpg", index)))
        }
    }

    /// The size of an image file, as `vipsheader` reads it (orientation not applied: our results carry none).
    static func size(of file: URL) throws -> (width: Int, height: Int) {
        let width = try tool("vipsheader", ["-f", "width", file.path]).trimmed
        let height = try tool("vipsheader", ["-f", "height", file.path]).trimmed
        return (try #require(Int(width)), try #require(Int(height)))
    }

    /// The format named by the first bytes: `jpeg`, `png`, `webp`, `avif`, or nil.
    static func format(of data: Data) -> String? {
        let bytes = Array(data.prefix(12))
        guard bytes.count == 12 else { return nil }
        if bytes[0..<3] == [0xFF, 0xD8, 0xFF] { return "jpeg" }
        if bytes[0..<8] == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] { return "png" }
        if bytes[0..<4].elementsEqual("RIFF".utf8) && bytes[8..<12].elementsEqual("WEBP".utf8) { return "webp" }
        if bytes[4..<8].elementsEqual("ftyp".utf8) && bytes[8..<12].elementsEqual("avif".utf8) { return "avif" }
        return nil
    }

    /// Every rendition file of a library, and whether each is whole: its header names a payload of the
    /// format its key says, as long as the rest of the file.
    static func renditions(of library: URL) -> [(path: String, whole: Bool)] {
        let root = library.appending(path: "renditions")
        let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)
        return (walker?.allObjects as? [URL] ?? []).filter { $0.pathExtension == "rnd" }.map { url in
            (url.path, isWhole(url))
        }
    }

    /// Temporary files of renders under way (`renditions/.incoming`).
    static func incoming(of library: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: library.appending(path: "renditions/.incoming").path)) ?? []
    }

    /// A rendition file: `PSR1`, width, height, key length, key, then a JPEG from its SOI to its EOI.
    private static func isWhole(_ url: URL) -> Bool {
        guard let data = try? Data(contentsOf: url), data.count > 14, data.prefix(4).elementsEqual("PSR1".utf8) else { return false }
        let keyLength = Int(data[12]) | Int(data[13]) << 8
        let payload = data.dropFirst(14 + keyLength)
        guard payload.count > 4 else { return false }
        return Array(payload.prefix(2)) == [0xFF, 0xD8] && Array(payload.suffix(2)) == [0xFF, 0xD9]
    }

    /// Whether process `pid` runs: it exists and is no zombie (an orphan's exit may wait for a reaper).
    static func isRunning(_ pid: pid_t) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let end = stat.lastIndex(of: ")")
        else { return false }
        // `pid (comm) S …`: the state follows the command name, which may itself hold spaces and parentheses.
        let state = stat[stat.index(after: end)...].trimmingCharacters(in: .whitespaces).prefix(1)
        return state != "Z" && state != "X"
    }

    @discardableResult
    static func tool(_ name: String, _ arguments: [String]) throws -> Photosync.Result {
        let result = try Photosync.runTool(URL(fileURLWithPath: "/usr/bin/\(name)"), arguments)
        try #require(result.status == 0, "\(name) \(arguments.joined(separator: " ")): \(result.stderr)")
        return result
    }
}
