/// The subtype rules for stills: what makes a photo a screenshot, a panorama, an HDR photo or part of a burst.
/// Every rule rests on the file's own evidence; the README's smart album table states them for users.
///
/// **Screenshot** (``MediaSubtypes/photoScreenshot``), when either
/// - the file says so: EXIF `UserComment` or XMP `exif:UserComment` is "Screenshot" (what iOS and macOS
///   write; iOS names screenshots like photos, so this is how iOS screenshots are known), or
/// - its name is one the screenshot tool of Android, macOS, GNOME, KDE, Xfce, Windows or ChromeOS writes
///   (``ScreenshotNames``) **and** nothing in it says a camera took it: no EXIF or XMP make or model, and
///   not a camera raw format. A camera photo that a user renamed "Screenshot…" stays a photo. PNG is not
///   required: Samsung and Xiaomi phones save screenshots as JPEG.
///
/// A name that merely mentions a screenshot word (`my screenshot.png`), without camera make or model, gives
/// only the weak hint in ``MediaMetadata/mediaSubtypeHints``.
///
/// **Panorama** (``MediaSubtypes/photoPanorama``): only the file's own panorama evidence counts —
/// - Apple's EXIF `CustomRendered` 6 (iPhone panorama mode),
/// - Google's GPano XMP (Photo Sphere, panorama modes of Android cameras and stitchers):
///   `GPano:UsePanoramaViewer` true, or `GPano:ProjectionType` `equirectangular`/`cylindrical` without
///   `UsePanoramaViewer` false,
/// - a maker note saying the camera stitched a panorama: Fujifilm CompositeImageMode "Panorama" or a
///   PanoramaAngle, Sony SceneMode "Sweep Panorama"/"3D Sweep Panorama".
///
/// The aspect ratio alone is never evidence, however wide: ordinary photos at 3:2, 4:3, 16:9 and 1:1 are
/// never panoramas, and neither is a 4:1 image without evidence — banner crops, letterboxed frames and
/// screenshots of 32:9 monitors are that wide too, and a stitched panorama from a camera or phone carries
/// one of the markers above.
///
/// **HDR** (``MediaSubtypes/photoHDR``): Apple's `CustomRendered` 2, 3 or 7, or Apple maker note
/// HDRImageType 3.
///
/// **Burst** (``MediaMetadata/burstIdentifier``): Apple maker note BurstUUID, else Google's XMP
/// `GCamera:BurstID`, else a camera file name `…_BURST<timestamp>…` (Pixel) or `<name>_BURST<n>`.
///
/// **Live Photo** (``MediaSubtypes/photoLive``) is never set from one file: an Apple maker note
/// ContentIdentifier, or a Google motion photo marker (`GCamera:MotionPhoto`/`MicroVideo`), gives the hint.
extension MetadataBuilder {
    mutating func inferImageSubtypes(format: MediaFormat, exif: ExifValues?, xmp: XMPValues?, makerNote: MakerNoteFacts) {
        inferScreenshot(format: format, exif: exif, xmp: xmp)
        if exif?.customRendered == 6 || xmp?.saysPanorama == true || makerNote.isPanorama {
            metadata.mediaSubtypes.insert(.photoPanorama)
        }
        if let rendered = exif?.customRendered, rendered == 2 || rendered == 3 || rendered == 7 {
            metadata.mediaSubtypes.insert(.photoHDR)
        }
        if makerNote.isHDR { metadata.mediaSubtypes.insert(.photoHDR) }
        if xmp?.isMotionPhoto == true { metadata.mediaSubtypeHints.insert(.photoLive) }
        metadata.burstIdentifier = makerNote.burstIdentifier ?? xmp?.burstIdentifier
            ?? fileName.flatMap(Self.burstIdentifier(fileName:))
    }

    private mutating func inferScreenshot(format: MediaFormat, exif: ExifValues?, xmp: XMPValues?) {
        if exif?.userComment.map(XMPValues.isScreenshotComment) == true || xmp?.saysScreenshot == true {
            metadata.mediaSubtypes.insert(.photoScreenshot)
            return
        }
        let camera = metadata.make != nil || metadata.model != nil
        guard !camera, !format.isRawImage, let fileName else { return }
        if ScreenshotNames.matches(fileName) {
            metadata.mediaSubtypes.insert(.photoScreenshot)
        } else if ScreenshotNames.mentionsScreenshot(fileName) {
            metadata.mediaSubtypeHints.insert(.photoScreenshot)
        }
    }

    /// Burst identifiers in camera file names: Pixel-style `…_BURST<timestamp>…` (the timestamp, shared by
    /// the burst), or `<prefix>_BURST<n>` (the prefix, shared by the burst). ASCII case is ignored.
    static func burstIdentifier(fileName: String) -> String? {
        var fileName = fileName
        return fileName.withUTF8 { path in
            let nameStart = path.lastIndex(of: UInt8(ascii: "/")).map { $0 + 1 } ?? 0
            let name = path[nameStart...]
            let marker = Array("_BURST".utf8)
            guard let at = name.indices.first(where: { index in
                name.count - (index - nameStart) >= marker.count
                    && marker.indices.allSatisfy { name[index + $0] & 0xDF == marker[$0] }
            }) else { return nil }
            let digits = name[(at + marker.count)...].prefix { $0 >= 0x30 && $0 <= 0x39 }
            guard !digits.isEmpty else { return nil }
            if digits.count >= 12 { return "BURST" + String(decoding: digits, as: UTF8.self) }
            let stem = name[..<at].drop { $0 >= 0x30 && $0 <= 0x39 }  // Pixel's leading frame counter
            return stem.isEmpty ? nil : String(decoding: stem, as: UTF8.self) + "_BURST"
        }
    }
}

/// When an EXIF pixel size that differs from the image's is normal.
///
/// EXIF `PixelXDimension`/`PixelYDimension` describe the image the camera (or an earlier editor) wrote, and
/// editors that resize, rotate or crop seldom update them. A difference is explained — normal, no problem —
/// when the image can have been made from the one EXIF describes by
/// - resizing: the same aspect ratio, within one pixel of rounding per side, at any scale (EXIF larger or
///   smaller: thumbnails, exports, upscales);
/// - rotating by 90°: the sides swapped (lossless rotation tools keep the EXIF size);
/// - cropping: EXIF's sides both at least the image's (in either orientation).
///
/// Anything else — EXIF describing an image smaller than this one in some side, of another shape — means the
/// EXIF belongs to another image: that is an ``MetadataProblem/Kind/inconsistent`` problem.
enum ExifDimensions {
    static func explain(exif: (Int, Int), image: (Int, Int)) -> Bool {
        let (x, y) = exif
        let (w, h) = image
        return sameShape(x, y, w, h) || sameShape(y, x, w, h) || (x >= w && y >= h) || (y >= w && x >= h)
    }

    /// Whether w×h is x×y scaled, each side rounded: |x·h − y·w| ≤ x + y.
    private static func sameShape(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> Bool {
        let (xh, o1) = x.multipliedReportingOverflow(by: h)
        let (yw, o2) = y.multipliedReportingOverflow(by: w)
        guard !o1, !o2 else { return false }
        return abs(xh - yw) <= x + y
    }
}
