package import Foundation
import CImagingGlue

extension PixelBuffer {
    /// Decodes encoded image bytes (any format libvips reads) to RGBA8 pixels, without resizing. For tests
    /// and tools that check what a request delivered.
    ///
    /// - Throws: ``ImageError/corruptImage(path:reason:)`` when the bytes don't decode.
    package init(decoding data: Data) throws(ImageError) {
        try VipsRuntime.start()
        let decoded: PixelBuffer? = data.withUnsafeBytes { raw -> PixelBuffer? in
            guard let image = VipsImage(ci_load_buffer(raw.baseAddress, raw.count)),
                let rgba = VipsImage(ci_to_srgb8(image.pointer, 2))
            else { return nil }
            var length = 0
            guard let pixels = ci_pixels(rgba.pointer, nil, &length) else { return nil }
            defer { ci_free(pixels) }
            let size = rgba.size
            return PixelBuffer(
                width: size.width, height: size.height, bytes: [UInt8](UnsafeRawBufferPointer(start: pixels, count: length)))
        }
        guard let decoded else { throw .corruptImage(path: "<memory>", reason: VipsRuntime.takeError()) }
        self = decoded
    }
}
