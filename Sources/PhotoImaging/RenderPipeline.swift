import CImagingGlue
import Foundation

/// What a render makes: the target, content mode, resize mode, crop and encoding.
struct RenderSpec: Sendable, Hashable {
    var target: PixelSize?
    var contentMode: ContentMode
    var resizeMode: ResizeMode
    var crop: NormalizedRect?
    var format: ImageOutputFormat
    var maximumPixelCount: Int

    func geometry(for displayed: PixelSize) throws(ImageError) -> RenderGeometry {
        try RenderGeometry.plan(source: displayed, target: target, mode: contentMode, resize: resizeMode, crop: crop)
    }
}

/// A rendered image.
struct RenderedImage: Sendable, Hashable {
    let content: ImageContent
    let size: PixelSize
}

/// One libvips pipeline per render: open the header, refuse bombs, shrink-on-load to the scaled size
/// (`vips_thumbnail_source`: orientation and ICC applied), cut, convert to 8-bit sRGB, encode. Every image
/// reference is released on every path (``VipsImage``).
enum RenderPipeline {
    /// Renders a file.
    ///
    /// - Throws: every ``ImageError`` of reading and decoding; ``ImageError/cancelled`` when `control` was
    ///   cancelled.
    static func render(path: String, spec: RenderSpec, control: RenderControl) throws(ImageError) -> RenderedImage {
        try VipsRuntime.start()
        try control.check()
        let file = try ImageFile(path: path)
        control.attach(fd: file.descriptor, size: file.byteCount)
        defer { control.detach() }
        let header = try ImageHeader.read(file, control: control)
        try header.checkPixelCount(limit: spec.maximumPixelCount)
        let geometry = try spec.geometry(for: header.displayedSize)
        guard let source = VipsSource(control) else { throw failure(path: path, control: control) }
        let scaled = VipsImage(
            ci_thumbnail(
                source.pointer, Int32(geometry.scaledSize.width), Int32(geometry.scaledSize.height), 0,
                header.needsColourConversion ? 1 : 0, 1 /* VIPS_FAIL_ON_TRUNCATED */))
        guard let scaled else { throw failure(path: path, control: control) }
        return try finish(scaled, geometry: geometry, format: spec.format, path: path, control: control)
    }

    /// Renders the HEIF thumbnail item of a file, or nil when it has none or its shape differs from the
    /// image's.
    static func renderHEIFThumbnail(path: String, spec: RenderSpec, control: RenderControl) throws(ImageError) -> RenderedImage? {
        try VipsRuntime.start()
        let file = try ImageFile(path: path)
        control.attach(fd: file.descriptor, size: file.byteCount)
        defer { control.detach() }
        let header = try ImageHeader.read(file, control: control)
        try header.checkPixelCount(limit: spec.maximumPixelCount)
        guard header.isHEIF, let source = VipsSource(control), let image = VipsImage(ci_heif_thumbnail(source.pointer)) else {
            return nil
        }
        return try renderThumbnail(image, main: header.displayedSize, spec: spec, path: path, control: control)
    }

    /// Renders a JPEG thumbnail taken from a file's EXIF data (``EmbeddedThumbnail``): decoded (it is
    /// small), turned upright by the file's orientation, sized and encoded as asked.
    static func renderJPEGThumbnail(
        _ bytes: Data, orientation: Int, path: String, spec: RenderSpec, control: RenderControl
    ) throws(ImageError) -> RenderedImage? {
        try VipsRuntime.start()
        do {
            // libvips reads the bytes lazily: the whole render happens while they are held.
            return try bytes.withUnsafeBytes { raw in
                guard let stored = VipsImage(ci_load_buffer(raw.baseAddress, raw.count)) else { throw failure(path: path, control: control) }
                guard stored.size.width * stored.size.height <= spec.maximumPixelCount,
                    let upright = VipsImage(ci_orient(stored.pointer, Int32(orientation)))
                else { throw failure(path: path, control: control) }
                return try render(frame: upright, spec: spec, path: path, control: control)
            }
        } catch ImageError.corruptImage {
            return nil  // A damaged thumbnail is no reason to fail: the final result follows.
        } catch {
            throw error as? ImageError ?? .corruptImage(path: path, reason: "\(error)")
        }
    }

    /// Renders an upright image already in memory (a video frame).
    static func render(
        frame: VipsImage, spec: RenderSpec, path: String, control: RenderControl
    ) throws(ImageError) -> RenderedImage {
        let geometry = try spec.geometry(for: frame.size)
        let scaled = VipsImage(
            ci_thumbnail_image(frame.pointer, Int32(geometry.scaledSize.width), Int32(geometry.scaledSize.height)))
        guard let scaled else { throw failure(path: path, control: control) }
        return try finish(scaled, geometry: geometry, format: spec.format, path: path, control: control)
    }

    private static func renderThumbnail(
        _ image: VipsImage, main: PixelSize, spec: RenderSpec, path: String, control: RenderControl
    ) throws(ImageError) -> RenderedImage? {
        let size = image.size
        // Same shape as the image, within 2 %: else the thumbnail is letterboxed or of something else.
        let ratio = Double(size.width * main.height) / Double(size.height * main.width)
        guard abs(ratio - 1) <= 0.02 else { return nil }
        do {
            return try render(frame: image, spec: spec, path: path, control: control)
        } catch .corruptImage {
            return nil  // A damaged thumbnail is no reason to fail: the final result follows.
        }
    }

    /// Cuts, converts and encodes a scaled image.
    private static func finish(
        _ scaled: VipsImage, geometry: RenderGeometry, format: ImageOutputFormat, path: String, control: RenderControl
    ) throws(ImageError) -> RenderedImage {
        var image = scaled
        let actual = scaled.size
        if geometry.needsCut || actual != geometry.scaledSize {
            let width = min(geometry.outputSize.width, actual.width)
            let height = min(geometry.outputSize.height, actual.height)
            let left = min(geometry.cutLeft, actual.width - width)
            let top = min(geometry.cutTop, actual.height - height)
            guard let cut = VipsImage(ci_extract(image.pointer, Int32(left), Int32(top), Int32(width), Int32(height))) else {
                throw failure(path: path, control: control)
            }
            image = cut
        }
        let alpha: Int32 = switch format {
        case .jpeg: 0
        case .rgba8: 2
        case .png, .webp, .avif: 1
        }
        guard let converted = VipsImage(ci_to_srgb8(image.pointer, alpha)) else { throw failure(path: path, control: control) }
        return try encode(converted, format: format, path: path, control: control)
    }

    private static func encode(
        _ image: VipsImage, format: ImageOutputFormat, path: String, control: RenderControl
    ) throws(ImageError) -> RenderedImage {
        let size = image.size
        if format == .rgba8 {
            var length = 0
            guard let pixels = ci_pixels(image.pointer, control.watch, &length) else {
                throw failure(path: path, control: control)
            }
            defer { ci_free(pixels) }
            let bytes = [UInt8](UnsafeRawBufferPointer(start: pixels, count: length))
            guard bytes.count == size.width * size.height * 4 else {
                throw .corruptImage(path: path, reason: "unexpected pixel buffer of \(bytes.count) bytes")
            }
            return RenderedImage(content: .pixels(PixelBuffer(width: size.width, height: size.height, bytes: bytes)), size: size)
        }
        let (code, quality): (Int32, Int) = switch format {
        case .jpeg(let quality): (Int32(CI_FORMAT_JPEG), quality)
        case .webp(let quality): (Int32(CI_FORMAT_WEBP), quality)
        case .png: (Int32(CI_FORMAT_PNG), 0)
        case .avif(let quality): (Int32(CI_FORMAT_AVIF), quality)
        case .rgba8: (0, 0)
        }
        var bytes: UnsafeMutableRawPointer?
        var length = 0
        guard ci_save(image.pointer, code, Int32(min(100, max(1, quality))), control.watch, &bytes, &length) == 0,
            let bytes
        else {
            try control.check()
            let reason = VipsRuntime.takeError()
            if reason.contains("save") && !reason.contains("load") && !reason.contains("read") {
                throw .encodingFailed(reason: reason)
            }
            throw .corruptImage(path: path, reason: reason)
        }
        defer { ci_free(bytes) }
        return RenderedImage(content: .encoded(Data(bytes: bytes, count: length), format: format), size: size)
    }

    /// The error of a failed libvips step: cancelled, else the file is damaged.
    private static func failure(path: String, control: RenderControl) -> ImageError {
        let reason = VipsRuntime.takeError()
        if control.isCancelled { return .cancelled }
        return .corruptImage(path: path, reason: reason)
    }
}
