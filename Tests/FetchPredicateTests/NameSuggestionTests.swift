import Testing
@testable import FetchPredicate

/// The "did you mean" of unknown keys: case first, then the nearest name within two edits.
@Suite struct NameSuggestionTests {
    static let keys = ["creationDate", "pixelWidth", "pixelHeight", "originalFilename", "isFavorite", "path"]

    @Test(arguments: [
        ("creationdate", "creationDate"), ("creationDat", "creationDate"), ("pixelWidht", "pixelWidth"),
        ("orignalFilename", "originalFilename"), ("isFavourite", "isFavorite"), ("pth", "path"),
    ])
    func aNearMissIsSuggested(_ typed: String, _ expected: String) {
        #expect(NameSuggestion.closest(to: typed, among: Self.keys) == expected)
    }

    @Test(arguments: ["colour", "x", "width", "favourites and more"])
    func nothingFarIsSuggested(_ typed: String) {
        #expect(NameSuggestion.closest(to: typed, among: Self.keys) == nil)
    }

    @Test func editDistanceCountsSwapsAsOne() {
        #expect(NameSuggestion.editDistance(Array("abcd"), Array("abdc")) == 1)
        #expect(NameSuggestion.editDistance(Array("kitten"), Array("sitting")) == 3)
        #expect(NameSuggestion.editDistance(Array(""), Array("abc")) == 3)
    }
}
