import Foundation

@testable import MediaProbe

/// XMP packets and the containers that carry them, built byte by byte.
enum XMPSample {
    /// A packet with `x:xmpmeta`, `rdf:RDF` and one `rdf:Description` holding `body` (property elements)
    /// and `attributes` (properties written as attributes), declaring the usual namespaces (plus `extra`).
    static func packet(attributes: String = "", body: String = "", extra: String = "") -> String {
        """
        <?xpacket begin="\u{FEFF}" id="W5M0MpCehiHzreSzNTczkc9d"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:GPano="http://ns.google.com/photos/1.0/panorama/"
            xmlns:GCamera="http://ns.google.com/photos/1.0/camera/"
            xmlns:exif="http://ns.adobe.com/exif/1.0/"
            xmlns:tiff="http://ns.adobe.com/tiff/1.0/"
            xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:photoshop="http://ns.adobe.com/photoshop/1.0/"
            xmlns:dc="http://purl.org/dc/elements/1.1/" \(extra)
            \(attributes)>
           \(body)
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        <?xpacket end="w"?>
        """
    }

    /// A packet using every kind of property photosync reads: a panorama (attribute form), a screenshot
    /// comment (an `rdf:Alt`), a creation date and a burst identifier (element forms).
    static let everything = packet(
        attributes: #"GPano:ProjectionType="equirectangular" GPano:CroppedAreaImageWidthPixels="8000""#,
        body: """
            <exif:UserComment><rdf:Alt><rdf:li xml:lang="x-default">Screenshot</rdf:li></rdf:Alt></exif:UserComment>
            <xmp:CreateDate>2021-06-07T08:09:10+02:00</xmp:CreateDate>
            <GCamera:BurstID>BURST-XMP-1</GCamera:BurstID>
            """)

    // MARK: Containers

    /// A PNG of `width`×`height` with the packet in an uncompressed `iTXt` chunk (`XML:com.adobe.xmp`).
    static func png(xmp: String?, width: UInt32 = 40, height: UInt32 = 30) -> [UInt8] {
        var out: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        out += pngChunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0])
        if let xmp {
            // keyword NUL, compression flag 0, method 0, language tag NUL, translated keyword NUL, text.
            out += pngChunk("iTXt", Array("XML:com.adobe.xmp".utf8) + [0, 0, 0, 0, 0] + Array(xmp.utf8))
        }
        out += pngChunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01])
        return out + pngChunk("IEND", [])
    }

    static func pngChunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        be32(UInt32(data.count)) + Array(type.utf8) + data + [0, 0, 0, 0]  // the CRC is not checked
    }

    /// An extended WebP (VP8X) of `width`×`height` with an `XMP ` chunk.
    static func webp(xmp: String, width: UInt32 = 37, height: UInt32 = 21) -> [UInt8] {
        func le24(_ value: UInt32) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF)] }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            Array(type.utf8) + le32(UInt32(data.count)) + data + (data.count % 2 == 1 ? [0] : [])
        }
        let body = Array("WEBP".utf8) + chunk("VP8X", [0x04, 0, 0, 0] + le24(width - 1) + le24(height - 1))
            + chunk("XMP ", Array(xmp.utf8))
        return Array("RIFF".utf8) + le32(UInt32(body.count)) + body
    }

    /// A TIFF of `width`×`height` with the packet in IFD0's XMLPacket tag (700).
    static func tiff(xmp: String, width: UInt16 = 24, height: UInt16 = 16) -> [UInt8] {
        TIFFBuilder.standalone([
            (0x0100, .short([width])), (0x0101, .short([height])), (0x02BC, .undefined(Array(xmp.utf8))),
        ])
    }

    static func le32(_ value: UInt32) -> [UInt8] { [0, 8, 16, 24].map { UInt8((value >> UInt32($0)) & 0xFF) } }
}
