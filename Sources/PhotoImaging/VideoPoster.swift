import CImagingGlue
import Foundation

/// A video's poster frame: its first decoded frame, upright, through the image pipeline's sizing.
enum VideoPoster {
    /// Renders the poster frame of the video at `path`.
    ///
    /// - Throws: ``ImageError/fileMissing(path:)``, ``ImageError/corruptImage(path:reason:)`` when no frame
    ///   decodes, ``ImageError/imageTooLarge(width:height:limit:)``, ``ImageError/cancelled``.
    static func render(path: String, spec: RenderSpec, control: RenderControl) throws(ImageError) -> RenderedImage {
        try VipsRuntime.start()
        _ = try ImageFile(path: path)  // A clear error for a missing or unreadable file.
        var pixels: UnsafeMutableRawPointer?
        var width: Int32 = 0
        var height: Int32 = 0
        var rotation: Int32 = 0
        var message = [CChar](repeating: 0, count: 256)
        let status = ci_video_poster(
            path, control.watch, Int64(spec.maximumPixelCount), &pixels, &width, &height, &rotation, &message,
            message.count)
        guard status == 0, let pixels else {
            try control.check()
            let reason = String(decoding: message.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if reason.hasPrefix("frame size") {
                throw .imageTooLarge(width: Int(width), height: Int(height), limit: spec.maximumPixelCount)
            }
            throw .corruptImage(path: path, reason: reason)
        }
        defer { free(pixels) }
        guard let frame = VipsImage(ci_image_from_rgba(pixels, width, height)) else {
            throw .corruptImage(path: path, reason: VipsRuntime.takeError())
        }
        // The display matrix's clockwise rotation as the EXIF orientation that undoes it.
        let orientation: Int32 = switch rotation {
        case 90: 6
        case 180: 3
        case 270: 8
        default: 1
        }
        guard let upright = VipsImage(ci_orient(frame.pointer, orientation)) else {
            throw .corruptImage(path: path, reason: VipsRuntime.takeError())
        }
        return try RenderPipeline.render(frame: upright, spec: spec, path: path, control: control)
    }
}
