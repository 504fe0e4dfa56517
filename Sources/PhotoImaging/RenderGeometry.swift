/// The pixel rule: from an image's displayed size, a target size, a content mode, a resize mode and a crop
/// rectangle, the exact size of the result and the steps that make it. Pure integer arithmetic, so that
/// every size is exact and documented (see ``ImageManager``, "Sizes").
struct RenderGeometry: Sendable, Hashable {
    /// The whole image scaled by the request's scale (what shrink-on-load and the resize produce).
    let scaledSize: PixelSize
    /// The rectangle cut from the scaled image: the result.
    let cutLeft: Int
    let cutTop: Int
    let outputSize: PixelSize

    /// Whether a cut is needed (the result is not the whole scaled image).
    var needsCut: Bool { cutLeft != 0 || cutTop != 0 || outputSize != scaledSize }

    /// A scale as a fraction, to keep every size exact.
    struct Scale: Hashable {
        let numerator: Int
        let denominator: Int
        static let one = Scale(numerator: 1, denominator: 1)

        /// `value × scale`, rounded half up, at least 1.
        func apply(_ value: Int) -> Int {
            max(1, Int((2 * Int64(value) * Int64(numerator) + Int64(denominator)) / (2 * Int64(denominator))))
        }

        /// `value × scale`, rounded down.
        func applyDown(_ value: Int) -> Int {
            Int(Int64(value) * Int64(numerator) / Int64(denominator))
        }

        /// Whether `self` < `other`.
        func isLess(than other: Scale) -> Bool {
            Int64(numerator) * Int64(other.denominator) < Int64(other.numerator) * Int64(denominator)
        }
    }

    /// The pixel rectangle of a crop: `floor(x·W)`, `floor(y·H)` to `ceil((x+w)·W)`, `ceil((y+h)·H)`.
    ///
    /// - Throws: ``ImageError/invalidRequest(_:)`` for a rectangle outside the unit square or empty in pixels.
    static func cropRegion(_ rect: NormalizedRect?, in size: PixelSize) throws(ImageError) -> (
        left: Int, top: Int, size: PixelSize
    ) {
        guard let rect else { return (0, 0, size) }
        let values = [rect.x, rect.y, rect.width, rect.height]
        let epsilon = 1e-9
        guard values.allSatisfy({ $0.isFinite && $0 >= 0 && $0 <= 1 }), rect.x + rect.width <= 1 + epsilon,
            rect.y + rect.height <= 1 + epsilon, rect.width > 0, rect.height > 0
        else {
            throw .invalidRequest("normalizedCropRect \(rect) is not inside the unit square")
        }
        let left = Int((rect.x * Double(size.width)).rounded(.down))
        let top = Int((rect.y * Double(size.height)).rounded(.down))
        let right = min(size.width, Int(((rect.x + rect.width) * Double(size.width)).rounded(.up)))
        let bottom = min(size.height, Int(((rect.y + rect.height) * Double(size.height)).rounded(.up)))
        guard right > left, bottom > top else {
            throw .invalidRequest("normalizedCropRect \(rect) holds no pixel of a \(size) image")
        }
        return (left, top, PixelSize(width: right - left, height: bottom - top))
    }

    /// The scale for a region and a target: fit takes the smaller ratio, fill the larger; never above 1.
    static func scale(region: PixelSize, target: PixelSize, mode: ContentMode) -> Scale {
        let byWidth = Scale(numerator: target.width, denominator: region.width)
        let byHeight = Scale(numerator: target.height, denominator: region.height)
        let chosen: Scale
        switch mode {
        case .aspectFit: chosen = byWidth.isLess(than: byHeight) ? byWidth : byHeight
        case .aspectFill: chosen = byWidth.isLess(than: byHeight) ? byHeight : byWidth
        }
        return chosen.isLess(than: .one) ? chosen : .one
    }

    /// Plans a render.
    ///
    /// - Parameters:
    ///   - source: the image's size as displayed (orientation applied).
    ///   - target: the target size; nil (or ``ResizeMode/none``) for the full size.
    /// - Throws: ``ImageError/invalidRequest(_:)`` for a target with a side below 1 or a bad crop.
    static func plan(
        source: PixelSize, target: PixelSize?, mode: ContentMode, resize: ResizeMode, crop: NormalizedRect?
    ) throws(ImageError) -> RenderGeometry {
        guard source.width > 0, source.height > 0 else { throw .invalidRequest("the image has no pixels") }
        let region = try cropRegion(crop, in: source)
        var scale = Scale.one
        var cut = region.size
        if let target, resize != .none {
            guard target.width > 0, target.height > 0 else {
                throw .invalidRequest("target size \(target) has a side below 1 pixel")
            }
            scale = Self.scale(region: region.size, target: target, mode: mode)
            cut = PixelSize(width: scale.apply(region.size.width), height: scale.apply(region.size.height))
            if mode == .aspectFill {
                cut = PixelSize(width: min(cut.width, target.width), height: min(cut.height, target.height))
            }
        }
        let scaled = PixelSize(width: scale.apply(source.width), height: scale.apply(source.height))
        let regionScaled = PixelSize(
            width: scale.apply(region.size.width), height: scale.apply(region.size.height))
        // The region's origin in the scaled image, then the centred cut inside the region.
        let left = min(scale.applyDown(region.left), scaled.width - regionScaled.width)
            + (regionScaled.width - cut.width) / 2
        let top = min(scale.applyDown(region.top), scaled.height - regionScaled.height)
            + (regionScaled.height - cut.height) / 2
        return RenderGeometry(scaledSize: scaled, cutLeft: left, cutTop: top, outputSize: cut)
    }
}
