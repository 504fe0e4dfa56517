import CImagingGlue
import Foundation

/// libvips, started once per process (`vips_init` may run only once).
enum VipsRuntime {
    /// The outcome of starting libvips: nil, or the reason it failed.
    private static let failure: String? = {
        if ci_initialize(0) != 0 { return takeError() }
        return nil
    }()

    /// Starts libvips when needed.
    ///
    /// - Throws: ``ImageError/encodingFailed(reason:)`` when libvips can't start.
    static func start() throws(ImageError) {
        if let failure { throw .encodingFailed(reason: "libvips failed to start: \(failure)") }
    }

    /// The last libvips error messages, cleared.
    static func takeError() -> String {
        guard let message = ci_take_error() else { return "unknown error" }
        defer { ci_free(message) }
        let text = String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? "unknown error" : text.replacingOccurrences(of: "\n", with: "; ")
    }
}

/// One libvips image reference, released when the handle goes: every path unrefs.
final class VipsImage {
    let pointer: OpaquePointer

    init?(_ pointer: OpaquePointer?) {
        guard let pointer else { return nil }
        self.pointer = pointer
    }

    deinit { ci_image_release(pointer) }

    var size: PixelSize { PixelSize(width: Int(ci_image_width(pointer)), height: Int(ci_image_height(pointer))) }
}

/// One libvips source over an open file, released when the handle goes.
final class VipsSource {
    let pointer: OpaquePointer

    init?(_ control: RenderControl) {
        guard let pointer = ci_source_new(control.watch) else { return nil }
        self.pointer = pointer
    }

    deinit { ci_source_release(pointer) }
}
