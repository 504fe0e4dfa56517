#if canImport(Glibc)
import Glibc
#endif

/// An inotify instance and the one parser of what it reads: used by ``FolderWatcher`` and by the library's
/// commit notifier, so that the kernel's record format is read in one place.
///
/// Like swift-system's `FileDescriptor`, it is a plain value over a descriptor: whoever creates it closes it,
/// once, with ``close()``. It is `Sendable` because it holds nothing but the descriptor's number; reads and
/// watch changes are system calls, safe from any thread.
public struct InotifyReader: Sendable {
    /// One `inotify_event` as read.
    public struct Record: Sendable, Equatable {
        /// The watch the event concerns, as ``addWatch(_:mask:)`` returned it.
        public let watch: Int32
        /// The event's `IN_*` bits.
        public let mask: UInt32
        /// Pairs the two halves of a rename.
        public let cookie: UInt32
        /// The entry's name in the watched directory; empty for an event about the directory itself.
        public let name: String
    }

    /// What one ``read(into:_:)`` found.
    public enum ReadOutcome: Sendable, Equatable {
        /// Records were read and handed over.
        case records
        /// Nothing was waiting (the descriptor is non-blocking), or the read failed.
        case empty
        /// The next record didn't fit: the buffer was doubled, and the caller should read again.
        case bufferGrown
    }

    /// The inotify descriptor, for poll(2).
    public let descriptor: Int32

    /// Creates a non-blocking, close-on-exec inotify instance.
    ///
    /// - Throws: the `errno` of `inotify_init1` (`EMFILE` when fs.inotify.max_user_instances is reached).
    public init() throws(SystemCallError) {
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        guard descriptor >= 0 else { throw SystemCallError(code: errno) }
        self.descriptor = descriptor
    }

    /// Watches `path` for the events in `mask`.
    ///
    /// - Returns: the watch descriptor, which ``Record/watch`` carries.
    /// - Throws: the `errno` of `inotify_add_watch` (`ENOSPC`: fs.inotify.max_user_watches is reached).
    public func addWatch(_ path: String, mask: UInt32) throws(SystemCallError) -> Int32 {
        let watch = inotify_add_watch(descriptor, path, mask)
        guard watch >= 0 else { throw SystemCallError(code: errno) }
        return watch
    }

    /// Stops a watch; the kernel then sends `IN_IGNORED` for it.
    public func removeWatch(_ watch: Int32) {
        inotify_rm_watch(descriptor, watch)
    }

    /// One read(2) into `buffer`, its records handed to `body` in order. Doubles `buffer` when the next
    /// record doesn't fit (a long name). O(bytes read).
    public func read(into buffer: inout UnsafeMutableRawBufferPointer, _ body: (Record) -> Void) -> ReadOutcome {
        let count = Glibc.read(descriptor, buffer.baseAddress, buffer.count)
        if count > 0 {
            Self.parse(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), body)
            return .records
        }
        if count < 0 && errno == EINVAL {
            let larger = buffer.count * 2
            buffer.deallocate()
            buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: larger, alignment: 8)
            return .bufferGrown
        }
        return .empty
    }

    /// Closes the descriptor, which removes every watch. Call once.
    public func close() {
        _ = Glibc.close(descriptor)
    }

    /// Parses `struct inotify_event` records: a 16-byte header (watch, mask, cookie, name length), then the
    /// name, NUL-padded.
    static func parse(_ bytes: UnsafeRawBufferPointer, _ body: (Record) -> Void) {
        var offset = 0
        while offset + 16 <= bytes.count {
            let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + 16
            let nameEnd = min(bytes.count, nameStart + length)
            body(Record(
                watch: bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                mask: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                cookie: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self),
                name: String(decoding: bytes[nameStart..<nameEnd].prefix { $0 != 0 }, as: UTF8.self)))
            offset = nameStart + length
        }
    }
}

extension InotifyReader {
    /// A failed system call's `errno`.
    public struct SystemCallError: Error, Sendable, Equatable {
        /// The `errno` value.
        public let code: Int32
    }
}
