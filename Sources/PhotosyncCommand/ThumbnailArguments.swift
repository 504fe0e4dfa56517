import ArgumentParser
import PhotoImaging

/// A target size on the command line: `256` (a square) or `640x480`.
struct ThumbnailSize: ExpressibleByArgument, Hashable, CustomStringConvertible {
    let size: PixelSize

    /// The largest side accepted (PhotoKit's targets are points × scale; nothing displays more).
    static let maximumSide = 65_535

    init(_ size: PixelSize) { self.size = size }

    init?(argument: String) {
        let sides = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false).map { Int($0) }
        guard sides.count == 1 || sides.count == 2, sides.allSatisfy({ $0 != nil && (1...Self.maximumSide).contains($0!) })
        else { return nil }
        size = PixelSize(width: sides[0]!, height: sides.last!!)
    }

    /// `256` for a square, `640x480` otherwise: how the option is written.
    var description: String { size.width == size.height ? "\(size.width)" : "\(size.width)x\(size.height)" }

    var defaultValueDescription: String { description }
}

/// A list of sizes: `256,1440`.
struct ThumbnailSizeList: ExpressibleByArgument {
    let sizes: [ThumbnailSize]

    init(_ sizes: [PixelSize]) { self.sizes = sizes.map(ThumbnailSize.init) }

    init?(argument: String) {
        let sizes = argument.split(separator: ",").map { ThumbnailSize(argument: String($0).trimmingCharacters(in: .whitespaces)) }
        guard !sizes.isEmpty, sizes.allSatisfy({ $0 != nil }) else { return nil }
        // Each size once, in the order given.
        var seen = Set<ThumbnailSize>()
        self.sizes = sizes.compactMap { $0 }.filter { seen.insert($0).inserted }
    }

    var defaultValueDescription: String { sizes.map(\.description).joined(separator: ",") }
}

/// `--mode`: PhotoKit's content modes.
enum ThumbnailMode: String, ExpressibleByArgument, CaseIterable {
    case fit, fill

    var contentMode: ContentMode { self == .fit ? .aspectFit : .aspectFill }
}

/// `--format`: the encodings a rendition can have.
enum ThumbnailFormat: String, ExpressibleByArgument, CaseIterable {
    case jpeg, webp, png, avif

    /// The format a file name's extension names, or nil.
    init?(fileExtension: String) {
        switch fileExtension.lowercased() {
        case "jpg", "jpeg", "jpe": self = .jpeg
        case "webp": self = .webp
        case "png": self = .png
        case "avif": self = .avif
        default: return nil
        }
    }

    /// Extensions of image formats photosync reads but doesn't write: a file named so would hold another
    /// format than its name says.
    static let unwritableExtensions: Set<String> = [
        "gif", "tif", "tiff", "heic", "heif", "hif", "bmp", "jxl", "jp2", "ico", "svg", "pdf", "dng", "raw",
    ]

    func outputFormat(quality: Int) -> ImageOutputFormat {
        switch self {
        case .jpeg: .jpeg(quality: quality)
        case .webp: .webp(quality: quality)
        case .png: .png
        case .avif: .avif(quality: quality)
        }
    }
}

extension ImageOutputFormat {
    /// The format's name on the command line and in JSON (`jpeg`, `webp`, `png`, `avif`, `rgba8`).
    var name: String {
        switch self {
        case .jpeg: "jpeg"
        case .webp: "webp"
        case .png: "png"
        case .avif: "avif"
        case .rgba8: "rgba8"
        }
    }

    /// The name with the quality: `jpeg85`, `png`.
    var nameWithQuality: String {
        switch self {
        case .jpeg(let quality), .webp(let quality), .avif(let quality): "\(name)\(quality)"
        case .png, .rgba8: name
        }
    }
}

/// How renditions are made, for `thumbnail` and `thumbnails`: content mode, encoding and quality.
struct ThumbnailFormatOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "fit: the whole image inside the size; fill: the size covered, the centre kept.", valueName: "fit|fill"))
    var mode: ThumbnailMode = .fit

    @Option(name: .long, help: ArgumentHelp(
        "jpeg, webp, png or avif (default: what the output file's extension names, else jpeg).", valueName: "format"))
    var format: ThumbnailFormat?

    @Option(name: .long, help: ArgumentHelp("The quality of jpeg, webp and avif, 1…100.", valueName: "1…100"))
    var quality: Int = 85

    func validate() throws {
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be between 1 and 100 (it was \(quality))") }
    }

    /// The encoding: `--format`, else `fallback`.
    func outputFormat(fallback: ThumbnailFormat = .jpeg) -> ImageOutputFormat {
        (format ?? fallback).outputFormat(quality: quality)
    }
}
