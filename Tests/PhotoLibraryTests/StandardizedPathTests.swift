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
        }
    }
}
