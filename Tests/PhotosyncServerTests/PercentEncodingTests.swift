import Foundation
import SeededRandom
import Testing
@testable import PhotosyncServer

/// The path segments' percent-decoding, against Foundation's `removingPercentEncoding` as the oracle.
@Suite struct PercentEncodingTests {
    @Test("Random segments decode as Foundation decodes them (nil for a broken escape or bytes that aren't UTF-8)", arguments: [1, 2] as [UInt64])
    func agreesWithFoundation(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let pieces = ["a", "Z", "0", "/", "-", "%", "%2F", "%2f", "%41", "%zz", "%4", "%00", "%C3%A9", "%C3", "%FF", "%E6%97%A5", "é", "日", " ", "+"]
        for _ in 0..<5000 {
            let text = (0..<random.int(in: 0...8)).map { _ in random.pick(pieces) }.joined()
            #expect(PercentEncoding.decode(text) == text.removingPercentEncoding, "\(text)")
        }
    }
}
