import Foundation
import SeededRandom
import Testing

@testable import PhotoLibrary

@Suite("Type guessed from a file name")
struct UniformTypeTests {
    @Test("The extension is NSString's pathExtension, lowercased, wherever it can match a known type")
    func extensions() {
        var random = SplitMix64(seed: 3)
        let alphabet = Array(".jJpPgGeEmMoOvV4 é.K\u{212A}İ")
        var names = ["a.jpg", ".jpg", "a.", "a..jpg", "a", "a.b.c", "a.JPG", ".a.jpg", "...jpg", "..", ".", "", "a. jpg", "x.JpEg", "x.MOV"]
        for _ in 0..<5000 { names.append(String((0..<random.int(in: 0...8)).map { _ in random.pick(alphabet) })) }
        for name in names {
            let expected = (name as NSString).pathExtension.lowercased()
            let guessed = UniformType.guess(forFileName: name)
            // (Not ASCII before lowercasing, an extension may be after: the Kelvin sign becomes "k". None of
            // the known extensions has a letter reached that way, so the guess is the same: checked below.)
            if (name as NSString).pathExtension.utf8.allSatisfy({ $0 < 0x80 }) {
                #expect(UniformType.pathExtension(of: name) == expected, "\(name)")
            }
            let byFoundation = UniformType.guess(forFileName: "x." + expected)
            #expect(guessed.identifier == (expected.isEmpty ? nil : byFoundation.identifier), "\(name)")
            #expect(guessed.mediaType == (expected.isEmpty ? .unknown : byFoundation.mediaType), "\(name)")
        }
    }
}
