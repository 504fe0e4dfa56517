import ArgumentParser
import Foundation
import PhotoImaging
import PhotoLibrary
import SyncWorker
import PhotosyncWire

#if canImport(Glibc)
import Glibc
#endif

struct ThumbnailCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "thumbnail",
        abstract: "Write an image of one asset at a target size: a thumbnail, a preview, or the full image.",
        discussion: """
            The asset is named as for `show`: its identifier, a unique part of one (such as its last digits), or its mirrored path. The \
            image is sized by the pixel rule (README, "Images"): fit scales the whole image to fit inside the \
            size, fill scales it to cover the size and keeps the centre; each side rounds half up, the \
            limiting side is exactly the target's, and an image is never enlarged. Orientation is applied and \
            colours converted to sRGB; metadata is not copied.

            The image comes from the library's rendition cache when it was rendered before with the same \
            size, mode, format and quality (`photosync thumbnails` and the daemon pre-render 256 and 1440, \
            fit, jpeg at 85), else it is rendered from the asset's file and kept there. A video gives its \
            first frame. The output is written whole or not at all; `-o -` writes to stdout (not a terminal).

            A damaged, unreadable or unsupported file, or one declaring more pixels than photosync decodes \
            (a decompression bomb), fails with exit code 1, and with --json a report on stderr whose `error` \
            names the kind: fileMissing, unreadable, unsupportedFormat, corruptImage, imageTooLarge, noImage.

            Example: photosync thumbnail Holidays/Beach/IMG_0101.jpg --size 256 --mode fill -o thumb.webp
            """)

    @OptionGroup var options: GlobalOptions

    @Argument(help: ArgumentHelp("The asset's identifier, a unique part of it (such as its last digits), or its mirrored path.", valueName: "id|path"))
    var identifier: String

    @Option(name: .long, help: ArgumentHelp("The target size: 256 (a square) or 640x480.", valueName: "size"))
    var size: ThumbnailSize

    @OptionGroup var rendition: ThumbnailFormatOptions

    @Option(name: [.short, .customLong("output")], help: ArgumentHelp("The file to write; - for stdout.", valueName: "file"))
    var output: String

    func validate() throws {
        if output.isEmpty { throw ValidationError("-o needs a file name, or - for stdout") }
        if output == "-" {
            if options.json { throw ValidationError("--json and -o - would mix the report with the image on stdout: write the image to a file") }
            if isatty(STDOUT_FILENO) == 1 { throw ValidationError("-o - would write image bytes to the terminal: redirect stdout, or name a file") }
            return
        }
        let fileExtension = URL(fileURLWithPath: output).pathExtension
        let named = ThumbnailFormat(fileExtension: fileExtension)
        if let format = rendition.format, let named, named != format {
            throw ValidationError("-o \(output) names a \(named.rawValue) file but --format is \(format.rawValue): make them agree")
        }
        if rendition.format == nil, ThumbnailFormat.unwritableExtensions.contains(fileExtension.lowercased()) {
            throw ValidationError("""
                -o \(output) names a .\(fileExtension) file, which photosync doesn't write: name it .jpg, .webp, .png \
                or .avif, or choose with --format
                """)
        }
    }

    /// The encoding: `--format`, else the output file's extension, else JPEG.
    var outputFormat: ImageOutputFormat {
        let named = output == "-" ? nil : ThumbnailFormat(fileExtension: URL(fileURLWithPath: output).pathExtension)
        return rendition.outputFormat(fallback: named ?? .jpeg)
    }

    func run() async throws {
        try await reportingFailures(options) { run in
            let library = try run.openExistingLibrary()
            let paths = try MirrorPaths(library: library, includeDirectories: false)
            let asset = try AssetArgument.resolve(identifier, in: library, paths: paths)
            let result = try await render(asset, library: library)
            guard let data = result.content.data else { throw CommandFailure("asset \(asset.localIdentifier): no encoded image") }
            let written = try ThumbnailOutput.save(data, to: output)
            let report = Wire.Thumbnail(
                localIdentifier: asset.localIdentifier, path: paths.relativePath(of: asset), output: written ?? "-",
                width: result.size.width, height: result.size.height, format: outputFormat.name, bytes: data.count,
                source: result.source == .renditionCache ? "renditionCache" : "rendered", contentHash: result.sourceContentHash)
            if options.json {
                try Output.json(report)
            } else if written != nil && !options.quiet {
                Output.line("\(report.output): \(report.width)x\(report.height) \(report.format), \(ProgressReporter.bytes(Double(report.bytes))) (\(report.source == "rendered" ? "rendered" : "from the rendition cache"))")
            }
        }
    }

    /// The final image, exactly at the size the pixel rule gives.
    private func render(_ asset: Asset, library: PhotoLibrary) async throws -> ImageResult {
        let requestOptions = ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact, outputFormat: outputFormat)
        do throws(ImageError) {
            let manager = try ImageManager(library: library)
            var final: ImageResult?
            for try await event in manager.requestImage(
                for: asset, targetSize: size.size, contentMode: rendition.mode.contentMode, options: requestOptions)
            {
                if let result = event.result, !result.isDegraded { final = result }
            }
            guard let final else { throw ImageError.cancelled }
            return final
        } catch {
            throw CommandFailure.from(error, asset: asset.localIdentifier)
        }
    }
}

/// Where `thumbnail` writes: a file, replaced whole (written beside it, then renamed over it), or stdout.
enum ThumbnailOutput {
    /// Writes `data`; the absolute path written, or nil for stdout (`-`).
    ///
    /// - Throws: ``CommandFailure`` when the file can't be written; nothing is left behind.
    static func save(_ data: Data, to output: String) throws -> String? {
        if output == "-" {
            FileHandle.standardOutput.write(data)
            return nil
        }
        let destination = URL(fileURLWithPath: output).standardizedFileURL
        let temporary = destination.deletingLastPathComponent()
            .appending(path: ".\(destination.lastPathComponent).photosync-\(getpid()).tmp").path
        if let failure = writeFile(data, at: temporary) ?? (rename(temporary, destination.path) == 0 ? nil : errno) {
            unlink(temporary)
            throw CommandFailure("can't write \(destination.path): \(String(cString: strerror(failure)))")
        }
        return destination.path
    }

    /// Writes a new file (mode 0666 less the umask, as any tool's output); the errno of a failure, or nil.
    private static func writeFile(_ data: Data, at path: String) -> Int32? {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return errno }
        var written = 0
        while written < data.count {
            let count = data.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, data.count - written) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                let failure = count < 0 ? errno : EIO
                close(descriptor)
                return failure
            }
            written += count
        }
        return close(descriptor) == 0 ? nil : errno
    }
}
