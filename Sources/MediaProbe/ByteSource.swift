#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Random access to the bytes of one file or buffer. Reads past the end return fewer bytes (or none).
protocol ByteSource {
    /// The total size in bytes.
    var size: Int64 { get }
    /// Copies up to `buffer.count` bytes starting at `offset` into `buffer`; returns how many (fewer at the
    /// end or on a read error).
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int
    /// Whether a read of `count` bytes at `offset` costs a system call, so that small reads there are better
    /// served from a read-ahead page.
    func prefersReadAhead(at offset: Int64, count: Int) -> Bool
    /// The source's first bytes, already in memory and valid for its lifetime (empty when it has none):
    /// reads within them are copies, which a reader may make itself.
    var resident: UnsafeRawBufferPointer { get }
}

extension ByteSource {
    var resident: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    /// Up to `count` bytes starting at `offset`; fewer at the end or on a read error.
    func read(at offset: Int64, count: Int) -> [UInt8] {
        guard offset >= 0, count > 0, offset < size else { return [] }
        let wanted = Int(min(Int64(count), size - offset))
        return [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
            initialized = read(at: offset, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }
}

/// A buffer held in memory (tests, fuzzing, payloads already read).
struct MemorySource: ByteSource {
    let bytes: [UInt8]
    var size: Int64 { Int64(bytes.count) }
    func prefersReadAhead(at offset: Int64, count: Int) -> Bool { false }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard offset >= 0, offset < size, buffer.count > 0 else { return 0 }
        let start = Int(offset)
        let count = min(buffer.count, bytes.count - start)
        bytes.withUnsafeBytes { source in
            buffer.baseAddress!.copyMemory(from: source.baseAddress! + start, byteCount: count)
        }
        return count
    }
}

/// An open file read with `pread`, so no file position is shared and nothing is read that is not asked for.
///
/// When the caller has read the file's first bytes already (``head``), reads within them are served from
/// memory: a probe followed by a hash of the same file reads the head once.
final class FileSource: ByteSource {
    let descriptor: Int32
    let size: Int64
    /// The file's first bytes, read by the caller (empty when none were); valid for the source's lifetime.
    let head: UnsafeRawBufferPointer
    /// The errno of the first failed read (a short read at the end of the file is no error).
    private(set) var readError: Int32?
    var resident: UnsafeRawBufferPointer { head }
    /// Reads past the head cost a system call each.
    func prefersReadAhead(at offset: Int64, count: Int) -> Bool {
        offset < 0 || offset + Int64(count) > Int64(head.count)
    }

    init(descriptor: Int32, size: Int64, head: UnsafeRawBufferPointer = UnsafeRawBufferPointer(start: nil, count: 0)) {
        self.descriptor = descriptor
        self.size = size
        self.head = head
    }

    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard offset >= 0, offset < size, buffer.count > 0 else { return 0 }
        let wanted = Int(min(Int64(buffer.count), size - offset))
        var filled = 0
        if offset < Int64(head.count) {
            filled = min(wanted, head.count - Int(offset))
            buffer.baseAddress!.copyMemory(from: head.baseAddress! + Int(offset), byteCount: filled)
        }
        while filled < wanted {
            let got = pread(descriptor, buffer.baseAddress! + filled, wanted - filled, off_t(offset) + off_t(filled))
            if got > 0 {
                filled += got
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                if got < 0, readError == nil { readError = errno }
                break  // EOF (the file shrank) or an I/O error: return what we have.
            }
        }
        return filled
    }
}

/// The reader every parser goes through: it bounds the total bytes and the number of reads of one probe, so
/// that no file, however crafted, makes a probe read unbounded memory or loop for long.
///
/// Small reads from a file (box, chunk and segment headers: 4 to 64 bytes, thousands per probe for some
/// formats) are served from a read-ahead page: the file is read a page at a time, so that walking the headers
/// packed into a few kilobytes costs one system call, not one per header. The byte budget counts the bytes
/// handed to parsers; read-ahead adds at most one page per read to what is read from the file.
final class BoundedReader {
    /// The most bytes one probe hands to its parsers in total.
    static let defaultByteBudget = 16 << 20
    /// The most reads one probe makes.
    static let defaultReadBudget = 50_000
    /// The read-ahead page size: reads smaller than this are served from a page read at their offset.
    static let pageSize = 4096

    let source: any ByteSource
    private(set) var bytesLeft: Int
    private(set) var readsLeft: Int
    /// Set once a budget ran out; parsers then stop quietly with what they have.
    private(set) var exhausted = false
    /// The read-ahead page (allocated when a small read from a file first needs it), where it starts in the
    /// file, and how many of its bytes are valid.
    private var page: [UInt8] = []
    private var pageStart: Int64 = 0
    private var pageCount = 0

    /// The source's bytes in memory (``ByteSource/resident``): reads within them are copied from here, without
    /// going through the source (the parsers' many small reads of a file's head: libheif's box by box).
    private let resident: UnsafeRawBufferPointer

    init(
        _ source: any ByteSource, byteBudget: Int = BoundedReader.defaultByteBudget,
        readBudget: Int = BoundedReader.defaultReadBudget
    ) {
        self.source = source
        self.size = source.size
        self.resident = source.resident
        self.bytesLeft = byteBudget
        self.readsLeft = readBudget
    }

    /// The source's size (taken once: a source's size never changes).
    let size: Int64

    /// Up to `count` bytes at `offset` (fewer at the end of the file, none once a budget ran out).
    func read(at offset: Int64, count: Int) -> [UInt8] {
        guard count > 0, offset >= 0, offset < size else { return [] }
        let wanted = Int(min(Int64(count), size - offset))
        return [UInt8](unsafeUninitializedCapacity: wanted) { buffer, initialized in
            initialized = read(at: offset, into: UnsafeMutableRawBufferPointer(buffer))
        }
    }

    /// Copies up to `buffer.count` bytes at `offset` into `buffer` (fewer at the end of the file, none once a
    /// budget ran out); returns how many.
    func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard buffer.count > 0, offset >= 0, offset < size else { return 0 }
        guard readsLeft > 0, bytesLeft > 0 else {
            exhausted = true
            return 0
        }
        readsLeft -= 1
        let wanted = Int(min(Int64(buffer.count), size - offset))
        let granted = min(wanted, bytesLeft)
        if granted < wanted { exhausted = true }
        let target = UnsafeMutableRawBufferPointer(rebasing: buffer.prefix(granted))
        let got: Int
        if offset + Int64(granted) <= Int64(resident.count) {
            target.baseAddress!.copyMemory(from: resident.baseAddress! + Int(offset), byteCount: granted)
            got = granted
        } else if granted < Self.pageSize, source.prefersReadAhead(at: offset, count: granted) {
            got = readThroughPage(at: offset, into: target)
        } else {
            got = source.read(at: offset, into: target)
        }
        bytesLeft -= got
        return got
    }

    /// Serves a small read from the read-ahead page, reading the page at `offset` when it does not hold it.
    private func readThroughPage(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
        if offset < pageStart || offset + Int64(buffer.count) > pageStart + Int64(pageCount) {
            if page.isEmpty {
                // Never read before it is written: only the first `pageCount` bytes are used.
                page = [UInt8](unsafeUninitializedCapacity: Self.pageSize) { _, count in count = Self.pageSize }
            }
            pageCount = page.withUnsafeMutableBytes { source.read(at: offset, into: $0) }
            pageStart = offset
        }
        let available = min(buffer.count, Int(pageStart + Int64(pageCount) - offset))
        guard available > 0 else { return 0 }
        page.withUnsafeBytes { bytes in
            buffer.baseAddress!.copyMemory(from: bytes.baseAddress! + Int(offset - pageStart), byteCount: available)
        }
        return available
    }

    /// The 8 bytes at `offset` as two big-endian 32-bit words (a box or chunk header), read without a heap
    /// allocation; nil when the file is shorter.
    func readHeaderWords(at offset: Int64) -> (UInt32, UInt32)? {
        var raw: (UInt32, UInt32) = (0, 0)
        let got = withUnsafeMutableBytes(of: &raw) { read(at: offset, into: $0) }
        guard got == 8 else { return nil }
        return (UInt32(bigEndian: raw.0), UInt32(bigEndian: raw.1))
    }

    /// Exactly `count` bytes at `offset`, or nil when the file is shorter.
    func readExactly(at offset: Int64, count: Int) -> [UInt8]? {
        let bytes = read(at: offset, count: count)
        return bytes.count == count ? bytes : nil
    }
}

/// Safe, bounds-checked integer access to a byte array. Out-of-range reads return nil, never trap.
struct ByteView {
    let bytes: [UInt8]
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var count: Int { bytes.count }

    func u8(_ at: Int) -> UInt8? {
        at >= 0 && at < bytes.count ? bytes[at] : nil
    }

    func u16(_ at: Int, bigEndian: Bool = true) -> UInt16? {
        guard at >= 0, at <= bytes.count - 2 else { return nil }
        let a = UInt16(bytes[at]), b = UInt16(bytes[at + 1])
        return bigEndian ? a << 8 | b : b << 8 | a
    }

    func u24(_ at: Int, bigEndian: Bool = true) -> UInt32? {
        guard at >= 0, at <= bytes.count - 3 else { return nil }
        let a = UInt32(bytes[at]), b = UInt32(bytes[at + 1]), c = UInt32(bytes[at + 2])
        return bigEndian ? a << 16 | b << 8 | c : c << 16 | b << 8 | a
    }

    func u32(_ at: Int, bigEndian: Bool = true) -> UInt32? {
        guard at >= 0, at <= bytes.count - 4 else { return nil }
        var value: UInt32 = 0
        for index in 0..<4 {
            let byte = UInt32(bytes[bigEndian ? at + index : at + 3 - index])
            value = value << 8 | byte
        }
        return value
    }

    func u64(_ at: Int, bigEndian: Bool = true) -> UInt64? {
        guard at >= 0, at <= bytes.count - 8 else { return nil }
        var value: UInt64 = 0
        for index in 0..<8 {
            let byte = UInt64(bytes[bigEndian ? at + index : at + 7 - index])
            value = value << 8 | byte
        }
        return value
    }

    /// Unsigned big-endian integer of 0, 4 or 8 bytes (ISO-BMFF `iloc` field sizes).
    func uint(_ at: Int, size: Int) -> UInt64? {
        switch size {
        case 0: return 0
        case 4: return u32(at).map(UInt64.init)
        case 8: return u64(at)
        default: return nil
        }
    }

    func matches(_ ascii: String, at: Int) -> Bool {
        let pattern = Array(ascii.utf8)
        guard at >= 0, at <= bytes.count - pattern.count else { return false }
        return bytes[at..<(at + pattern.count)].elementsEqual(pattern)
    }

    func slice(_ at: Int, _ length: Int) -> [UInt8]? {
        guard at >= 0, length >= 0, at <= bytes.count - length else { return nil }
        return Array(bytes[at..<(at + length)])
    }
}

/// A four-character code as a big-endian integer.
func fourCC(_ text: StaticString) -> UInt32 {
    precondition(text.utf8CodeUnitCount == 4)
    let p = text.utf8Start
    return UInt32(p[0]) << 24 | UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
}

/// Printable form of a four-character code (non-printable bytes as `.`), for problem details.
func fourCCString(_ code: UInt32) -> String {
    let bytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: code >> UInt32($0)) }
    return String(decoding: bytes.map { (0x20...0x7e).contains($0) ? $0 : UInt8(ascii: ".") }, as: UTF8.self)
}

/// Text from bytes: stops at the first NUL, decodes UTF-8 leniently, drops control characters and trims.
/// Returns nil for empty results.
func cleanText(_ bytes: some Collection<UInt8>) -> String? {
    // Most metadata text is printable ASCII: then trimming spaces is all there is to do.
    let ascii: String?? = bytes.withContiguousStorageIfAvailable { buffer in
        let text = buffer.prefix { $0 != 0 }
        guard text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        guard let first = text.firstIndex(where: { $0 != 0x20 }) else { return .some(nil) }
        let last = text.lastIndex { $0 != 0x20 }!
        return .some(String(decoding: UnsafeBufferPointer(rebasing: buffer[first...last]), as: UTF8.self))
    } ?? nil
    if let ascii { return ascii }
    let upToNul = bytes.prefix { $0 != 0 }
    let decoded = String(decoding: Array(upToNul), as: UTF8.self)
    let scalars = decoded.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7f }
    var text = String(String.UnicodeScalarView(scalars))
    while let first = text.first, first.isWhitespace { text.removeFirst() }
    while let last = text.last, last.isWhitespace { text.removeLast() }
    return text.isEmpty ? nil : text
}

/// The state of one probe: the bounded reader, the problems noted so far, and the structure budget shared by
/// all parsers (boxes, chunks, segments visited), so that no file makes a probe loop for long.
final class ProbeContext {
    /// The most container elements (boxes, chunks, segments, entries) one probe visits.
    static let defaultElementBudget = 20_000

    let reader: BoundedReader
    private(set) var problems: [MetadataProblem] = []
    private var elementsLeft: Int

    init(reader: BoundedReader, elementBudget: Int = ProbeContext.defaultElementBudget) {
        self.reader = reader
        self.elementsLeft = elementBudget
    }

    /// Records a problem (once per kind and field).
    func note(_ kind: MetadataProblem.Kind, _ field: String, _ detail: String = "") {
        guard !problems.contains(where: { $0.kind == kind && $0.field == field }) else { return }
        problems.append(MetadataProblem(kind, field: field, detail: detail))
    }

    /// Takes one element from the budget; false (and a problem noted) once it is spent.
    func visitElement() -> Bool {
        guard elementsLeft > 0 else {
            note(.limitReached, "structure", "more than \(Self.defaultElementBudget) container elements")
            return false
        }
        elementsLeft -= 1
        return true
    }

    /// Notes a `limitReached` problem if the reader ran out of its byte or read budget.
    func noteReaderLimits() {
        if reader.exhausted { note(.limitReached, "reads", "read budget exhausted") }
    }
}
