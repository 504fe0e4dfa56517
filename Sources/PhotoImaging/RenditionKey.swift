/// What identifies a rendition: the content hash of the file rendered, and everything of the request that
/// changes pixels. A renamed or moved file keeps its hash, so its renditions are found again; an edited one
/// has a new hash, so they are not.
struct RenditionKey: Sendable, Hashable {
    /// Bumped when the rendering code changes what it makes: older renditions are then never served.
    static let pipelineRevision = 1

    let contentHash: String
    /// Nil for the full size (``ResizeMode/none`` or no target).
    let target: PixelSize?
    let contentMode: ContentMode
    let crop: NormalizedRect?
    let format: ImageOutputFormat
    /// A canonical text form, stored in each rendition file and hashed for its name.
    let canonical: String

    init(contentHash: String, spec: RenderSpec) {
        self.contentHash = contentHash
        self.target = spec.resizeMode == .none ? nil : spec.target
        self.contentMode = spec.contentMode
        self.crop = spec.crop == .unit ? nil : spec.crop
        self.format = spec.format
        canonical = Self.canonical(contentHash: contentHash, target: target, contentMode: contentMode, crop: crop, format: format)
    }

    /// The canonical text's bytes.
    var canonicalBytes: [UInt8] { Array(canonical.utf8) }

    /// The same rendition in another size.
    func sameKind(as other: RenditionKey) -> Bool {
        contentHash == other.contentHash && contentMode == other.contentMode && crop == other.crop
            && format == other.format
    }

    private static func canonical(
        contentHash: String, target: PixelSize?, contentMode: ContentMode, crop: NormalizedRect?, format: ImageOutputFormat
    ) -> String {
        let size = target.map { "\($0.width)x\($0.height)" } ?? "full"
        let mode = contentMode == .aspectFit ? "fit" : "fill"
        let crop = crop.map { "\($0.x),\($0.y),\($0.width),\($0.height)" } ?? "-"
        let format = switch format {
        case .jpeg(let quality): "jpeg\(quality)"
        case .webp(let quality): "webp\(quality)"
        case .png: "png"
        case .avif(let quality): "avif\(quality)"
        case .rgba8: "rgba8"
        }
        return "r\(Self.pipelineRevision)|\(contentHash)|\(size)|\(mode)|\(crop)|\(format)"
    }

    /// The file name: FNV-1a 64 of the canonical form (the file holds the canonical form too, so a
    /// collision is detected, never served).
    var fileName: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in canonical.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + ".rnd"
    }
}
