public import ContentHash
public import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Everything the sync worker needs to know about one file, without touching the library: what media it
/// is (by content), and its validated metadata.
///
/// ## Reading
/// A probe opens the file once, reads its first 64 bytes to classify it, then only the headers it needs:
/// JPEG marker segments up to the start of scan, PNG/WebP chunk headers (seeking over image data), the GIF
/// screen descriptor, TIFF IFDs, ISO-BMFF box headers (seeking over `mdat`, wherever `moov` is; 64-bit box
/// sizes; version 0/1 boxes). Small reads are served from a 4 KiB read-ahead page, so most files cost one
/// `pread`. Every probe is bounded: at most 16 MiB handed to the parsers in at most 50,000 reads, and 20,000
/// container elements visited; boxes or chunks claiming to extend past their container or the file are
/// clamped with a ``MetadataProblem/Kind/truncated`` problem. EXIF is read by libexif; XMP by Expat
/// (`XMPParser`: JPEG APP1, PNG `iTXt`, WebP `XMP `, TIFF tag 700, the HEIF `mime` item); HEIF and AVIF by
/// libheif (`HEIFReader`: the displayed size includes the `clap` crop; Exif and XMP items of the primary
/// image).
///
/// ## Validation
/// - **Dates**: EXIF `DateTimeOriginal`, else `DateTimeDigitized`, else `DateTime` (each with its sub-seconds
///   and its offset tag: `OffsetTimeOriginal`/`OffsetTimeDigitized`, falling back to `OffsetTime`); without
///   any, XMP `exif:DateTimeOriginal`, `photoshop:DateCreated`, `xmp:CreateDate`. Without an offset the
///   wall-clock time is interpreted in the caller's time zone. Movies: QuickTime
///   `com.apple.quicktime.creationdate`, else `©day`, else the `mvhd` creation time (UTC). A date before
///   1826-01-01 or more than 24 hours after the caller's `now` is dropped (then the next source is tried)
///   with an ``MetadataProblem/Kind/implausibleDate`` problem; `mvhd` times before 1970 are dropped too.
///   Blank EXIF dates (spaces, zeros) mean "unknown" and are no problem.
/// - **Location**: GPS degrees/minutes/seconds with N/S/E/W references (a missing reference is taken as N or
///   E, with a problem); dropped if not finite, |lat| > 90, |lon| > 180, or exactly 0,0. Altitude (reference
///   1 = below sea level) is kept within −12 km…+100 km.
/// - **Sizes**: each side 1…1,000,000 pixels and at most 2³⁶ pixels in all. An EXIF pixel size that differs
///   from the image's is a problem only when no resize, rotation or crop explains it (`ExifDimensions`).
/// - **Orientation**: 1…8, else dropped. Sizes are reported as displayed.
/// - **Durations**: up to one week; a zero timescale is a problem.
/// - **XMP** that is not well-formed, has a document type declaration or no `rdf:RDF` is a
///   ``MetadataProblem/Kind/malformed`` problem (field `XMP`); the rest of the file is still read.
///
/// ## Subtypes (``MediaMetadata/mediaSubtypes``, strong evidence)
/// Screenshots (the tools' file names without camera make or model, or the `UserComment` marker), panoramas
/// (the file's own evidence only: Apple `CustomRendered` 6, GPano XMP, Fujifilm and Sony maker notes —
/// never the aspect ratio alone), HDR, bursts and Live Photo hints: the rules are stated on
/// `MetadataBuilder.inferImageSubtypes` (SubtypeRules.swift) and in the README's smart album table.
///
/// ## Threads
/// Every call works on its own descriptor, buffers and parser state: probes run concurrently from any
/// number of threads.
public enum MediaProbe {
    /// Probes a file: opens it once, classifies it by content and reads its metadata.
    ///
    /// With a content-hash option, the file is read from the start into `buffer` (its first megabyte, or all
    /// of a smaller file) once: the probe reads its headers from there, and the hash goes on from there to the
    /// end of the file, through the same descriptor and buffer.
    ///
    /// - Parameters:
    ///   - path: the file.
    ///   - timeZone: the zone in which to interpret wall-clock dates that carry no offset.
    ///   - now: the current time, for the "not in the future" rule (injectable for tests).
    ///   - options: extra work, such as hashing the content through the same descriptor.
    ///   - buffer: the read buffer of the content hash, for a caller probing many files on one thread (one is
    ///     allocated for the call when nil).
    /// - Returns: the format (nil when the file is not media) and the metadata (empty when not media).
    /// - Throws: ``ProbeError`` when the file cannot be opened or read, is a directory, or is not a
    ///   regular file.
    public static func probe(
        fileAt path: String, timeZone: TimeZone = .current, now: Date = Date(), options: ProbeOptions = [],
        buffer: ProbeBuffer? = nil
    ) throws(ProbeError) -> ProbeResult {
        let file = try OpenFile(path: path)
        defer { file.close() }
        guard options.contains(.contentHash) || options.contains(.contentHashOfMedia) else {
            let source = FileSource(descriptor: file.descriptor, size: file.status.size)
            let (format, metadata) = analyze(BoundedReader(source), fileName: path, timeZone: timeZone, now: now)
            if let error = source.readError { throw ProbeError(path: path, errno: error, operation: "read") }
            return ProbeResult(path: path, file: file.status, format: format, metadata: metadata)
        }
        let buffer = buffer ?? ProbeBuffer()
        let head = try file.read(into: buffer.bytes)
        let source = FileSource(descriptor: file.descriptor, size: file.status.size, head: UnsafeRawBufferPointer(rebasing: buffer.bytes[..<head]))
        let (format, metadata) = analyze(BoundedReader(source), fileName: path, timeZone: timeZone, now: now)
        if let error = source.readError { throw ProbeError(path: path, errno: error, operation: "read") }
        var result = ProbeResult(path: path, file: file.status, format: format, metadata: metadata)
        guard options.contains(.contentHash) || format != nil else { return result }
        // The probe is done with the buffer: the hash takes the head from it, then reads the rest through it.
        let (hash, length) = try file.hash(head: head, buffer: buffer.bytes)
        result.contentHash = hash
        let after = try file.currentStatus()
        result.changedWhileReading = after != file.status || length != file.status.size
        return result
    }

    /// Probes bytes held in memory (a whole file, or its beginning).
    ///
    /// - Parameters:
    ///   - contents: the file's bytes.
    ///   - fileName: its name, used only to tell TIFF-based raws apart and for file-name hints.
    ///   - timeZone: the zone for wall-clock dates without an offset.
    ///   - now: the current time.
    public static func probe(
        contents: [UInt8], fileName: String? = nil, timeZone: TimeZone = .current, now: Date = Date()
    ) -> ProbeResult {
        let reader = BoundedReader(MemorySource(bytes: contents))
        let (format, metadata) = analyze(reader, fileName: fileName, timeZone: timeZone, now: now)
        return ProbeResult(format: format, metadata: metadata)
    }

    /// Classifies a file by content without reading its metadata.
    ///
    /// - Throws: ``ProbeError`` as ``probe(fileAt:timeZone:now:options:)``.
    public static func detectFormat(fileAt path: String) throws(ProbeError) -> MediaFormat? {
        let file = try OpenFile(path: path)
        defer { file.close() }
        let source = FileSource(descriptor: file.descriptor, size: file.status.size)
        let format = MediaFormat.detect(BoundedReader(source), fileName: path)
        if let error = source.readError { throw ProbeError(path: path, errno: error, operation: "read") }
        return format
    }

    static func analyze(
        _ reader: BoundedReader, fileName: String?, timeZone: TimeZone, now: Date
    ) -> (MediaFormat?, MediaMetadata) {
        guard let format = MediaFormat.detect(reader, fileName: fileName) else { return (nil, MediaMetadata()) }
        let context = ProbeContext(reader: reader)
        var builder = MetadataBuilder(context: context, timeZone: timeZone, now: now, fileName: fileName)
        let containers = ContainerReader(context: context)
        let walker = BoxWalker(context: context)

        if format.isISOBMFF {
            let top = walker.children(from: 0, to: reader.size, path: "")
            if format.isHEIF {
                var info = ImageContainerInfo()
                if let heif = HEIFReader(context: context).read() {
                    info.width = heif.width
                    info.height = heif.height
                    info.transformOrientation = HEIFTransforms(walker: walker).orientation(of: heif.itemID, topLevel: top)
                    info.exifBlock = heif.exifBlock
                    info.xmp = heif.xmp?[...]
                }
                builder.buildImage(format: format, container: info, exif: readExif(info, context: context))
            } else if let moov = top.first(where: { $0.type == fourCC("moov") }) {
                let movie = MovieParser(walker: walker).parse(moov: moov)
                if format == .cr3 {
                    var info = ImageContainerInfo()
                    info.canonBlocks = (movie.canonIFD0, movie.canonExif, movie.canonGPS)
                    builder.buildImage(format: format, container: info, exif: readExif(info, context: context))
                } else {
                    builder.buildMovie(movie)
                }
            } else {
                context.note(.truncated, "moov", "no movie box")
            }
        } else {
            let info: ImageContainerInfo
            switch format {
            case .jpeg: info = containers.jpeg()
            case .png: info = containers.png()
            case .gif: info = containers.gif()
            case .webp: info = containers.webp()
            case .raf: info = containers.raf()
            default: info = format.isTIFFBased ? containers.tiff(format: format) : ImageContainerInfo()
            }
            builder.buildImage(format: format, container: info, exif: readExif(info, context: context))
        }
        context.noteReaderLimits()
        builder.metadata.problems = context.problems
        return (format, builder.metadata)
    }

    private static func readExif(_ info: ImageContainerInfo, context: ProbeContext) -> ExifValues? {
        if let blocks = info.canonBlocks {
            guard blocks.ifd0 != nil || blocks.exif != nil else { return nil }
            let values = ExifReader.read(ifd0Block: blocks.ifd0, exifBlock: blocks.exif, gpsBlock: blocks.gps)
            if values == nil { context.note(.unreadableEXIF, "CMT", "libexif found no entries") }
            return values
        }
        guard let block = info.exifBlock, !info.exifOutOfReach else { return nil }
        let values = ExifReader.read(block)
        if values == nil { context.note(.unreadableEXIF, "EXIF", "libexif found no entries") }
        return values
    }
}

/// Extra work a probe can do while it has the file open.
public struct ProbeOptions: OptionSet, Sendable, Hashable {
    public let rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    /// Also hash the whole content (XXH3-128) through the same descriptor, and report whether the file
    /// changed (size, modification time, inode, or a length read other than its size) while it was read.
    public static let contentHash = ProbeOptions(rawValue: 1 << 0)
    /// ``contentHash`` for photos and videos only: a file that is not media is read no further than its
    /// classification took (a folder's archives and documents are not read whole).
    public static let contentHashOfMedia = ProbeOptions(rawValue: 1 << 1)
}

/// The read buffer of probes that hash (``ProbeOptions/contentHash``): 1 MiB, allocated once and reused by a
/// caller that probes file after file on one thread, rather than allocated for each file.
///
/// Not `Sendable`: one probe at a time uses it, on the thread that owns it.
public final class ProbeBuffer {
    /// The buffer's size: a file up to this size is read with one `pread`.
    public static let size = 1 << 20

    let bytes: UnsafeMutableRawBufferPointer

    /// Allocates a buffer.
    public init() {
        bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.size, alignment: 64)
    }

    deinit { bytes.deallocate() }
}

@available(*, unavailable)
extension ProbeBuffer: Sendable {}

/// What `fstat` said about a probed file when it was opened.
public struct FileStatus: Sendable, Hashable {
    /// Size in bytes.
    public var size: Int64
    /// Last modification, to the nanosecond the file system keeps.
    public var modificationDate: Date
    /// Modification time: whole seconds since 1970 (with ``modificationNanoseconds``, exact for stat caches).
    public var modificationSeconds: Int64
    /// Modification time: the nanoseconds within ``modificationSeconds``.
    public var modificationNanoseconds: Int64
    /// The device holding the file.
    public var device: UInt64
    /// The file's inode number.
    public var inode: UInt64

    init(_ st: stat) {
        size = Int64(st.st_size)
        #if canImport(Darwin)
        modificationSeconds = Int64(st.st_mtimespec.tv_sec)
        modificationNanoseconds = Int64(st.st_mtimespec.tv_nsec)
        #else
        modificationSeconds = Int64(st.st_mtim.tv_sec)
        modificationNanoseconds = Int64(st.st_mtim.tv_nsec)
        #endif
        modificationDate = Date(
            timeIntervalSince1970: Double(modificationSeconds) + Double(modificationNanoseconds) / 1e9)
        device = UInt64(st.st_dev)
        inode = UInt64(st.st_ino)
    }
}

/// The outcome of a probe.
public struct ProbeResult: Sendable, Hashable {
    /// The probed path (nil for in-memory probes).
    public var path: String?
    /// The media format, or nil when the file is not a supported photo or video.
    public var format: MediaFormat?
    /// The validated metadata (empty when the file is not media).
    public var metadata: MediaMetadata
    /// The file's status when it was opened (nil for in-memory probes).
    public var file: FileStatus?
    /// The content hash, with ``ProbeOptions/contentHash``.
    public var contentHash: ContentHash?
    /// With ``ProbeOptions/contentHash``: whether size, modification time or inode changed while the file
    /// was read (it is still being written: probe again once it is quiet).
    public var changedWhileReading = false

    /// Whether the file is a photo or video.
    public var isMedia: Bool { format != nil }

    /// Creates a result.
    public init(format: MediaFormat?, metadata: MediaMetadata) {
        self.format = format
        self.metadata = metadata
    }

    init(path: String, file: FileStatus, format: MediaFormat?, metadata: MediaMetadata) {
        self.init(format: format, metadata: metadata)
        self.path = path
        self.file = file
    }
}

/// Why a file could not be probed.
public struct ProbeError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The broad reason, derived from the errno.
    public enum Reason: String, Sendable, Hashable {
        /// `EACCES`, `EPERM`.
        case permissionDenied
        /// `ENOENT`, `ENOTDIR`: the path vanished (or never was).
        case notFound
        /// The path is a directory (`EISDIR`).
        case isDirectory
        /// The path is a FIFO, socket or device (reported with `EINVAL`).
        case notRegularFile
        /// Any other failure (`EIO`, `ELOOP`, `EMFILE`…).
        case other
    }

    /// The path given to the probe.
    public let path: String
    /// The errno of the failed call: from `open`, `fstat` or `pread`; `EISDIR` for directories, `EINVAL`
    /// for other non-regular files.
    public let errno: Int32
    /// The operation that failed: `open`, `fstat`, `read`, or `check` (not a regular file).
    public let operation: String

    /// Creates an error.
    public init(path: String, errno: Int32, operation: String) {
        self.path = path
        self.errno = errno
        self.operation = operation
    }

    /// The broad reason, derived from ``errno`` (and ``operation`` for non-regular files).
    public var reason: Reason {
        switch errno {
        case EACCES, EPERM: .permissionDenied
        case ENOENT, ENOTDIR: .notFound
        case EISDIR: .isDirectory
        case EINVAL where operation == "check": .notRegularFile
        default: .other
        }
    }

    public var description: String {
        "cannot \(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}

/// A file opened for probing: the descriptor and its status at open time.
private struct OpenFile {
    let path: String
    let descriptor: Int32
    let status: FileStatus

    init(path: String) throws(ProbeError) {
        // O_NONBLOCK: opening a FIFO must not wait for a writer; it is rejected below anyway.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw ProbeError(path: path, errno: errno, operation: "open") }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let error = errno
            closeDescriptor(fd)
            throw ProbeError(path: path, errno: error, operation: "fstat")
        }
        let type = st.st_mode & S_IFMT
        guard type == S_IFREG else {
            closeDescriptor(fd)
            throw ProbeError(path: path, errno: type == S_IFDIR ? EISDIR : EINVAL, operation: type == S_IFDIR ? "open" : "check")
        }
        self.path = path
        self.descriptor = fd
        self.status = FileStatus(st)
    }

    func close() { closeDescriptor(descriptor) }

    func currentStatus() throws(ProbeError) -> FileStatus {
        var st = stat()
        guard fstat(descriptor, &st) == 0 else { throw ProbeError(path: path, errno: errno, operation: "fstat") }
        return FileStatus(st)
    }

    /// Reads the file from its start into `buffer`, until the buffer is full or the file ends.
    ///
    /// - Returns: how many bytes were read.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ProbeError) -> Int {
        let wanted = Int(min(Int64(buffer.count), status.size))
        var filled = 0
        while filled < wanted {
            let count = pread(descriptor, buffer.baseAddress! + filled, wanted - filled, off_t(filled))
            if count == 0 { break }  // The file shrank.
            if count < 0 {
                if errno == EINTR { continue }
                throw ProbeError(path: path, errno: errno, operation: "read")
            }
            filled += count
        }
        return filled
    }

    /// Hashes the whole file: its first `head` bytes, held in `buffer`, then — when they filled it — the rest,
    /// read through `buffer` with positional reads. (A file that grew past a short head since it was opened
    /// shows in its status after.)
    ///
    /// - Returns: the hash and the number of bytes hashed.
    func hash(head: Int, buffer: UnsafeMutableRawBufferPointer) throws(ProbeError) -> (ContentHash, Int64) {
        var hasher = ContentHasher()
        hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<head]))
        var offset = off_t(head)
        guard head == buffer.count else { return (hasher.finalize(), Int64(offset)) }
        #if os(Linux)
        _ = posix_fadvise(descriptor, offset, 0, POSIX_FADV_SEQUENTIAL)
        #endif
        while true {
            let count = pread(descriptor, buffer.baseAddress, buffer.count, offset)
            if count == 0 { break }
            if count < 0 {
                if errno == EINTR { continue }
                throw ProbeError(path: path, errno: errno, operation: "read")
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            offset += off_t(count)
        }
        return (hasher.finalize(), Int64(offset))
    }
}

private func closeDescriptor(_ fd: Int32) {
    #if canImport(Glibc)
    _ = Glibc.close(fd)
    #else
    _ = Darwin.close(fd)
    #endif
}
