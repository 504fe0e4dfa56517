import Foundation
import Testing

@testable import FetchPredicate

@Suite("The typed API builds the same predicates as the text format")
struct TypedAPITests {
    typealias Asset = AssetExample.Asset

    @Test("operators build the same predicates as the text format")
    func operatorsMatchText() throws {
        func same(_ typed: Predicate, _ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            let parsed = try Predicate.parse(text, schema: AssetExample.schema, timeZone: TimeZone(secondsFromGMT: 0)!)
            #expect(typed == parsed, sourceLocation: sourceLocation)
        }
        let jan1 = FetchPredicateTests.utc(2024, 1, 1)
        try same(Asset.mediaType == .image && Asset.isFavorite, "mediaType == image AND isFavorite")
        try same(
            Asset.mediaType == .image && Asset.creationDate >= jan1 && !Asset.isHidden,
            "mediaType == image AND creationDate >= \"2024-01-01\" AND NOT isHidden")
        try same(
            (Asset.isFavorite || Asset.isHidden) && Asset.duration > 3.5, "(isFavorite OR isHidden) && duration > 3.5")
        try same(
            Asset.isFavorite || Asset.isHidden || Asset.pixelWidth < 10, "isFavorite OR isHidden OR pixelWidth < 10")
        try same(Asset.originalFilename.contains("img", caseInsensitive: true), "originalFilename CONTAINS[c] 'img'")
        try same(
            Asset.originalFilename.beginsWith("É", caseInsensitive: true, diacriticInsensitive: true),
            "originalFilename BEGINSWITH[cd] 'É'")
        try same(Asset.originalFilename.endsWith(".jpg"), "originalFilename ENDSWITH '.jpg'")
        try same(Asset.originalFilename.like("IMG_*", diacriticInsensitive: true), "originalFilename LIKE[d] 'IMG_*'")
        try same(Asset.pixelWidth.between(100, 2000), "pixelWidth BETWEEN {100, 2000}")
        try same(Asset.mediaType.in([.image, .video]), "mediaType IN {image, video}")
        try same(Asset.burstIdentifier != nil, "burstIdentifier != nil")
        try same(Asset.burstIdentifier.isNotNil, "burstIdentifier != nil")
        try same(Asset.creationDate == nil, "creationDate == nil")
        try same(Asset.creationDate.isNil, "creationDate == nil")
        try same(Asset.burstIdentifier == "b1", "burstIdentifier == 'b1'")
        try same(Asset.burstIdentifier.contains("b"), "burstIdentifier CONTAINS 'b'")
        try same(Asset.mediaSubtypes.contains(.photoPanorama), "mediaSubtypes CONTAINS photoPanorama")
        try same(Asset.mediaSubtypes.contains([.photoPanorama, .photoHDR]), "mediaSubtypes CONTAINS 3")
        try same(Asset.mediaType != .video, "mediaType != video")
        try same(Asset.duration <= 2, "duration <= 2")
        try same(Asset.pixelWidth > 2, "pixelWidth > 2")
        try same(!(Asset.pixelWidth > 2), "NOT pixelWidth > 2")
        try same(Asset.isFavorite == true, "isFavorite == YES")
        try same(Asset.creationDate.between(jan1, jan1), "creationDate BETWEEN {'2024-01-01', '2024-01-01T00:00Z'}")
    }

    @Test("typed keys take their key type and optionality from their Swift type")
    func keyTypes() throws {
        let schema = AssetExample.schema
        #expect(schema.key(named: "isFavorite")?.type == .bool)
        #expect(schema.key(named: "pixelWidth")?.type == .integer)
        #expect(schema.key(named: "duration")?.type == .double)
        #expect(schema.key(named: "creationDate")?.type == .date)
        #expect(schema.key(named: "creationDate")?.isOptional == true)
        #expect(schema.key(named: "pixelWidth")?.isOptional == false)
        #expect(schema.key(named: "originalFilename")?.type == .string)
        #expect(
            schema.key(named: "mediaType")?.type
                == .enumeration(cases: [("unknown", 0), ("image", 1), ("video", 2), ("audio", 3)]))
        #expect(
            schema.key(named: "mediaSubtypes")?.type
                == .optionSet(flags: [("photoPanorama", 1), ("photoHDR", 2), ("videoTimelapse", 1 << 18)]))
        #expect(schema.key(named: "nope") == nil)
        #expect(schema.keyNames.first == "mediaType")
        #expect(Int64.predicateKeyType == .integer && Int32.predicateKeyType == .integer)
        #expect((Int?).none.predicateValue == .null)
        #expect(Int?.isOptionalPredicateValue && !Int.isOptionalPredicateValue)
    }

    @Test("accessors read typed values from objects")
    func accessors() throws {
        let asset = Asset(
            mediaType: .video, mediaSubtypes: [.photoHDR], creationDate: nil, isFavorite: true, isHidden: false,
            originalFilename: "clip.mov", pixelWidth: 1920, duration: 12.5, burstIdentifier: "b")
        let schema = AssetExample.schema
        #expect(schema.key(named: "mediaType")?.value(asset) == .integer(2))
        #expect(schema.key(named: "mediaSubtypes")?.value(asset) == .integer(2))
        #expect(schema.key(named: "creationDate")?.value(asset) == .null)
        #expect(schema.key(named: "isFavorite")?.value(asset) == .bool(true))
        #expect(schema.key(named: "pixelWidth")?.value(asset) == .integer(1920))
        #expect(schema.key(named: "duration")?.value(asset) == .double(12.5))
        #expect(schema.key(named: "originalFilename")?.value(asset) == .string("clip.mov"))
        #expect(try (Asset.mediaType == .video && Asset.isFavorite).evaluate(asset, schema: schema))
        #expect(try !(Asset.creationDate < Date()).evaluate(asset, schema: schema))
        #expect(try Predicate.not(Asset.creationDate < Date()).evaluate(asset, schema: schema))
        #expect(try Asset.mediaSubtypes.contains(.photoHDR).evaluate(asset, schema: schema))
        #expect(try !Asset.mediaSubtypes.contains([.photoHDR, .photoPanorama]).evaluate(asset, schema: schema))
    }

    @Test("&& and || flatten; all/any build junctions; key names are collected")
    func junctions() {
        let a = Asset.isFavorite.predicate
        let b = Asset.isHidden.predicate
        let c = Asset.pixelWidth > 1
        #expect((a && b && c) == .and([a, b, c]))
        #expect(((a && b) && (c && a)) == .and([a, b, c, a]))
        #expect((a || b || c) == .or([a, b, c]))
        #expect((a && (b || c)) == .and([a, .or([b, c])]))
        #expect(Predicate.all([a]) == a && Predicate.all([]) == .and([]) && Predicate.any([a, b]) == .or([a, b]))
        #expect(Predicate.truePredicate == .constant(true) && Predicate.falsePredicate == .constant(false))
        #expect(a.negated == !Asset.isFavorite)
        #expect((c || a && Asset.mediaType == .image || a).keyNames == ["pixelWidth", "isFavorite", "mediaType"])
    }

    @Test("sort descriptors from typed keys")
    func sortDescriptors() {
        #expect(Asset.creationDate.descending == SortDescriptor(key: "creationDate", ascending: false))
        #expect(Asset.pixelWidth.ascending == SortDescriptor(Asset.pixelWidth))
        #expect(SortDescriptor(Asset.pixelWidth, ascending: false).reversed == Asset.pixelWidth.ascending)
    }

    @Test("description(using:) writes enumeration cases and flags by name")
    func namedDescription() throws {
        let predicate =
            Asset.mediaType.in([.image, .video]) && Asset.mediaSubtypes.contains(.videoTimelapse)
            && Asset.mediaSubtypes.contains([.photoHDR, .photoPanorama])
            && Asset.mediaType != AssetExample.MediaType(rawValue: 3)!
        #expect(
            predicate.description(using: AssetExample.schema)
                == "mediaType IN {image, video} AND mediaSubtypes CONTAINS videoTimelapse AND mediaSubtypes CONTAINS 3 AND mediaType != audio"
        )
        #expect(
            predicate.description
                == "mediaType IN {1, 2} AND mediaSubtypes CONTAINS 262144 AND mediaSubtypes CONTAINS 3 AND mediaType != 3"
        )
    }
}
