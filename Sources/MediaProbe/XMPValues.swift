/// What photosync uses from an XMP packet, typed: found by namespace URI and local name (never by prefix or
/// by text search), in either RDF form — an attribute of a top-level `rdf:Description`
/// (`GPano:ProjectionType="equirectangular"`) or a property element (`<GPano:ProjectionType>…`), including
/// the first item (or the `x-default` one) of an `rdf:Alt`, `rdf:Seq` or `rdf:Bag` value.
///
/// Only top-level properties count: values inside structures (`xmpMM:History`, `rdf:parseType="Resource"`)
/// are someone else's (an edit history event, a region) and are ignored.
struct XMPValues: Equatable {
    /// Google Photo Sphere (GPano, `http://ns.google.com/photos/1.0/panorama/`) properties.
    var panoramaProjection: String?
    /// `GPano:UsePanoramaViewer`: true or false when the packet says so.
    var usePanoramaViewer: Bool?
    /// `exif:UserComment` (`http://ns.adobe.com/exif/1.0/`): "Screenshot" in what iOS and macOS write.
    var userComment: String?
    /// `exif:DateTimeOriginal` (ISO 8601).
    var dateTimeOriginal: String?
    /// `photoshop:DateCreated` (ISO 8601, possibly only a year or a month).
    var dateCreated: String?
    /// `xmp:CreateDate` (ISO 8601).
    var createDate: String?
    /// `tiff:Make` and `tiff:Model`: a camera that identified itself in XMP only.
    var make: String?
    var model: String?
    /// `GCamera:BurstID` (`http://ns.google.com/photos/1.0/camera/`): shared by the frames of a Pixel burst.
    var burstIdentifier: String?
    /// `GCamera:MotionPhoto` or the older `GCamera:MicroVideo` is 1: a Google motion photo (a still with a
    /// short video inside the same file).
    var isMotionPhoto = false

    /// Whether the packet named any property this type holds.
    var isEmpty: Bool { self == XMPValues() }

    /// Whether the packet says the image is a panorama: `GPano:UsePanoramaViewer` is true, or
    /// `GPano:ProjectionType` names a panoramic projection (`equirectangular`, `cylindrical`) and
    /// `UsePanoramaViewer` does not say false.
    var saysPanorama: Bool {
        if let usePanoramaViewer { return usePanoramaViewer }
        guard let projection = panoramaProjection?.lowercased() else { return false }
        return projection == "equirectangular" || projection == "cylindrical"
    }

    /// Whether `exif:UserComment` is "Screenshot" (case-insensitive, surrounding blanks ignored).
    var saysScreenshot: Bool { userComment.map(Self.isScreenshotComment) ?? false }

    /// The comment iOS and macOS write into screenshots (EXIF or XMP `UserComment`).
    static func isScreenshotComment(_ text: String) -> Bool {
        text.trimmingASCIIBlanks().lowercased() == "screenshot"
    }
}

extension String {
    /// The string without leading and trailing ASCII spaces, tabs and line breaks.
    func trimmingASCIIBlanks() -> String {
        let utf8 = self.utf8
        func blank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        guard let first = utf8.firstIndex(where: { !blank($0) }) else { return "" }
        let last = utf8.lastIndex(where: { !blank($0) })!
        return String(self[first...last])
    }
}
