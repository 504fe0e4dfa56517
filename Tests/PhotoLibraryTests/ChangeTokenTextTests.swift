import Foundation
import SeededRandom
import Testing
@testable import PhotoLibrary

/// The string form of tokens, encoded and decoded without Foundation's string machinery, against Foundation's
/// base64 as the oracle.
@Suite struct ChangeTokenTextTests {
    /// Unpadded base64url through Foundation: what the string form always was.
    static func foundationEncoding(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The general decoder: trimmed, base64url or base64, padded or not.
    static func foundationDecoding(_ text: String) -> [UInt8]? {
        var base64 = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "-", with: "+")
            .replacingOccurrences(of: "_", with: "/")
        while base64.count % 4 != 0 { base64 += "=" }
        return Data(base64Encoded: base64).map { [UInt8]($0) }
    }

    @Test("Random bytes encode as Foundation encodes them, and decode back", arguments: [1, 2, 3] as [UInt64])
    func roundTrips(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        for _ in 0..<2000 {
            let bytes = (0..<random.int(in: 0...64)).map { _ in UInt8.random(in: 0...255, using: &random) }
            let text = TokenText.encode(bytes)
            #expect(text == Self.foundationEncoding(bytes))
            #expect(TokenText.decodeCanonical(text) == bytes)
        }
    }

    @Test("Any text the fast decoder accepts, Foundation's decodes to the same bytes", arguments: [4, 5] as [UInt64])
    func fastDecoderAgreesWithFoundation(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        let characters = Array("ABCXYZabcxyz0189-_+/= \n%é".utf8)
        var accepted = 0
        for _ in 0..<5000 {
            let text = String(decoding: (0..<random.int(in: 0...12)).map { _ in random.pick(characters) }, as: UTF8.self)
            guard let fast = TokenText.decodeCanonical(text) else { continue }
            accepted += 1
            #expect(Self.foundationDecoding(text) == fast, "\(text)")
        }
        #expect(accepted > 100)
    }

    @Test("Tokens read from their string form, and from forms the general decoder takes (padded, standard base64, spaces)")
    func tokensReadBack() throws {
        let token = ChangeToken(libraryIdentity: UUID(), sequence: 123_456_789, stamp: 987_654_321)
        #expect(try ChangeToken(string: token.stringValue) == token)
        let standard = token.data.base64EncodedString()
        #expect(try ChangeToken(string: standard) == token)
        #expect(try ChangeToken(string: "  \(token.stringValue)\n") == token)
        #expect(throws: PhotoLibraryError.self) { try ChangeToken(string: String(token.stringValue.dropLast())) }
    }
}
