import Foundation
import Testing

@testable import MediaProbe

@Suite("XMP: a real XML parser, namespaces resolved")
struct XMPParserTests {
    static func values(_ packet: String) throws -> XMPValues {
        try XMPParser.parse(Array(packet.utf8)).get()
    }

    @Test("attribute and element forms of the same properties give the same values")
    func attributeAndElementForms() throws {
        let attributes = try Self.values(XMPSample.packet(
            attributes: #"GPano:ProjectionType="equirectangular" GPano:UsePanoramaViewer="True" tiff:Make="Ricoh""#
                + #" xmp:CreateDate="2020-01-02T03:04:05Z" GCamera:MotionPhoto="1""#))
        let elements = try Self.values(XMPSample.packet(body: """
            <GPano:ProjectionType>equirectangular</GPano:ProjectionType>
            <GPano:UsePanoramaViewer>True</GPano:UsePanoramaViewer>
            <tiff:Make>Ricoh</tiff:Make>
            <xmp:CreateDate>2020-01-02T03:04:05Z</xmp:CreateDate>
            <GCamera:MotionPhoto>1</GCamera:MotionPhoto>
            """))
        #expect(attributes == elements)
        #expect(attributes.panoramaProjection == "equirectangular" && attributes.usePanoramaViewer == true)
        #expect(attributes.make == "Ricoh" && attributes.createDate == "2020-01-02T03:04:05Z")
        #expect(attributes.isMotionPhoto && attributes.saysPanorama)
    }

    @Test("properties are found by namespace URI, whatever the prefix")
    func namespacesNotPrefixes() throws {
        // The GPano namespace under another prefix: a panorama.
        let renamed = try Self.values(XMPSample.packet(
            attributes: #"pano:ProjectionType="cylindrical""#,
            extra: #"xmlns:pano="http://ns.google.com/photos/1.0/panorama/""#))
        #expect(renamed.saysPanorama)
        // The GPano prefix bound to some other namespace: not Google's property.
        let impostor = """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:GPano="http://example.com/not-gpano/" GPano:ProjectionType="equirectangular"
              GPano:UsePanoramaViewer="True"/>
            </rdf:RDF></x:xmpmeta>
            """
        #expect(try Self.values(impostor) == XMPValues())
    }

    @Test("an rdf:Alt gives its x-default item; an rdf:Seq its first")
    func containers() throws {
        let alt = try Self.values(XMPSample.packet(body: """
            <exif:UserComment><rdf:Alt>
              <rdf:li xml:lang="de">Bildschirmfoto</rdf:li><rdf:li xml:lang="x-default">Screenshot</rdf:li>
            </rdf:Alt></exif:UserComment>
            """))
        #expect(alt.userComment == "Screenshot" && alt.saysScreenshot)
        let seq = try Self.values(XMPSample.packet(body: """
            <GCamera:BurstID><rdf:Seq><rdf:li>first</rdf:li><rdf:li>second</rdf:li></rdf:Seq></GCamera:BurstID>
            """))
        #expect(seq.burstIdentifier == "first")
    }

    @Test("values inside structures are not top-level properties")
    func structuresAreIgnored() throws {
        let values = try Self.values(XMPSample.packet(body: """
            <dc:description rdf:parseType="Resource"><exif:UserComment>Screenshot</exif:UserComment></dc:description>
            <dc:subject><rdf:Bag><rdf:li><rdf:Description GPano:ProjectionType="equirectangular"/></rdf:li></rdf:Bag></dc:subject>
            <exif:UserComment>Holiday</exif:UserComment>
            <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Screenshot</rdf:li></rdf:Alt></dc:title>
            """))
        #expect(values.userComment == "Holiday")
        #expect(!values.saysScreenshot && !values.saysPanorama)
    }

    @Test("UsePanoramaViewer false overrides a projection; other projections are not panoramas")
    func panoramaEvidence() throws {
        #expect(!(try Self.values(XMPSample.packet(
            attributes: #"GPano:ProjectionType="equirectangular" GPano:UsePanoramaViewer="False""#)).saysPanorama))
        #expect(!(try Self.values(XMPSample.packet(attributes: #"GPano:ProjectionType="perspective""#)).saysPanorama))
        #expect(try Self.values(XMPSample.packet(attributes: #"GPano:UsePanoramaViewer="true""#)).saysPanorama)
    }

    @Test("empty packets, NUL padding and junk after the root element are fine")
    func padding() throws {
        #expect(try XMPParser.parse([UInt8](repeating: 0x20, count: 100)).get() == XMPValues())
        #expect(try XMPParser.parse([]).get() == XMPValues())
        let padded = Array(XMPSample.everything.utf8) + [UInt8](repeating: 0, count: 64)
        #expect(try XMPParser.parse(padded).get().saysPanorama)
        let junk = Array((XMPSample.everything + "\n</garbage>").utf8)
        #expect(try XMPParser.parse(junk).get().saysScreenshot)
    }

    @Test("malformed packets are typed failures", arguments: [
        ("unclosed", "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">"),
        ("unbound prefix", #"<x:xmpmeta><rdf:Description GPano:ProjectionType="equirectangular"/></x:xmpmeta>"#),
        ("mismatched tags", "<a><b></a></b>"),
        ("not XML", "\u{1}\u{2}binary garbage<<<>>>"),
        ("an invalid character", "<a>\u{1}</a>"),
    ])
    func malformed(label: String, packet: String) {
        guard case .failure(let failure) = XMPParser.parse(Array(packet.utf8)) else {
            Issue.record("\(label) parsed")
            return
        }
        guard case .notWellFormed(let message, _) = failure else {
            Issue.record("\(label): \(failure)")
            return
        }
        #expect(!message.isEmpty)
    }

    @Test("well-formed XML without rdf:RDF is not XMP")
    func noRDF() {
        #expect(XMPParser.parse(Array("<note><to>Tove</to></note>".utf8)) == .failure(.noRDF))
    }

    @Test("a document type declaration is refused before any entity is expanded")
    func billionLaughs() {
        var entities = #"<!ENTITY lol0 "lol">"#
        for level in 1...9 {
            entities += "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }
        let bomb = "<?xml version=\"1.0\"?><!DOCTYPE lolz [\(entities)]><rdf:RDF xmlns:rdf=\"x\">&lol9;</rdf:RDF>"
        let start = Date()
        #expect(XMPParser.parse(Array(bomb.utf8)) == .failure(.documentTypeDeclaration))
        #expect(Date().timeIntervalSince(start) < 1)
        let external = #"<!DOCTYPE x SYSTEM "file:///etc/passwd"><x:xmpmeta xmlns:x="adobe:ns:meta/"/>"#
        #expect(XMPParser.parse(Array(external.utf8)) == .failure(.documentTypeDeclaration))
    }

    @Test("UTF-16 packets (with a byte order mark) are read")
    func utf16() throws {
        let text = XMPSample.packet(attributes: #"GPano:ProjectionType="equirectangular""#)
            .replacingOccurrences(of: "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>", with: "")
        let utf16: [UInt8] = [0xFE, 0xFF] + text.utf16.flatMap { be16($0) }
        #expect(try XMPParser.parse(utf16).get().saysPanorama)
    }
}

@Suite("XMP in every container")
struct XMPContainerTests {
    /// What the ``XMPSample/everything`` packet must give, whatever carries it.
    static func expectEverything(_ metadata: MediaMetadata, _ container: String) {
        #expect(metadata.mediaSubtypes.contains(.photoPanorama), "\(container)")
        #expect(metadata.mediaSubtypes.contains(.photoScreenshot), "\(container)")
        #expect(metadata.creationDate == Fixture.date(2021, 6, 7, 8, 9, 10, offset: 7200), "\(container)")
        #expect(metadata.creationDateSource == .xmpCreateDate, "\(container)")
        #expect(metadata.burstIdentifier == "BURST-XMP-1", "\(container)")
        #expect(metadata.problems.isEmpty, "\(container): \(metadata.problems)")
    }

    @Test func jpegAPP1() {
        Self.expectEverything(Synthetic.probe(Synthetic.jpeg(tiff: nil, xmp: XMPSample.everything)), "JPEG")
    }

    @Test func pngITXt() {
        let result = MediaProbe.probe(contents: XMPSample.png(xmp: XMPSample.everything), fileName: "a.png",
                                      timeZone: Fixture.utc, now: Fixture.now)
        #expect(result.format == .png)
        Self.expectEverything(result.metadata, "PNG")
    }

    @Test func webpChunk() {
        let result = MediaProbe.probe(contents: XMPSample.webp(xmp: XMPSample.everything), fileName: "a.webp",
                                      timeZone: Fixture.utc, now: Fixture.now)
        #expect(result.format == .webp && result.metadata.pixelWidth == 37)
        Self.expectEverything(result.metadata, "WebP")
    }

    @Test func tiffTag700() {
        let result = MediaProbe.probe(contents: XMPSample.tiff(xmp: XMPSample.everything), fileName: "a.tif",
                                      timeZone: Fixture.utc, now: Fixture.now)
        #expect(result.format == .tiff && result.metadata.pixelWidth == 24)
        Self.expectEverything(result.metadata, "TIFF")
    }

    @Test func heifMimeItem() {
        let bytes = ContainerTests.heif(width: 40, height: 30, transforms: [], xmp: Array(XMPSample.everything.utf8))
        Self.expectEverything(Synthetic.probe(bytes, name: "a.heic"), "HEIF")
    }

    @Test("the HEIC fixture's XMP (written by exiftool) reaches the probe")
    func heicFixture() throws {
        #expect(try Fixture.probe("rotated-crop.heic").metadata.burstIdentifier == "HEIC-BURST-7")
    }

    @Test("namespaces and structure decide, not the text: impostor prefixes and look-alike values")
    func notText() {
        // The GPano prefix bound to another namespace; "Screenshot" as a title after a UserComment.
        let impostor = XMPSample.packet(body: """
            <exif:UserComment>Holiday</exif:UserComment>
            <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Screenshot</rdf:li></rdf:Alt></dc:title>
            """).replacingOccurrences(of: "http://ns.google.com/photos/1.0/panorama/", with: "http://example.com/GPano/")
            .replacingOccurrences(of: "<exif:UserComment>", with: "<GPano:ProjectionType>equirectangular</GPano:ProjectionType><exif:UserComment>")
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: nil, xmp: impostor))
        #expect(metadata.mediaSubtypes.isEmpty && metadata.problems.isEmpty, "\(metadata)")
        // Google's namespace under another prefix.
        let renamed = XMPSample.packet(
            attributes: #"pano:ProjectionType="equirectangular""#,
            extra: #"xmlns:pano="http://ns.google.com/photos/1.0/panorama/""#)
        #expect(Synthetic.probe(Synthetic.jpeg(tiff: nil, xmp: renamed)).mediaSubtypes == .photoPanorama)
    }

    @Test("EXIF dates win over XMP dates; XMP dates fill in for files without EXIF dates")
    func datePrecedence() {
        var tiff = TIFFBuilder()
        tiff.exif = [(0x9003, .ascii("2019:01:01 00:00:00")), (0x9011, .ascii("+00:00"))]
        let both = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build(), xmp: XMPSample.everything))
        #expect(both.creationDateSource == .exifDateTimeOriginal)
        let original = XMPSample.packet(body: """
            <xmp:CreateDate>2010-01-01T00:00:00Z</xmp:CreateDate>
            <photoshop:DateCreated>2011-01-01</photoshop:DateCreated>
            <exif:DateTimeOriginal>2012-03-04T05:06:07.5-03:00</exif:DateTimeOriginal>
            """)
        let xmpOnly = Synthetic.probe(Synthetic.jpeg(tiff: nil, xmp: original))
        #expect(xmpOnly.creationDateSource == .xmpDateTimeOriginal)
        #expect(xmpOnly.creationDate == Fixture.date(2012, 3, 4, 5, 6, 7.5, offset: -3 * 3600))
        #expect(xmpOnly.creationDateOffset == -3 * 3600)
        // A year alone is too vague (no problem); the next candidate is used.
        let vague = XMPSample.packet(body: """
            <photoshop:DateCreated>2011</photoshop:DateCreated><xmp:CreateDate>2010-05-06</xmp:CreateDate>
            """)
        let fallback = Synthetic.probe(Synthetic.jpeg(tiff: nil, xmp: vague))
        #expect(fallback.creationDateSource == .xmpCreateDate && fallback.problems.isEmpty)
        let garbage = Synthetic.probe(Synthetic.jpeg(tiff: nil, xmp: XMPSample.packet(
            attributes: #"xmp:CreateDate="yesterday""#)))
        #expect(garbage.creationDate == nil && garbage.hasProblem(.unparseableDate))
    }

    @Test("XMP make and model fill in for files without EXIF")
    func makeAndModel() {
        let packet = XMPSample.packet(attributes: #"tiff:Make="RICOH" tiff:Model="THETA Z1""#)
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: nil, xmp: packet))
        #expect(metadata.make == "RICOH" && metadata.model == "THETA Z1")
    }

    @Test("a Google motion photo is a Live Photo hint, not a Live Photo")
    func motionPhoto() {
        let packet = XMPSample.packet(attributes: #"GCamera:MicroVideo="1""#)
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: nil, xmp: packet))
        #expect(metadata.mediaSubtypeHints == .photoLive && metadata.mediaSubtypes.isEmpty)
    }

    @Test("malformed XMP is a metadata problem; the rest of the file is still read", arguments: [
        "<x:xmpmeta><rdf:RDF", "<!DOCTYPE a [<!ENTITY b \"c\">]><a>&b;</a>", "<plain>text</plain>",
    ])
    func malformedInAFile(packet: String) {
        var tiff = TIFFBuilder()
        tiff.ifd0 = [(0x010F, .ascii("Canon"))]
        let metadata = Synthetic.probe(Synthetic.jpeg(tiff: tiff.build(), xmp: packet))
        #expect(metadata.hasProblem(.malformed))
        #expect(metadata.problems.first { $0.kind == .malformed }?.field == "XMP")
        #expect(metadata.make == "Canon" && metadata.pixelWidth == 64)
        let png = MediaProbe.probe(contents: XMPSample.png(xmp: packet), fileName: "a.png").metadata
        #expect(png.hasProblem(.malformed) && png.pixelWidth == 40)
    }
}
