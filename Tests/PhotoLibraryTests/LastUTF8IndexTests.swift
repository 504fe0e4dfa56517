import Testing

@testable import PhotoLibrary

@Suite("Last UTF-8 byte of a string")
struct LastUTF8IndexTests {
    @Test("The same index as the generic search of the UTF-8 view, for random strings of ASCII and multi-byte characters")
    func sameAsTheGenericSearch() {
        var generator = SystemRandomNumberGenerator()
        let pieces = ["/", ".", "a", "Z", "é", "日本", "🏖", "\u{301}", "..", "//", ""]
        for _ in 0..<2_000 {
            let text = (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }.joined()
            for byte in [UInt8(ascii: "/"), UInt8(ascii: "."), 0xA9, UInt8(ascii: "x")] {
                let found = text.lastUTF8Index(of: byte)
                #expect(found == text.utf8.lastIndex(of: byte), "\(text.debugDescription) \(byte)")
                if let found { #expect(text.utf8[found] == byte) }
            }
        }
    }

    @Test("A substring's own indexes: the search runs over the string it is called on")
    func ofASubstringMadeString() {
        let path = "Holidays/Beach/IMG_0101.jpg"
        let name = String(path[path.lastUTF8Index(of: UInt8(ascii: "/")).map(path.utf8.index(after:))!...])
        #expect(name == "IMG_0101.jpg")
        #expect(name.lastUTF8Index(of: UInt8(ascii: ".")).map { String(name[$0...]) } == ".jpg")
        #expect("no-slash".lastUTF8Index(of: UInt8(ascii: "/")) == nil)
    }
}
