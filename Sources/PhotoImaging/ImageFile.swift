import CImagingGlue
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An image file open for one render, closed when the handle goes.
final class ImageFile {
    let path: String
    let descriptor: Int32
    let byteCount: Int64

    /// Opens a file for reading.
    ///
    /// - Throws: ``ImageError/fileMissing(path:)`` or ``ImageError/fileUnreadable(path:reason:)``.
    init(path: String) throws(ImageError) {
        self.path = path
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { throw .fileMissing(path: path) }
            throw .fileUnreadable(path: path, reason: String(cString: strerror(code)))
        }
        var status = stat()
        guard fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            close(descriptor)
            throw .fileUnreadable(path: path, reason: "not a regular file")
        }
        self.descriptor = descriptor
        self.byteCount = Int64(status.st_size)
    }

    deinit { close(descriptor) }
}

/// What a file's header says, read without decoding pixels.
struct ImageHeader: Sendable, Hashable {
    /// As stored, before orientation.
    let storedSize: PixelSize
    /// EXIF orientation 1–8.
    let orientation: Int
    let bands: Int
    let hasAlpha: Bool
    let hasICCProfile: Bool
    /// libvips' loader class, e.g. `VipsForeignLoadJpegSource`.
    let loader: String

    /// The size as displayed: orientations 5–8 swap the sides.
    var displayedSize: PixelSize {
        orientation >= 5 ? PixelSize(width: storedSize.height, height: storedSize.width) : storedSize
    }

    /// Whether colours need converting to sRGB: an embedded profile, or CMYK.
    var needsColourConversion: Bool { hasICCProfile || (bands == 4 && !hasAlpha) }

    var isJPEG: Bool { loader.hasPrefix("VipsForeignLoadJpeg") }
    var isHEIF: Bool { loader.hasPrefix("VipsForeignLoadHeif") }

    /// Reads the header of an open file through `control` (cancellable).
    ///
    /// - Throws: ``ImageError/unsupportedFormat(path:reason:)`` when no loader knows the file,
    ///   ``ImageError/corruptImage(path:reason:)`` for an unreadable header, ``ImageError/cancelled``.
    static func read(_ file: ImageFile, control: RenderControl) throws(ImageError) -> ImageHeader {
        guard let source = VipsSource(control) else { throw .corruptImage(path: file.path, reason: VipsRuntime.takeError()) }
        var header = ci_header()
        let status = ci_header_read(source.pointer, &header)
        guard status == 0 else {
            try control.check()
            let reason = VipsRuntime.takeError()
            if status == -2 { throw .unsupportedFormat(path: file.path, reason: "no loader recognises its content") }
            throw .corruptImage(path: file.path, reason: reason)
        }
        let loader = withUnsafeBytes(of: header.loader) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return ImageHeader(
            storedSize: PixelSize(width: Int(header.width), height: Int(header.height)),
            orientation: (1...8).contains(Int(header.orientation)) ? Int(header.orientation) : 1,
            bands: Int(header.bands), hasAlpha: header.has_alpha != 0, hasICCProfile: header.has_icc != 0,
            loader: loader)
    }

    /// Refuses images over `limit` pixels before anything is decoded.
    func checkPixelCount(limit: Int) throws(ImageError) {
        let (count, overflow) = storedSize.width.multipliedReportingOverflow(by: storedSize.height)
        if overflow || count > limit || storedSize.width <= 0 || storedSize.height <= 0 {
            throw .imageTooLarge(width: storedSize.width, height: storedSize.height, limit: limit)
        }
    }
}
